// The kernels nvcc compiled into this binary (cuda/nvcc_kernels.cu), by the
// name expressions the variants' plans use. Plain C++ header.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hs::gpu::nvcc {

// One instantiation in cuda/*_kernels.cuh.
struct Kernel {
  std::string_view name;     // its name expression
  const void* stub;          // the host stub to pass to cudaLaunchKernel
  std::size_t param_bytes;   // the size of its one parameter, its family's argument struct
};

const std::vector<Kernel>& kernel_table();

// "13.0.88": the nvcc that compiled the kernels (__CUDACC_VER_*__).
std::string version();

}  // namespace hs::gpu::nvcc
