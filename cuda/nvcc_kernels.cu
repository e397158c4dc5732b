// Compiles the device-only kernel sources with nvcc and lists every
// instantiation by name expression. The same .cuh files are what an NVRTC
// executor compiles at run time.
#include "cuda/nvcc_kernels.hpp"

#include "cuda/fast_kernels.cuh"
#include "cuda/floor_kernels.cuh"
#include "cuda/lesson_kernels.cuh"

namespace hs::gpu::nvcc {

const std::vector<std::pair<std::string_view, const void*>>& kernel_table() {
  static const std::vector<std::pair<std::string_view, const void*>> table = {
      {"hs_sum_bytes", reinterpret_cast<const void*>(&hs_sum_bytes)},
      {"hs_read_floor", reinterpret_cast<const void*>(&hs_read_floor)},
      {"hs_global<unsigned int>", reinterpret_cast<const void*>(&hs_global<unsigned int>)},
      {"hs_global<unsigned long long>", reinterpret_cast<const void*>(&hs_global<unsigned long long>)},
      {"hs_per_block<unsigned int>", reinterpret_cast<const void*>(&hs_per_block<unsigned int>)},
      {"hs_per_block<unsigned long long>", reinterpret_cast<const void*>(&hs_per_block<unsigned long long>)},
      {"hs_per_warp<unsigned int>", reinterpret_cast<const void*>(&hs_per_warp<unsigned int>)},
      {"hs_per_warp<unsigned long long>", reinterpret_cast<const void*>(&hs_per_warp<unsigned long long>)},
      {"hs_partitioned<unsigned int, 256>", reinterpret_cast<const void*>(&hs_partitioned<unsigned int, 256>)},
      {"hs_partitioned<unsigned int, 128>", reinterpret_cast<const void*>(&hs_partitioned<unsigned int, 128>)},
      {"hs_partitioned<unsigned int, 64>", reinterpret_cast<const void*>(&hs_partitioned<unsigned int, 64>)},
      {"hs_partitioned<unsigned int, 32>", reinterpret_cast<const void*>(&hs_partitioned<unsigned int, 32>)},
      {"hs_partitioned<unsigned long long, 256>",
       reinterpret_cast<const void*>(&hs_partitioned<unsigned long long, 256>)},
      {"hs_partitioned<unsigned long long, 128>",
       reinterpret_cast<const void*>(&hs_partitioned<unsigned long long, 128>)},
      {"hs_partitioned<unsigned long long, 64>",
       reinterpret_cast<const void*>(&hs_partitioned<unsigned long long, 64>)},
      {"hs_partitioned<unsigned long long, 32>",
       reinterpret_cast<const void*>(&hs_partitioned<unsigned long long, 32>)},
      {"hs_lane_shared", reinterpret_cast<const void*>(&hs_lane_shared)},
      {"hs_fold_rows<unsigned int>", reinterpret_cast<const void*>(&hs_fold_rows<unsigned int>)},
      {"hs_fold_rows<unsigned long long>", reinterpret_cast<const void*>(&hs_fold_rows<unsigned long long>)},
  };
  return table;
}

std::string version() {
  return std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) + "." +
         std::to_string(__CUDACC_VER_BUILD__);
}

}  // namespace hs::gpu::nvcc
