// GPU toolchains as the command line names them: "nvcc" (the kernels nvcc
// built into this binary) or "nvrtc[:LIBRARY]" (the same device-only sources
// compiled at run time by an NVRTC library of any version: a path, or
// without one the libnvrtc the default search path finds).
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "study/executor.hpp"

namespace hs::gpu {

class NvrtcLibrary;
class SharedDevice;

// An executor for `spec` on the run's shared device (its buffers and stream).
// Throws UsageError for an unknown spec or an NVRTC library that cannot be
// loaded.
std::unique_ptr<Executor> make_gpu_executor(const std::string& spec, std::shared_ptr<SharedDevice> device);

// Throws UsageError for an unknown spec or an NVRTC library that cannot be
// loaded; needs no GPU, so a bad --toolchain is refused on any machine.
void check_toolchain(const std::string& spec);

// The device every GPU executor of a run shares. Throws Unavailable when
// there is no usable GPU.
std::shared_ptr<SharedDevice> open_device(int device = 0);

// The executor for kernels `nvrtc` compiles for the device at construction.
std::unique_ptr<Executor> make_nvrtc_executor(std::shared_ptr<const NvrtcLibrary> nvrtc,
                                              std::shared_ptr<SharedDevice> device);

struct FoundToolchain {
  std::string spec;   // what --toolchain takes
  std::string label;  // "nvrtc 12.6.85": the toolchain as result rows name it
  std::string where;  // "built in", or the library file
};

// nvcc, the NVRTC on the default search path, and those `./dev nvrtc`
// installed under .deps/nvrtc; one per label. Needs no GPU.
std::vector<FoundToolchain> find_toolchains();

// What the codegen audit reads: every NVRTC toolchain in `specs` compiles
// the kernels for every arch in `archs` (75: sm_75), exactly as its executor
// would, into DIR/<toolchain>/sm_<arch>.cubin with ptxas's log beside it,
// listed in DIR/manifest.json (returned). Needs no GPU.
nlohmann::json write_cubins(const std::vector<std::string>& specs, const std::vector<int>& archs,
                            const std::filesystem::path& dir);

}  // namespace hs::gpu
