// Compiles the device-only kernel sources with nvcc and lists every
// instantiation by name expression, from each family's list (the
// HS_*_KERNELS macro at the end of its .cuh). The same .cuh files are what
// an NVRTC executor compiles at run time.
#include "cuda/nvcc_kernels.hpp"

#include "cuda/fast_kernels.cuh"
#include "cuda/floor_kernels.cuh"
#include "cuda/lesson_kernels.cuh"

namespace hs::gpu::nvcc {
namespace {

template <typename Args>
constexpr std::size_t param_bytes(void (*)(Args)) {
  return sizeof(Args);
}

}  // namespace

// {"hs_partitioned<unsigned int, 256>", &hs_partitioned<unsigned int, 256>, 32}:
// variadic, so template arguments with commas pass whole.
#define HS_NVCC_ENTRY(...) {#__VA_ARGS__, reinterpret_cast<const void*>(&__VA_ARGS__), param_bytes(&__VA_ARGS__)},

const std::vector<Kernel>& kernel_table() {
  static const std::vector<Kernel> table = {
      HS_FLOOR_KERNELS(HS_NVCC_ENTRY) HS_LESSON_KERNELS(HS_NVCC_ENTRY) HS_FAST_KERNELS(HS_NVCC_ENTRY)};
  return table;
}

std::string version() {
  return std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) + "." +
         std::to_string(__CUDACC_VER_BUILD__);
}

}  // namespace hs::gpu::nvcc
