// Our fastest byte histogram. Device code only (nvcc compiles it into the
// binary, NVRTC at run time).
//
//   lane_shared  hs_lane_shared, then hs_fold_rows<Counter>: 256 x 32
//                counters a block, one column per lane position in that
//                lane's own bank, shared by all the block's warps; every byte
//                is one shared atomic that never meets a bank conflict, at
//                full occupancy; blocks store their sums as rows, and a
//                second kernel adds the rows into the bins.
//                                        build/histostudy run --impl lane_shared -s 1GiB
//
// Why: a shared histogram whose lanes hit random bins meets bank conflicts
// (about 3.5 distinct words per bank among 32 random bins) and one whose
// lanes hit one bin serializes, so on the H200 uniform bytes stop near half
// the read floor (a copy per warp with 16-byte loads, cub). Here lane L only ever
// adds to words L + 32 k, all in bank L, so every atomic instruction is
// conflict-free whatever the input: the kernel is flat across inputs. The
// atomics' results are unused, so they compile to RED: nothing waits on
// them. Sharing one set of columns among the warps of a block (the atomics
// keep it exact) is what lets 2048 threads an SM run: private sets need
// 32 KiB a warp.
//
// Measured (histostudy run -e perf, H200, 1 GiB, percent of the read floor
// in the same run; the run files are in data/runs/):
//   - this kernel, as committed: 97.7-98.2% on all 13 inputs, 1.99x cub on
//     uniform bytes (20261129T132828Z); at the lesson's 67,109,475 bytes
//     0.0265-0.0272 ms, cub 0.0279-0.0408 (20261129T132756Z);
//   - the GPU's shared atomics, conflict-free: 19.6 updates per clock per
//     SM ("shared_rates" of the perf run): a ceiling of about 5,100 GB/s
//     for one atomic per byte, above the 4,400 GB/s read floor;
//   - earlier builds, tiles of 4 loads a lane: 93-94% on every input,
//     1.9x cub on uniform bytes; 8 loads: 86-87% (20261129T121736Z);
//   - 2 loads a lane against 4, in one unsaved comparison on uniform,
//     lesson_english and one_byte (2026-11-29 12:18Z): 94% against 93% at
//     512 threads a block (four blocks an SM), 92% at 384, 88% at 256.
// Tried and did not pay (same experiment):
//   - lane-private columns for each warp (32 KiB a warp, six warps an SM):
//     flat 68% (20261129T121232Z): too few warps to keep the atomics busy;
//   - the same with 16-bit counters in pairs (17 KiB a warp, flushed before
//     they overflow): flat 60-66% (20261129T120853Z);
//   - lane-private counters by plain load/add/store: flat 37%; one 256-bin
//     copy per warp with 16-byte loads: 52% uniform, 72% text, 23%
//     one_byte; choosing between the two per tile: 22-50% (20261129T120442Z).
//
// The merge: each block stores its 256 sums as one row (plain stores) and a
// second kernel, hs_fold_rows, adds 32 rows a block into the bins. Merging
// straight into the bins with 256 atomicAdds a block (the lesson's way)
// cost a fixed time that grew with the grid, about 0.35 ns an atomic: the
// same 256 addresses on eight 128-byte lines, served one after another.
// Both in one call (data/explorations/20261129T1252Z_merge, uniform bytes):
//   - 16 MiB, grid 132 / 528 / 2112: atomics 0.0198 / 0.0553 / 0.204 ms,
//     rows 0.0120 / 0.0145 / 0.0276 ms (read floor 0.0064);
//   - the lesson's 67,109,475 bytes: 0.0679 against 0.0269 ms (cub 0.0403);
//   - 1 GiB, 13 inputs: 92.9-94.2% against 96.4-97.9% of the read floor;
//     two waves of blocks (grid 1056) instead of one: 95.4-96.2%.
// Tried and did not pay (data/explorations/20261129T1309Z_count_and_merge):
// folding inside this kernel, the last block of each 32 to take a ticket
// adding their rows (no second launch): 0.0279-0.0283 ms at the lesson's
// size against 0.0277-0.0282 for two kernels. Starting each block's atomics
// at its own bin (0.0678 ms against 0.0686 at 64 MiB, unsaved, 12:27Z).
// Launching the fold as a programmatic dependent of the count (Hopper's
// griddepcontrol, so its launch overlaps the count's tail) saved about
// 2.2 us in 10 of 21 size x input cases from 1 MiB to 4 GiB and nothing in
// the rest (data/explorations/20261201T1213Z_pdl): not adopted.
// At the lesson's size that left about 8 us beyond the read floor (0.028
// against 0.020 ms), level with cub on skewed inputs; fewer blocks took it
// to 0.027 (the default grid, cuda/variants.cpp).
//
// Launch assumptions (hs_lane_shared): blockDim.x a multiple of 32
// (full-warp sums at the end) and at most HS_LANE_SHARED_MAX_BLOCK; any
// grid, with 256 x gridDim.x words of rows; any n including 0 and > 4 GiB;
// 32 KiB of dynamic shared memory (HS_LANE_SHARED_WORDS words); the bytes
// one block counts in one launch stay below 2^32, so no 32-bit counter or
// row entry overflows (cuda/variants.cpp checks it).
#ifndef HISTOSTUDY_FAST_KERNELS_CUH
#define HISTOSTUDY_FAST_KERNELS_CUH

