#include "cuda/driver_api.hpp"

#include "cuda/check.hpp"
#include "platform/dynamic_library.hpp"

namespace hs::gpu {
namespace {

DriverApi load_driver_api() {
  const DynamicLibrary libcuda("libcuda.so.1");
  DriverApi api;
  HS_LOAD_FUNCTIONS(libcuda, api, HS_DRIVER_FUNCTIONS);
  driver_error_name = libcuda.function<decltype(&::cuGetErrorName)>("cuGetErrorName");
  driver_error_string = libcuda.function<decltype(&::cuGetErrorString)>("cuGetErrorString");
  HS_CUDA(api.cuInit(0));
  return api;
}

}  // namespace

const DriverApi& driver_api() {
  static const DriverApi api = load_driver_api();
  return api;
}

std::string module_loading_mode() {
  CUmoduleLoadingMode mode{};
  HS_CUDA(driver_api().cuModuleGetLoadingMode(&mode));
  return mode == CU_MODULE_LAZY_LOADING ? "lazy" : "eager";
}

}  // namespace hs::gpu
