// The kernels nvcc compiled into this binary (cuda/nvcc_kernels.cu), by the
// name expressions the variants' plans use. Plain C++ header.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hs::gpu::nvcc {

// (name expression, host stub to pass to cudaLaunchKernel), one per
// instantiation in cuda/*_kernels.cuh.
const std::vector<std::pair<std::string_view, const void*>>& kernel_table();

// "13.0.88": the nvcc that compiled the kernels (__CUDACC_VER_*__).
std::string version();

}  // namespace hs::gpu::nvcc