#include "fast_constants.cuh"
#include "floor_kernels.cuh"  // hs_align_input, hs_for_edge_bytes

extern __shared__ __align__(16) unsigned int hs_lane_columns[];

__device__ __forceinline__ unsigned hs_warp_sum(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, v);
#else
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
#endif
}

// Four bytes into the lane's column: word b * 32 + lane counts byte b, at
// byte offset b * 128 + lane * 4 = (w >> s) & 0x7f80 | lane * 4, a shift
// and a LOP3 a byte; word indexing took a shift, a LOP3, a multiply and an
// add (codegen audit, nvcc 13.0 sm_90: hot loop 202 -> 181 instructions).
// The loop is issue-bound: at 1 GiB a build whose loop had 220 ran at
// 94-95% of the read floor, the same with offsets (189) at 97-98%
// (data/explorations/20261129T1309Z_count_and_merge, w0 against w).
__device__ __forceinline__ void hs_count_word(unsigned lane4, unsigned w) {
  char* base = reinterpret_cast<char*>(hs_lane_columns);
  atomicAdd(reinterpret_cast<unsigned*>(base + (((w << 7) & 0x7f80u) | lane4)), 1u);
  atomicAdd(reinterpret_cast<unsigned*>(base + (((w >> 1) & 0x7f80u) | lane4)), 1u);
  atomicAdd(reinterpret_cast<unsigned*>(base + (((w >> 9) & 0x7f80u) | lane4)), 1u);
  atomicAdd(reinterpret_cast<unsigned*>(base + (((w >> 17) & 0x7f80u) | lane4)), 1u);
}

