#include "cuda/driver_api.hpp"

#include "cuda/check.hpp"
#include "study/dynamic_library.hpp"

namespace hs::gpu {
namespace {

DriverApi load_driver_api() {
  const DynamicLibrary libcuda("libcuda.so.1");
  DriverApi api;
  HS_LOAD_FUNCTION(libcuda, api, cuInit);
  HS_LOAD_FUNCTION(libcuda, api, cuDeviceGet);
  HS_LOAD_FUNCTION(libcuda, api, cuDevicePrimaryCtxRetain);
  HS_LOAD_FUNCTION(libcuda, api, cuDevicePrimaryCtxRelease);
  HS_LOAD_FUNCTION(libcuda, api, cuModuleLoadData);
  HS_LOAD_FUNCTION(libcuda, api, cuModuleUnload);
  HS_LOAD_FUNCTION(libcuda, api, cuModuleGetFunction);
  HS_LOAD_FUNCTION(libcuda, api, cuFuncGetAttribute);
  HS_LOAD_FUNCTION(libcuda, api, cuFuncSetAttribute);
  HS_LOAD_FUNCTION(libcuda, api, cuLaunchKernel);
  HS_LOAD_FUNCTION(libcuda, api, cuModuleGetLoadingMode);
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
