// The executor for kernels in a code image (a cubin, or PTX the driver
// compiles at load time), whatever made it: an NVRTC library at run time
// (make_nvrtc_executor) or a release's prebuilt module from a modules
// directory (cuda/modules.cpp). The image is loaded into the device's
// primary context (the one the runtime uses, so the shared buffers and
// stream serve it) and launched with cuLaunchKernel by name expression.
#include "cuda/module_executor.hpp"

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "cuda/check.hpp"
#include "cuda/driver_api.hpp"
#include "cuda/gpu_executor.hpp"
#include "cuda/kernel_sources.hpp"
#include "cuda/nvcc_kernels.hpp"
#include "cuda/nvrtc_library.hpp"
#include "cuda/toolchains.hpp"

namespace hs::gpu {
namespace {

// The size of the argument struct kernel `name` takes, as its declaration
// says: nvcc's table of the same kernel sources (an NVRTC build compiles
// this binary's embedded copy of them; a modules directory must name their
// SHA-256, cuda/modules.cpp). Not the driver's cuFuncGetParamInfo: that
// needs a CUDA 12.4 driver and header, and the project supports CUDA 12.0.
std::size_t declared_param_bytes(const std::string& name, const std::string& toolchain) {
  for (const auto& kernel : nvcc::kernel_table())
    if (kernel.name == name) return kernel.param_bytes;
  throw Unavailable(toolchain + ": its kernel " + name + " is not one this binary's kernel sources declare");
}

// A code image loaded into `device`'s primary context, which stays retained
// while the module lives.
class LoadedModule {
 public:
  LoadedModule(const DriverApi& driver, int device, const std::string& image) : driver_(driver) {
    CUdevice handle = 0;
    HS_CUDA(driver_.cuDeviceGet(&handle, device));
    HS_CUDA(driver_.cuDevicePrimaryCtxRetain(&context_, handle));
    device_ = handle;
    // The base class's cudaSetDevice made this context current on this thread.
    // Not HS_CUDA: a GPU refusing an image is a typed answer (the entry is
    // skipped, ModuleRefused), not a failed call.
    const CUresult loaded = driver_.cuModuleLoadData(&module_, image.data());
    if (loaded != CUDA_SUCCESS) {
      (void)driver_.cuDevicePrimaryCtxRelease(device_);
      throw ModuleRefused(loaded, driver_error_text(loaded));
    }
  }
  // Errors are ignored: a destructor must not throw.
  ~LoadedModule() {
    (void)driver_.cuModuleUnload(module_);
    (void)driver_.cuDevicePrimaryCtxRelease(device_);
  }
  LoadedModule(const LoadedModule&) = delete;
  LoadedModule& operator=(const LoadedModule&) = delete;

  CUfunction function(const std::string& symbol) const {
    CUfunction f = nullptr;
    HS_CUDA(driver_.cuModuleGetFunction(&f, module_, symbol.c_str()));
    return f;
  }

 private:
  const DriverApi& driver_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUmodule module_ = nullptr;
};

class ModuleExecutor final : public GpuExecutor {
 public:
  ModuleExecutor(ModuleImage image, std::shared_ptr<SharedDevice> device)
      : GpuExecutor(std::move(device)),
        image_(std::move(image)),
        driver_(driver_api()),
        module_(driver_, this->device(), image_.image) {
    for (const auto& [name, symbol] : image_.lowered_names) {
      Kernel kernel{module_.function(symbol)};
      kernel.param_bytes = declared_param_bytes(name, image_.label);
      // Asking for attributes loads the function now, so lazy module loading
      // (CUDA_MODULE_LOADING=LAZY, the default) cannot land in a timed launch.
      HS_CUDA(driver_.cuFuncGetAttribute(&kernel.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, kernel.function));
      HS_CUDA(driver_.cuFuncGetAttribute(&kernel.local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, kernel.function));
      HS_CUDA(driver_.cuFuncGetAttribute(&kernel.static_shared_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                         kernel.function));
      kernels_.emplace(name, kernel);
    }
  }