// Reads: every byte once; 16-byte loads over the aligned body, dealt to
// warps in tiles of 32 x HS_LANE_SHARED_UNROLL vectors, each lane's next
// tile loaded while it counts the current one; single-byte loads for the
// < 16 head and tail bytes. Contends on: no bank within an instruction; the
// block's warps on the same words (atomics); nothing global. Writes: the
// block's 256 sums as row blockIdx.x of `rows` (32-bit, plain stores);
// hs_fold_rows adds the rows into the bins.
__global__ void __launch_bounds__(HS_LANE_SHARED_MAX_BLOCK)
    hs_lane_shared(const __grid_constant__ hs_lane_shared_args args) {
  const unsigned char* __restrict__ data = args.data;
  const unsigned long long n = args.n;
  unsigned* __restrict__ rows = args.rows;
  constexpr int kUnroll = HS_LANE_SHARED_UNROLL;
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  const unsigned warps = blockDim.x >> 5;
  unsigned* column = hs_lane_columns + lane;
  for (unsigned i = threadIdx.x; i < HS_LANE_SHARED_WORDS; i += blockDim.x) hs_lane_columns[i] = 0u;
  __syncthreads();

  const hs_aligned_input in = hs_align_input(data, n);
  const unsigned long long tile_vectors = 32ull * kUnroll;
  const unsigned long long tiles = (in.vectors + tile_vectors - 1) / tile_vectors;
  const unsigned long long tile_stride = (unsigned long long)gridDim.x * warps;

  uint4 cur[kUnroll], next[kUnroll];
  const uint4 none = make_uint4(0u, 0u, 0u, 0u);
  unsigned long long t = (unsigned long long)blockIdx.x * warps + warp;
  for (int u = 0; u < kUnroll; ++u) {
    const unsigned long long v = t * tile_vectors + u * 32u + lane;
    cur[u] = t < tiles && v < in.vectors ? in.body[v] : none;
  }
  for (; t < tiles; t += tile_stride) {
    const unsigned long long after = t + tile_stride;
    for (int u = 0; u < kUnroll; ++u) {
      const unsigned long long v = after * tile_vectors + u * 32u + lane;
      next[u] = after < tiles && v < in.vectors ? in.body[v] : none;
    }
    const unsigned long long first = t * tile_vectors + lane;
    for (int u = 0; u < kUnroll; ++u) {
      if (first + u * 32u >= in.vectors) break;
      hs_count_word(lane * 4u, cur[u].x);
      hs_count_word(lane * 4u, cur[u].y);
      hs_count_word(lane * 4u, cur[u].z);
      hs_count_word(lane * 4u, cur[u].w);
    }
    for (int u = 0; u < kUnroll; ++u) cur[u] = next[u];
  }
  const unsigned long long thread = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned long long threads = (unsigned long long)gridDim.x * blockDim.x;
  hs_for_edge_bytes(in, data, n, thread, threads, [column](unsigned char b) { atomicAdd(column + b * 32u, 1u); });
  __syncthreads();
  // Warp w sums bins w, w + warps, ...: a bin's 32 columns into the row.
  unsigned* row = rows + (unsigned long long)blockIdx.x * 256u;
  for (unsigned b = warp; b < 256u; b += warps) {
    const unsigned sum = hs_warp_sum(hs_lane_columns[b * 32u + lane]);
    if (lane == 0) row[b] = sum;
  }
}

// Reads: `count` rows of 256 32-bit counts (what hs_lane_shared just
// stored, so from L2), block b taking rows b * per, ..., b * per + per - 1
// for per = ceil(count / gridDim.x); thread t adds bin t % 256 of every
// HS_FOLD_GROUPS-th of them, so a block has HS_FOLD_GROUPS loads in flight
// per bin, and the groups meet in shared memory. Contends on: the global
// bins, one atomicAdd a bin a block: gridDim.x per bin. Launch assumptions:
// blockDim.x = HS_FOLD_BLOCK; any grid; a bin's sum fits Counter (64-bit
// when n x runs could overflow 32 bits).
template <typename Counter>
__global__ void __launch_bounds__(HS_FOLD_BLOCK) hs_fold_rows(const __grid_constant__ hs_fold_args args) {
  const unsigned* __restrict__ rows = args.rows;
  const unsigned count = args.row_count;
  Counter* __restrict__ out = static_cast<Counter*>(args.bins);
  __shared__ Counter group_sums[HS_FOLD_GROUPS][256];
  const unsigned bin = threadIdx.x & 255u;
  const unsigned group = threadIdx.x >> 8;
  const unsigned per = (count + gridDim.x - 1) / gridDim.x;
  const unsigned first = blockIdx.x * per;
  const unsigned last = first >= count ? first : (count - first < per ? count : first + per);
  Counter sum = 0;
#pragma unroll 8
  for (unsigned r = first + group; r < last; r += HS_FOLD_GROUPS) sum += rows[(unsigned long long)r * 256u + bin];
  group_sums[group][bin] = sum;
  __syncthreads();
  if (group != 0) return;
  for (unsigned g = 1; g < HS_FOLD_GROUPS; ++g) sum += group_sums[g][bin];
  atomicAdd(&out[bin], sum);
}

// Every instantiation the plans (cuda/variants.cpp) can name, for nvcc's
// table (cuda/nvcc_kernels.cu).
#define HS_FAST_KERNELS(K) K(hs_lane_shared) K(hs_fold_rows<unsigned int>) K(hs_fold_rows<unsigned long long>)

#endif  // HISTOSTUDY_FAST_KERNELS_CUH
