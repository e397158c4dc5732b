// Launch constants and argument structs of our fastest kernels
// (fast_kernels.cuh), shared by the kernels and their host plans
// (cuda/variants.cpp). Macros and plain structs of builtin types only, so
// nvcc, NVRTC and the host compiler read the same values and layouts. The
// measurements behind them: docs/decisions/lane-shared.md, "The constants".
#ifndef HISTOSTUDY_FAST_CONSTANTS_CUH
#define HISTOSTUDY_FAST_CONSTANTS_CUH

// 256 bins x 32 lane columns of 32-bit counters a block: 32 KiB of dynamic
// shared memory.
#define HS_LANE_SHARED_WORDS (256 * 32)
// 16-byte loads a lane per tile, prefetched a tile ahead: 4 beat 2 (one_launch rounds 3-4).
#define HS_LANE_SHARED_UNROLL 4
// A warp's tile: 32 lanes x HS_LANE_SHARED_UNROLL 16-byte vectors.
#define HS_LANE_SHARED_TILE_BYTES (32 * HS_LANE_SHARED_UNROLL * 16)
// At 1024 threads a block the kernel needs more registers than a block may have.
#define HS_LANE_SHARED_MAX_BLOCK 512
// The default block: 256 and 384 threads were slower.
#define HS_LANE_SHARED_BLOCK 512
// The spread entries: (arrivals << HS_ARRIVAL_SHIFT) + sum in 64 bits, so
// an input below 2^40 bytes and a grid below 2^24 blocks.
#define HS_ARRIVAL_SHIFT 40
#define HS_LANE_SHARED_MAX_GRID ((1 << (64 - HS_ARRIVAL_SHIFT)) - 1)
// One 128-byte line a spread entry, so the blocks' atomics spread over the
// L2's slices instead of meeting on the bins' 8 lines (untuned for the arrival merge).
#define HS_SPREAD_LINE_BYTES 128
#define HS_SPREAD_BYTES (256 * HS_SPREAD_LINE_BYTES)

// hs_lane_shared's one parameter: the n input bytes at `data`, the global
// bins it adds into (256 of its Counter type), and its HS_SPREAD_BYTES of
// spread entries. Taken as `const __grid_constant__` (read in place, never
// copied): a by-value copy reordered an earlier build's hot loop.
struct hs_lane_shared_args {
  const unsigned char* data;
  unsigned long long n;
  void* bins;
  void* spread;
};
static_assert(sizeof(hs_lane_shared_args) == 32, "host and device lay hs_lane_shared_args out alike");

#endif  // HISTOSTUDY_FAST_CONSTANTS_CUH
