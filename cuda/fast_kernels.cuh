// Our fastest byte histogram. Device code only (nvcc compiles it into the
// binary, NVRTC at run time).
//
//   lane_shared  hs_lane_shared<Counter>, one launch: 256 x 32 counters a
//                block, one column per lane position in that lane's own
//                bank, shared by all the block's warps; every byte is one
//                shared atomic that never meets a bank conflict; each block
//                adds its 256 sums into spread bins that count their
//                arrivals, and the block that brings a bin's last arrival
//                adds the bin's total into the bins.
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
// keep it exact) is what lets 1024 threads an SM run: private sets need
// 32 KiB a warp.
//
// The merge, one launch (data/explorations/20261201T1357Z_one_launch, rounds 1-4, H200,
// cold samples, the sizes experiment's 1 MiB to 4 GiB on uniform,
// lesson_english and one_byte): a spread bin is a 64-bit entry on its own
// 128-byte line holding (arrivals << 40) + sum. Each block adds
// (1 << 40) + its sum with one atomicAdd a bin and gets the entry before it
// back, so no block waits on a ticket or a fence: the one whose add is the
// gridDim.x-th holds the bin's total, adds it into the bins and zeroes the
// entry for the next launch. In round 3, with 2 loads a lane a tile,
// against the read floor in the same run: +0.8 us at 1 MiB, +2.0 at
// 16 MiB, +1.1 at the lesson's 67,109,475 bytes; with 4 loads: +1.1,
// +0.9 and +0.6..+0.7 (1.37-1.54x cub); 4 loads at 2 blocks an SM were
// -3.9..-0.5 us from the floor at 1 and 4 GiB (round 4): so 4. This kernel
// as committed, in the study's own sizes run (data/runs/20261201T145256Z):
// +1.18..+1.23 us at 1 MiB, +0.51..+0.70 at the lesson's size (1.37-1.55x
// cub), -4.4..-0.7 from 1 GiB.
// Tried and did not pay:
//   - the committed design before it (each block stores its sums as a row;
//     a second kernel, hs_fold_rows, adds 32 rows a block into the bins):
//     +4.2..+6.9 us at every size (round 3);
//   - 256 atomicAdds a block straight into the bins (the lesson's way):
//     about 0.35 ns an atomic, the same 256 addresses on eight 128-byte
//     lines served one after another; at the lesson's size 0.0679 ms
//     against 0.0269 for rows (data/explorations/20261129T1252Z_merge);
//   - the same into spread bins with a ticket, the last block moving them
//     (round 1): +2.4..+3.5 us below 1 GiB, and with the bins added by
//     load and store rather than atomics +1.7..+3.2 (round 2); 8 sets of
//     spread bins, block k adding into set k % 8: 1.3-1.7 us slower than one
//     (round 2); prefetching the merge's lines into L2 while the blocks count
//     (a cold sample flushes them): no change (round 2);
//   - folding inside the counting kernel, the last block of each 32 to take
//     a ticket adding their rows: 0.0279-0.0283 ms at the lesson's size
//     against 0.0277-0.0282 for two kernels
//     (data/explorations/20261129T1309Z_count_and_merge);
//   - the fold as a programmatic dependent launch (Hopper's griddepcontrol):
//     about 2.2 us saved in 10 of 21 cases, nothing in the rest
//     (data/explorations/20261201T1213Z_pdl);
//   - blocks of 256 threads, 6 an SM: 37% of the floor at 1 MiB, 93% at
//     1 GiB (round 1).
//
// Counting, measured before (histostudy run -e perf, H200, 1 GiB):
//   - the GPU's shared atomics, conflict-free: 19.6 updates per clock per
//     SM ("shared_rates" of the perf run): a ceiling of about 5,100 GB/s
//     for one atomic per byte, above the 4,400 GB/s read floor;
//   - lane-private columns for each warp (32 KiB a warp, six warps an SM):
//     flat 68% (20261129T121232Z): too few warps to keep the atomics busy;
//     the same with 16-bit counters in pairs: flat 60-66%
//     (20261129T120853Z); lane-private counters by plain load/add/store:
//     flat 37%; one 256-bin copy per warp with 16-byte loads: 52% uniform,
//     72% text, 23% one_byte (20261129T120442Z).
//
// Launch assumptions (hs_lane_shared): blockDim.x a multiple of 32 up to
// HS_LANE_SHARED_MAX_BLOCK (the column sums take two threads a bin at
// exactly 512, one otherwise); any grid up to HS_LANE_SHARED_MAX_GRID (the
// arrivals' 24 bits); n below 2^40 (the sums' 40 bits); 32 KiB of dynamic
// shared memory (HS_LANE_SHARED_WORDS words); HS_SPREAD_BYTES of scratch,
// zero before the first launch and left zero by every launch; the bytes
// one block counts in one launch stay below 2^32, so no 32-bit counter
// overflows (cuda/variants.cpp checks all of it).
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

