// The CUDA driver API functions the NVRTC executor needs, from libcuda.so.1
// loaded at run time (the binary links only the runtime, which loads the
// same library, so both APIs share each device's primary context).
#pragma once
#include <cuda.h>

#include <string>

#include "platform/dynamic_library.hpp"

namespace hs::gpu {

#define HS_DRIVER_FUNCTIONS(F) \
  F(cuInit) \
  F(cuDeviceGet) \
  F(cuDevicePrimaryCtxRetain) \
  F(cuDevicePrimaryCtxRelease) \
  F(cuModuleLoadData) \
  F(cuModuleUnload) \
  F(cuModuleGetFunction) \
  F(cuFuncGetAttribute) \
  F(cuFuncSetAttribute) \
  F(cuLaunchKernel) \
  F(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
  F(cuModuleGetLoadingMode)

struct DriverApi {
  HS_DRIVER_FUNCTIONS(HS_FUNCTION_MEMBER)
};

// Loads libcuda.so.1 once (and sets check.hpp's driver message functions).
// Throws Unavailable when there is no driver.
const DriverApi& driver_api();

// How this process loads modules: "lazy" or "eager" (CUDA_MODULE_LOADING,
// default lazy since CUDA 12.2), as the driver reports it. Executors load
// every kernel before timing either way.
std::string module_loading_mode();

}  // namespace hs::gpu
