// A --toolchain (or --control) spec as the command line spells it: "nvcc",
// "nvrtc", "nvrtc:LIBRARY", "modules:DIR", or an NVRTC release by name
// ("12.6", "nvrtc-12.6": a line of data/nvrtc-releases.csv, resolved to the
// library `./dev nvrtc` installed under .deps/nvrtc/). Plain C++, compiled
// with or without CUDA, so a build without CUDA refuses the spellings a
// build with it refuses, in the same words (cuda/toolchains.hpp makes the
// executors).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hs::gpu {

inline constexpr std::string_view kNvrtcPrefix = "nvrtc:";
inline constexpr std::string_view kModulesPrefix = "modules:";
inline constexpr std::string_view kReleasePrefix = "nvrtc-";

struct ToolchainSpec {
  enum class Kind { nvcc, nvrtc, modules };
  Kind kind = Kind::nvcc;
  std::string path;  // nvrtc: the library ("": the default search path's libnvrtc); modules: the directory
};

// Throws UsageError for a spec that is none of those, naming the known ones,
// and for a release that is not installed, naming the command that installs it.
ToolchainSpec parse_toolchain(const std::string& spec);

// A line of data/nvrtc-releases.csv: the release ("12.6") and its PyPI wheel.
struct NvrtcRelease {
  std::string release, package, version;
};
std::vector<NvrtcRelease> nvrtc_releases();

// The release a spec names ("12.6" for "12.6", "nvrtc-12.6" or "nvrtc:12.6"), or nullopt.
std::optional<std::string> release_of_spec(const std::string& spec);

// The library `./dev nvrtc RELEASE` installed (.deps/nvrtc/RELEASE/.../libnvrtc.so.N), or nullopt.
std::optional<std::string> installed_release_library(const std::string& release);

// Every library `./dev nvrtc` installed, sorted.
std::vector<std::string> installed_nvrtc_libraries();

}  // namespace hs::gpu