// Counts the block's share of the input into the lane columns: every byte
// once, 16-byte loads over the aligned body dealt to warps in tiles of
// 32 x HS_LANE_SHARED_UNROLL vectors, each lane's next tile loaded while it
// counts the current one; single-byte loads for the < 16 head and tail
// bytes. The first tile's loads are issued before the columns are zeroed,
// so the zeroing and its barrier hide under their latency. Ends with a
// barrier.
__device__ __forceinline__ void hs_lane_count(const unsigned char* __restrict__ data, unsigned long long n) {
  constexpr int kUnroll = HS_LANE_SHARED_UNROLL;
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  const unsigned warps = blockDim.x >> 5;
  unsigned* column = hs_lane_columns + lane;
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
  uint4* columns4 = reinterpret_cast<uint4*>(hs_lane_columns);
  for (unsigned i = threadIdx.x; i < HS_LANE_SHARED_WORDS / 4; i += blockDim.x) columns4[i] = none;
  __syncthreads();

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
}

// Calls f(bin, sum) once for every bin with the sum of its 32 columns,
// lane-skewed so a warp's loads meet no bank conflict: kPerBin adjacent
// lanes a bin, 32 / kPerBin columns each (the lanes of one part read
// distinct banks). kPerBin = 2 needs exactly 512 threads (one item each,
// whole warps for the shuffle).
template <unsigned kPerBin, typename F>
__device__ __forceinline__ void hs_column_sums_by(F f) {
  constexpr unsigned kSpan = 32u / kPerBin;
  for (unsigned item = threadIdx.x; item < 256u * kPerBin; item += blockDim.x) {
    const unsigned bin = item / kPerBin;
    const unsigned base = bin * 32u + (item % kPerBin) * kSpan;
    unsigned sum = 0;
#pragma unroll
    for (unsigned j = 0; j < kSpan; ++j) sum += hs_lane_columns[base + ((bin + j) & (kSpan - 1u))];
    if (kPerBin == 2u) sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    if (item % kPerBin == 0u) f(bin, sum);
  }
}

// Reads: the input (hs_lane_count). Contends on: no bank within a shared
// atomic instruction; the block's warps on the same words (atomics); in
// global memory, gridDim.x 64-bit atomicAdds on each of 256 spread entries,
// one 128-byte line apiece, and one atomicAdd a bin into the bins by the
// block that arrives last there. Writes: the bins (added into, like every
// kernel); the spread entries, left zero.
template <typename Counter>
__global__ void __launch_bounds__(HS_LANE_SHARED_MAX_BLOCK)
    hs_lane_shared(const __grid_constant__ hs_lane_shared_args args) {
  Counter* __restrict__ out = static_cast<Counter*>(args.bins);
  char* spread = static_cast<char*>(args.spread);
  hs_lane_count(args.data, args.n);
  auto arrive = [spread, out](unsigned bin, unsigned sum) {
    constexpr unsigned long long kArrival = 1ull << HS_ARRIVAL_SHIFT;
    unsigned long long* entry = reinterpret_cast<unsigned long long*>(spread + bin * HS_SPREAD_LINE_BYTES);
    const unsigned long long mine = kArrival + sum;
    const unsigned long long before = atomicAdd(entry, mine);
    if ((before >> HS_ARRIVAL_SHIFT) != gridDim.x - 1u) return;
    atomicAdd(&out[bin], Counter((before + mine) & (kArrival - 1u)));
    *entry = 0ull;
  };
  if (blockDim.x == 512u)
    hs_column_sums_by<2u>(arrive);
  else
    hs_column_sums_by<1u>(arrive);
}

// Every instantiation the plans (cuda/variants.cpp) can name, for nvcc's
// table (cuda/nvcc_kernels.cu).
#define HS_FAST_KERNELS(K) K(hs_lane_shared<unsigned int>) K(hs_lane_shared<unsigned long long>)

#endif  // HISTOSTUDY_FAST_KERNELS_CUH
