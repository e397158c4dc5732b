// The executor for the kernels nvcc compiled into this binary: GpuExecutor
// plus a table from name expression to kernel, launched with
// cudaLaunchKernel.
#include <memory>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>

#include "build_config.hpp"
#include "cuda/check.hpp"
#include "cuda/gpu_executor.hpp"
#include "cuda/module_executor.hpp"
#include "cuda/nvcc_kernels.hpp"
#include "platform/error.hpp"

namespace hs::gpu {
namespace {

// Errors that mean "this binary has no code this GPU can run".
bool no_code_for_device(cudaError_t e) {
  return e == cudaErrorNoKernelImageForDevice || e == cudaErrorUnsupportedPtxVersion ||
         e == cudaErrorInvalidKernelImage;
}

std::vector<std::string> built_archs() {
  std::vector<std::string> archs;
  std::istringstream in(HISTOSTUDY_GPU_ARCHS);
  for (std::string a; in >> a;) archs.push_back(a);
  return archs;
}

class NvccExecutor final : public GpuExecutor {
 public:
  explicit NvccExecutor(std::shared_ptr<SharedDevice> device) : GpuExecutor(std::move(device)) {
    for (const auto& kernel : nvcc::kernel_table()) kernels_.emplace(std::string(kernel.name), kernel);
    for (const auto& name : kernel_names())
      if (!kernels_.count(name)) throw Error("nvcc executor: no compiled kernel for " + name);
    // Load every kernel now: a binary without code for this GPU says so
    // before any run, and lazy module loading (CUDA_MODULE_LOADING=LAZY, the
    // default) cannot land in a timed launch.
    for (const auto& [name, kernel] : kernels_) {
      cudaFuncAttributes attributes{};
      const cudaError_t probed = cudaFuncGetAttributes(&attributes, kernel.stub);
      if (no_code_for_device(probed)) no_code(probed);
      HS_CUDA(probed);
    }
  }

  std::string toolchain() const override { return "nvcc " + nvcc::version(); }

  // As the runtime picks from the fat binary: SASS for this arch, else SASS
  // of the same major and a lower minor (binary compatible), else the PTX,
  // which the driver compiles.
  std::string code_path() const override {
    const int major = limits().cc_major, minor = limits().cc_minor;
    int best = -1;
    for (const auto& arch : built_archs()) {
      const int cc = std::stoi(arch);
      if (cc / 10 == major && cc % 10 <= minor) best = std::max(best, cc);
    }
    if (best >= 0) return code_path_for("sm_" + std::to_string(best));
    return code_path_for("compute_" HISTOSTUDY_PTX_ARCH);
  }

  nlohmann::json describe() const override {
    return {{"compiler", "nvcc"},
            {"version", nvcc::version()},
            {"flags", HISTOSTUDY_CUDA_FLAGS},
            {"archs", built_archs()},
            {"ptx_arch", HISTOSTUDY_PTX_ARCH},
            {"code", code_path()},
            {"host_compiler", HISTOSTUDY_CXX},
            {"cub", CubHistogram::version()},
            {"device", device_json()}};
  }

 protected:
  void launch(const KernelLaunch& l, KernelArgs& args) override {
    const nvcc::Kernel& kernel = opted_in(l.kernel, l.shared_bytes);
    check_args(l, args, kernel.param_bytes);
    void* params[] = {args.data()};
    const cudaError_t launched =
        cudaLaunchKernel(kernel.stub, dim3(l.grid), dim3(l.block), params, l.shared_bytes, stream());
    if (no_code_for_device(launched)) no_code(launched);
    HS_CUDA(launched);
    HS_CUDA(cudaGetLastError());
  }

  int blocks_per_sm(const std::string& name, int block, std::size_t dynamic_shared) const override {
    int blocks = 0;
    HS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, opted_in(name, dynamic_shared).stub, block,
                                                          dynamic_shared));
    return blocks;
  }

 private:
  // The kernel, opted in to `shared` bytes of dynamic shared memory where
  // that is beyond the default per-block limit (once per kernel and size).
  const nvcc::Kernel& opted_in(const std::string& name, std::size_t shared) const {
    const auto found = kernels_.find(name);
    if (found == kernels_.end()) throw Error("nvcc executor: no compiled kernel for " + name);
    const nvcc::Kernel& kernel = found->second;
    if (shared > limits().shared_per_block) {
      auto& opted = opted_in_[kernel.stub];
      if (opted < shared) {
        HS_CUDA(cudaFuncSetAttribute(kernel.stub, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
        opted = shared;
      }
    }
    return kernel;
  }

  [[noreturn]] void no_code(cudaError_t e) const {
    (void)cudaGetLastError();
    throw Unavailable("this binary has no GPU code for compute capability " + compute_capability() +
                      " (built for gpu_archs '" HISTOSTUDY_GPU_ARCHS "', SASS for each and PTX for the lowest: " +
                      cudaGetErrorString(e) + "); rebuild with -Dgpu_archs=" + std::to_string(limits().cc_major) +
                      std::to_string(limits().cc_minor));
  }

  std::unordered_map<std::string, nvcc::Kernel> kernels_;
  mutable std::unordered_map<const void*, std::size_t> opted_in_;
};

}  // namespace

std::unique_ptr<Executor> make_nvcc_executor(std::shared_ptr<SharedDevice> device) {
  return std::make_unique<NvccExecutor>(std::move(device));
}

}  // namespace hs::gpu
