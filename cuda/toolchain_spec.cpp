#include "cuda/toolchain_spec.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <utility>

#include "build_config.hpp"
#include "platform/error.hpp"

namespace hs::gpu {
namespace {

namespace fs = std::filesystem;

const fs::path kReleasesCsv = fs::path(HISTOSTUDY_SOURCE_DIR) / "data" / "nvrtc-releases.csv";
const fs::path kInstalled = fs::path(HISTOSTUDY_SOURCE_DIR) / ".deps" / "nvrtc";

// "12.6": digits, one dot, digits (what a release looks like, known or not).
bool looks_like_release(std::string_view text) {
  const auto dot = text.find('.');
  const auto digits = [](std::string_view s) {
    return !s.empty() && s.size() <= 4 && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  return dot != std::string_view::npos && digits(text.substr(0, dot)) && digits(text.substr(dot + 1));
}

bool is_library_name(const std::string& name) {
  constexpr std::string_view stem = "libnvrtc.so.";
  return name.starts_with(stem) && name.size() > stem.size() &&
         name.find_first_not_of("0123456789", stem.size()) == std::string::npos;
}

std::string known_releases() {
  std::string known;
  for (const auto& r : nvrtc_releases()) known += (known.empty() ? "" : ", ") + r.release;
  return known.empty() ? "none: " + kReleasesCsv.string() + " is missing" : known;
}

ToolchainSpec release_spec(const std::string& spec, const std::string& release) {
  const auto releases = nvrtc_releases();
  if (std::none_of(releases.begin(), releases.end(), [&](const auto& r) { return r.release == release; }))
    throw UsageError("toolchain " + spec + ": no NVRTC release " + release + " in data/nvrtc-releases.csv (known: " +
                     known_releases() + "; another is one line there)");
  const auto library = installed_release_library(release);
  if (!library)
    throw UsageError("toolchain " + spec + ": NVRTC " + release + " is not installed here; install it with: ./dev nvrtc " +
                     release);
  return {ToolchainSpec::Kind::nvrtc, *library};
}

}  // namespace

std::vector<NvrtcRelease> nvrtc_releases() {
  std::vector<NvrtcRelease> releases;
  std::ifstream in(kReleasesCsv);
  std::string line;
  std::getline(in, line);  // release,package,version
  while (std::getline(in, line)) {
    const auto a = line.find(','), b = a == std::string::npos ? a : line.find(',', a + 1);
    if (b == std::string::npos) continue;
    releases.push_back({line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1)});
  }
  return releases;
}

std::optional<std::string> release_of_spec(const std::string& spec) {
  for (const std::string_view prefix : {std::string_view(), kReleasePrefix, kNvrtcPrefix}) {
    if (!spec.starts_with(prefix)) continue;
    const std::string rest = spec.substr(prefix.size());
    // nvrtc:12.6 is a release unless a file of that name is here (nvrtc:PATH names a library)
    if (looks_like_release(rest) && !(prefix == kNvrtcPrefix && fs::exists(rest))) return rest;
  }
  return std::nullopt;
}

std::optional<std::string> installed_release_library(const std::string& release) {
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(kInstalled / release, ec), end; !ec && it != end; it.increment(ec))
    if (is_library_name(it->path().filename().string())) found.push_back(it->path().string());
  if (found.empty()) return std::nullopt;
  return *std::min_element(found.begin(), found.end());
}

std::vector<std::string> installed_nvrtc_libraries() {
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(kInstalled, ec), end; !ec && it != end; it.increment(ec))
    if (is_library_name(it->path().filename().string())) found.push_back(it->path().string());
  std::sort(found.begin(), found.end());
  return found;
}

ToolchainSpec parse_toolchain(const std::string& spec) {
  using K = ToolchainSpec::Kind;
  if (spec == "nvcc") return {K::nvcc, ""};
  if (spec == "nvrtc") return {K::nvrtc, ""};
  if (const auto release = release_of_spec(spec)) return release_spec(spec, *release);
  for (const auto& [prefix, kind] : {std::pair{kNvrtcPrefix, K::nvrtc}, std::pair{kModulesPrefix, K::modules}})
    if (spec.starts_with(prefix) && spec.size() > prefix.size()) return {kind, spec.substr(prefix.size())};
  throw UsageError("unknown toolchain '" + spec +
                   "' (known: nvcc, nvrtc, an NVRTC release such as 12.6 or nvrtc-12.6 (histostudy list), "
                   "nvrtc:/path/to/libnvrtc.so.N, modules:DIR)");
}

}  // namespace hs::gpu
