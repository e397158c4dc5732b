// GPU toolchains as the command line names them: "nvcc" (the kernels nvcc
// built into this binary) or "nvrtc[:LIBRARY]" (the same device-only sources
// compiled at run time by an NVRTC library of any version: a path, or
// without one the libnvrtc the default search path finds).
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/executor.hpp"

namespace hs::gpu {

class NvrtcLibrary;
class SharedDevice;

// The executors of `spec` on the run's shared device: one for nvcc or an
// NVRTC, one per runnable entry for "modules:DIR" (cuda/modules.hpp; the
// entries left out are added to `skipped`, a line each).
std::vector<std::unique_ptr<Executor>> make_gpu_executors(const std::string& spec,
                                                          const std::shared_ptr<SharedDevice>& device,
                                                          std::vector<std::string>& skipped);

// "DIR" of "modules:DIR"; nullopt for any other spec. Throws UsageError for
// an unknown one (cuda/toolchain_spec.hpp).
std::optional<std::string> modules_dir_of(const std::string& spec);

// An executor for `spec` on the run's shared device (its buffers and stream).
// Throws UsageError for an unknown spec or an NVRTC library that cannot be
// loaded.
std::unique_ptr<Executor> make_gpu_executor(const std::string& spec, std::shared_ptr<SharedDevice> device);

// Throws UsageError for an unknown spec or an NVRTC library that cannot be
// loaded; needs no GPU, so a bad --toolchain is refused on any machine.
void check_toolchain(const std::string& spec);

// The device every GPU executor of a run shares: `spec` is an index ("1")
// or a UUID as nvidia-smi prints it ("GPU-b0422cc1-...", or a unique start
// of one); "" is the first GPU. Throws Unavailable when there is no usable
// GPU, UsageError for a device that is not here (listing the GPUs found).
std::shared_ptr<SharedDevice> open_device(const std::string& spec = "");
std::shared_ptr<SharedDevice> open_device(int) = delete;  // a literal 0 would become a null string

// The indices of the GPUs "all" or a --device list ("0,2", UUIDs or their
// starts) names, in the order named; throws as open_device does, and
// UsageError for a GPU named twice.
std::vector<int> device_indices(const std::string& spec);

// "0: NVIDIA H200, GPU-b0422cc1-..., PCI 00000000:00:06.0": the GPU of
// that index, and every GPU here a line each.
std::string gpu_line(int device);
std::vector<std::string> gpu_lines();

// The executor for kernels `nvrtc` compiles for the device at construction.
std::unique_ptr<Executor> make_nvrtc_executor(std::shared_ptr<const NvrtcLibrary> nvrtc,
                                              std::shared_ptr<SharedDevice> device);

struct FoundToolchain {
  std::string spec;   // what --toolchain takes
  std::string label;  // "nvrtc 12.6.85": the toolchain as result rows name it
  std::string where;  // "built in", or the library file
};

// nvcc, the NVRTC releases `./dev nvrtc` installed (by their names), the
// NVRTC on the default search path and any other library under
// .deps/nvrtc; one per label (a release first). Needs no GPU.
std::vector<FoundToolchain> find_toolchains();

// The NVRTC library an "nvrtc[:LIBRARY]" spec names. Throws UsageError for
// "nvcc", an unknown spec or a library that cannot be loaded. Needs no GPU.
std::shared_ptr<const NvrtcLibrary> nvrtc_of_spec(const std::string& spec);

}  // namespace hs::gpu
