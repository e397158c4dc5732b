// Launch constants and argument structs of our fastest kernels
// (fast_kernels.cuh), shared by the kernels and their host plans
// (cuda/variants.cpp). Macros and plain structs of builtin types only, so
// nvcc, NVRTC and the host compiler read the same values and layouts. The
// measurements behind them are in fast_kernels.cuh's header.
#ifndef HISTOSTUDY_FAST_CONSTANTS_CUH
#define HISTOSTUDY_FAST_CONSTANTS_CUH

// 256 bins x 32 lane columns of 32-bit counters a block: 32 KiB of dynamic
// shared memory.
#define HS_LANE_SHARED_WORDS (256 * 32)
// 16-byte loads a lane per tile, prefetched a tile ahead: 2 beat 4 and 8
// (more registers, fewer resident threads).
#define HS_LANE_SHARED_UNROLL 2
// A warp's tile: 32 lanes x HS_LANE_SHARED_UNROLL 16-byte vectors.
#define HS_LANE_SHARED_TILE_BYTES (32 * HS_LANE_SHARED_UNROLL * 16)
// At 1024 threads a block the kernel needs more registers than a block may
// have (cudaErrorLaunchOutOfResources on the H200).
#define HS_LANE_SHARED_MAX_BLOCK 512
// The default block: 256 and 384 threads were slower (2026-11-29 12:18Z).
#define HS_LANE_SHARED_BLOCK 512
// Its blocks' rows (1 KiB each) live in the scratch: up to 256 MiB.
#define HS_LANE_SHARED_MAX_GRID (1 << 18)
// hs_fold_rows: HS_FOLD_GROUPS threads a bin, each adding every
// HS_FOLD_GROUPS-th row, so a block of 32 rows has 8 loads a thread in
// flight, not 32 in turn (not tuned).
#define HS_FOLD_GROUPS 4
#define HS_FOLD_BLOCK (256 * HS_FOLD_GROUPS)
// Rows one fold block adds (not tuned; the 1 GiB default grid of 396 folds
// in 13 blocks).
#define HS_FOLD_ROWS_PER_BLOCK 32

// hs_lane_shared's one parameter: the n input bytes at `data`, and the rows
// (256 32-bit sums a block, gridDim.x rows) its blocks store. Both kernels
// take theirs as `const __grid_constant__` (read in place, never copied):
// their hot loops then compile to the SASS they had as separate parameters
// in every audited toolchain, where a by-value copy reordered
// hs_lane_shared's (tools/codegen_audit.py --against the audit of c7429b3).
struct hs_lane_shared_args {
  const unsigned char* data;
  unsigned long long n;
  unsigned* rows;
};
static_assert(sizeof(hs_lane_shared_args) == 24, "host and device lay hs_lane_shared_args out alike");

// hs_fold_rows' one parameter: the `row_count` rows hs_lane_shared stored,
// and the global bins it adds them into (256 of its Counter type).
struct hs_fold_args {
  const unsigned* rows;
  unsigned row_count;
  void* bins;
};
static_assert(sizeof(hs_fold_args) == 24, "host and device lay hs_fold_args out alike");

#endif  // HISTOSTUDY_FAST_CONSTANTS_CUH