  std::string toolchain() const override { return image_.label; }
  std::string code_path() const override { return code_path_for(image_.target); }

  nlohmann::json describe() const override {
    nlohmann::json kernels = nlohmann::json::object();
    for (const auto& [name, k] : kernels_)
      kernels[name] = {{"registers", k.registers},
                       {"local_bytes", k.local_bytes},
                       {"static_shared_bytes", k.static_shared_bytes}};
    nlohmann::json d = image_.record;
    d["target"] = image_.target;
    d["code"] = image_.target.starts_with("sm_") ? "sass" : "ptx, compiled by the driver at load time";
    d["kernel_sources_sha256"] = kKernelSourcesSha256;
    d["kernels"] = kernels;
    d["device"] = device_json();
    return d;
  }

  // Library variants (CUB) are host code nvcc built; a module holds kernels only.
  bool supports(const Implementation& impl) const override {
    return GpuExecutor::supports(impl) && !impl.gpu->library;
  }

 protected:
  void launch(const KernelLaunch& l, KernelArgs& args) override {
    const Kernel& kernel = opted_in(l.kernel, l.shared_bytes);
    check_args(l, args, kernel.param_bytes);
    void* params[] = {args.data()};
    HS_CUDA(driver_.cuLaunchKernel(kernel.function, l.grid, 1, 1, l.block, 1, 1, unsigned(l.shared_bytes), stream(),
                                   params, nullptr));
  }

  int blocks_per_sm(const std::string& name, int block, std::size_t dynamic_shared) const override {
    int blocks = 0;
    HS_CUDA(driver_.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, opted_in(name, dynamic_shared).function,
                                                                block, dynamic_shared));
    return blocks;
  }

 private:
  struct Kernel {
    CUfunction function = nullptr;
    int registers = 0, local_bytes = 0, static_shared_bytes = 0;
    std::size_t param_bytes = 0;  // its argument struct's
    std::size_t opted_in_bytes = 0;
  };

  // The kernel, opted in to `shared` bytes of dynamic shared memory where
  // that is beyond the default per-block limit (once per kernel and size).
  const Kernel& opted_in(const std::string& name, std::size_t shared) const {
    const auto found = kernels_.find(name);
    if (found == kernels_.end()) throw Error(toolchain() + " executor: no kernel for " + name);
    Kernel& kernel = found->second;
    if (shared > limits().shared_per_block && kernel.opted_in_bytes < shared) {
      HS_CUDA(driver_.cuFuncSetAttribute(kernel.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         int(shared)));
      kernel.opted_in_bytes = shared;
    }
    return kernel;
  }

  ModuleImage image_;
  const DriverApi& driver_;
  LoadedModule module_;
  mutable std::map<std::string, Kernel> kernels_;
};

}  // namespace

std::string code_path_for(const std::string& target) {
  return target.starts_with("sm_") ? "sass " + target : "ptx " + target + ", compiled by the driver";
}

std::unique_ptr<Executor> make_module_executor(ModuleImage image, std::shared_ptr<SharedDevice> device) {
  return std::make_unique<ModuleExecutor>(std::move(image), std::move(device));
}

std::unique_ptr<Executor> make_nvrtc_executor(std::shared_ptr<const NvrtcLibrary> nvrtc,
                                              std::shared_ptr<SharedDevice> device) {
  const DeviceLimits& limits = device->limits();
  CompiledKernels compiled = nvrtc->compile(limits.cc_major * 10 + limits.cc_minor, kernel_names());
  ModuleImage image;
  image.label = "nvrtc " + nvrtc->version();
  image.target = compiled.target;
  image.image = std::move(compiled.image);
  image.lowered_names = std::move(compiled.lowered_names);
  image.record = {{"compiler", "nvrtc"},
                  {"version", nvrtc->version()},
                  {"library", nvrtc->path()},
                  {"options", compiled.options}};
  return make_module_executor(std::move(image), std::move(device));
}

}  // namespace hs::gpu
