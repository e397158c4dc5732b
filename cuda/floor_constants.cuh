// Launch constants and the argument struct of the read floors
// (floor_kernels.cuh), shared by the kernels and their host plans
// (cuda/variants.cpp). Macros and a plain struct of builtin types only, so
// nvcc, NVRTC and the host compiler read the same values and layout.
#ifndef HISTOSTUDY_FLOOR_CONSTANTS_CUH
#define HISTOSTUDY_FLOOR_CONSTANTS_CUH

// hs_block_sum's shared warp sums: one 8-byte sum for each of up to 32 warps.
#define HS_FLOOR_WARP_SUMS 32
#define HS_FLOOR_SHARED_BYTES (HS_FLOOR_WARP_SUMS * 8)

// hs_sum_bytes' and hs_read_floor's one parameter: the n input bytes at
// `data`, and the 64-bit byte sum they add into.
struct hs_floor_args {
  const unsigned char* data;
  unsigned long long n;
  unsigned long long* sum;
};
static_assert(sizeof(hs_floor_args) == 24, "host and device lay hs_floor_args out alike");

#endif  // HISTOSTUDY_FLOOR_CONSTANTS_CUH
