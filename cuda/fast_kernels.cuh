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
// Why lane columns: lane L only ever adds to words L + 32 k, all in bank L,
// so no shared atomic meets a bank conflict whatever the input (the kernel
// is flat across inputs), and the unused results compile to RED. One set of
// columns shared by the block's warps lets 1024 threads an SM run. The
// merge: a spread entry on its own 128-byte line holds (arrivals << 40) +
// sum; each block adds (1 << 40) + its sum and gets the entry back, and the
// gridDim.x-th arrival adds the bin's total into the bins and zeroes the
// entry. No block waits on a ticket or a fence. The measurements behind
// every choice, and the designs that did not pay: docs/decisions/lane-shared.md.
//
// Reads: the input once, 16-byte loads. Contends on: shared atomics of the
// block's warps on the same words (never two lanes in one bank); in global
// memory, gridDim.x 64-bit atomics on each spread entry.
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
// and a LOP3 a byte, fewer than word indexing in an issue-bound loop
// (docs/decisions/lane-shared.md, "Byte offsets in the hot loop").
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
