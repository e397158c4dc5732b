#include "cuda/toolchain_spec.hpp"

#include <utility>

#include "study/error.hpp"

namespace hs::gpu {

ToolchainSpec parse_toolchain(const std::string& spec) {
  using K = ToolchainSpec::Kind;
  if (spec == "nvcc") return {K::nvcc, ""};
  if (spec == "nvrtc") return {K::nvrtc, ""};
  for (const auto& [prefix, kind] : {std::pair{kNvrtcPrefix, K::nvrtc}, std::pair{kModulesPrefix, K::modules}})
    if (spec.starts_with(prefix) && spec.size() > prefix.size()) return {kind, spec.substr(prefix.size())};
  throw UsageError("unknown toolchain '" + spec +
                   "' (known: nvcc, nvrtc, nvrtc:/path/to/libnvrtc.so.N, modules:DIR)");
}

}  // namespace hs::gpu
