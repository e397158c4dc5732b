// Launch constants of the read floors (floor_kernels.cuh), shared by the
// kernels and their host plans (cuda/variants.cpp). Macros only, so nvcc,
// NVRTC and the host compiler read the same values.
#ifndef HISTOSTUDY_FLOOR_CONSTANTS_CUH
#define HISTOSTUDY_FLOOR_CONSTANTS_CUH

// hs_block_sum's shared warp sums: one 8-byte sum for each of up to 32 warps.
#define HS_FLOOR_WARP_SUMS 32
#define HS_FLOOR_SHARED_BYTES (HS_FLOOR_WARP_SUMS * 8)

#endif  // HISTOSTUDY_FLOOR_CONSTANTS_CUH
