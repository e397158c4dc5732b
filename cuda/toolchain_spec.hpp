// A --toolchain (or --control) spec as the command line spells it: "nvcc",
// "nvrtc", "nvrtc:LIBRARY" or "modules:DIR". Plain C++, compiled with or
// without CUDA, so a build without CUDA refuses the spellings a build with
// it refuses, in the same words (cuda/toolchains.hpp makes the executors).
#pragma once
#include <string>
#include <string_view>

namespace hs::gpu {

inline constexpr std::string_view kNvrtcPrefix = "nvrtc:";
inline constexpr std::string_view kModulesPrefix = "modules:";

struct ToolchainSpec {
  enum class Kind { nvcc, nvrtc, modules };
  Kind kind = Kind::nvcc;
  std::string path;  // nvrtc: the library ("": the default search path's libnvrtc); modules: the directory
};

// Throws UsageError for a spec that is none of those, naming the known ones.
ToolchainSpec parse_toolchain(const std::string& spec);

}  // namespace hs::gpu
