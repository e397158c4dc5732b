// Our fastest byte histogram. Device code only (nvcc compiles it into the
// binary, NVRTC at run time).
//
//   lane_shared  hs_lane_shared<Counter>: 256 x 32 counters a block, one
//                column per lane position in that lane's own bank, shared by
//                all the block's warps; every byte is one shared atomic that
//                never meets a bank conflict, at full occupancy.
//                                        build/histostudy run --impl lane_shared -s 1GiB
//
// Why: a shared histogram whose lanes hit random bins meets bank conflicts
// (about 3.5 distinct words per bank among 32 random bins) and one whose
// lanes hit one bin serializes, so on the H200 uniform bytes stop near half
// the read floor (per_warp with 16-byte loads, cub). Here lane L only ever
// adds to words L + 32 k, all in bank L, so every atomic instruction is
// conflict-free whatever the input: the kernel is flat across inputs. The
// atomics' results are unused, so they compile to RED: nothing waits on
// them. Sharing one set of columns among the warps of a block (the atomics
// keep it exact) is what lets 2048 threads an SM run: private sets need
// 32 KiB a warp.
//
// Measured (histostudy run -e perf, H200, 1 GiB, percent of the read floor
// in the same run; the run files are in data/runs/):
//   - the GPU's shared atomics, conflict-free: 19.6 updates per clock per
//     SM ("shared_rates" of the perf run): a ceiling of about 5,100 GB/s
//     for one atomic per byte, above the 4,400 GB/s read floor;
//   - the same columns with tiles of 4 loads a lane: 93-94% on every input,
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
// Open: a fixed cost of about 50 us a launch, which grows with the blocks a
// launch runs (16 MiB of uniform bytes: 0.019 ms with grid 132, 0.054 with
// 528, 0.204 with 2112; unsaved comparison, 2026-11-29 12:27Z), so at the
// lesson's 64 MiB cub is faster (0.040 ms against 0.068). Not yet explained.
//
// Launch assumptions: blockDim.x a multiple of 32 (full-warp sums at the
// end) and at most HS_LANE_SHARED_MAX_BLOCK; any grid; any n including 0 and
// > 4 GiB; 32 KiB of dynamic shared memory (HS_LANE_SHARED_WORDS words); the
// bytes one block counts in one launch stay below 2^32, so no 32-bit
// counter overflows (cuda/variants.cpp checks it).
#ifndef HISTOSTUDY_FAST_KERNELS_CUH
#define HISTOSTUDY_FAST_KERNELS_CUH

#define HS_LANE_SHARED_WORDS (256 * 32)
// 16-byte loads a lane per tile, prefetched a tile ahead: 2 beat 4 and 8
// (more registers, fewer resident threads), measured above.
#define HS_LANE_SHARED_UNROLL 2
// At 1024 threads a block the kernel needs more registers than a block may
// have (cudaErrorLaunchOutOfResources on the H200).
#define HS_LANE_SHARED_MAX_BLOCK 512

extern __shared__ unsigned int hs_lane_columns[];

__device__ __forceinline__ unsigned hs_warp_sum(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, v);
#else
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
#endif
}

// Four bytes into the lane's column: word b * 32 + lane counts byte b.
__device__ __forceinline__ void hs_count_word(unsigned* column, unsigned w) {
  atomicAdd(column + (w & 255u) * 32u, 1u);
  atomicAdd(column + ((w >> 8) & 255u) * 32u, 1u);
  atomicAdd(column + ((w >> 16) & 255u) * 32u, 1u);
  atomicAdd(column + (w >> 24) * 32u, 1u);
}

// Reads: every byte once; 16-byte loads over the aligned body, dealt to
// warps in tiles of 32 x HS_LANE_SHARED_UNROLL vectors, each lane's next
// tile loaded while it counts the current one; single-byte loads for the
// < 16 head and tail bytes. Contends on: no bank within an instruction; the
// block's warps on the same words (atomics); the global bins with exactly
// 256 atomicAdds per block.
template <typename Counter>
__global__ void __launch_bounds__(HS_LANE_SHARED_MAX_BLOCK)
    hs_lane_shared(const unsigned char* __restrict__ data, unsigned long long n, Counter* __restrict__ out,
                   unsigned slice) {
  (void)slice;
  constexpr int kUnroll = HS_LANE_SHARED_UNROLL;
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  const unsigned warps = blockDim.x >> 5;
  unsigned* column = hs_lane_columns + lane;
  for (unsigned i = threadIdx.x; i < HS_LANE_SHARED_WORDS; i += blockDim.x) hs_lane_columns[i] = 0u;
  __syncthreads();

  const unsigned long long misalign = (unsigned long long)data & 15ull;
  unsigned long long head = misalign ? 16ull - misalign : 0ull;
  if (head > n) head = n;
  const unsigned long long vectors = (n - head) >> 4;
  const unsigned long long body_end = head + (vectors << 4);
  const uint4* __restrict__ body = reinterpret_cast<const uint4*>(data + head);
  const unsigned long long tile_vectors = 32ull * kUnroll;
  const unsigned long long tiles = (vectors + tile_vectors - 1) / tile_vectors;
  const unsigned long long tile_stride = (unsigned long long)gridDim.x * warps;

  uint4 cur[kUnroll], next[kUnroll];
  const uint4 none = make_uint4(0u, 0u, 0u, 0u);
  unsigned long long t = (unsigned long long)blockIdx.x * warps + warp;
  for (int u = 0; u < kUnroll; ++u) {
    const unsigned long long v = t * tile_vectors + u * 32u + lane;
    cur[u] = t < tiles && v < vectors ? body[v] : none;
  }
  for (; t < tiles; t += tile_stride) {
    const unsigned long long after = t + tile_stride;
    for (int u = 0; u < kUnroll; ++u) {
      const unsigned long long v = after * tile_vectors + u * 32u + lane;
      next[u] = after < tiles && v < vectors ? body[v] : none;
    }
    const unsigned long long first = t * tile_vectors + lane;
    for (int u = 0; u < kUnroll; ++u) {
      if (first + u * 32u >= vectors) break;
      hs_count_word(column, cur[u].x);
      hs_count_word(column, cur[u].y);
      hs_count_word(column, cur[u].z);
      hs_count_word(column, cur[u].w);
    }
    for (int u = 0; u < kUnroll; ++u) cur[u] = next[u];
  }
  const unsigned long long thread = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned long long threads = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = thread; i < head; i += threads) atomicAdd(column + data[i] * 32u, 1u);
  for (unsigned long long i = body_end + thread; i < n; i += threads) atomicAdd(column + data[i] * 32u, 1u);
  __syncthreads();
  // Warp w sums bins w, w + warps, ...: a bin's 32 columns, then one global
  // atomic. The blocks of a wave finish together, so each starts at its own
  // bin to spread their atomics over the 256 addresses. (It was meant to
  // remove a fixed cost of about 50 us a launch, but measured no different:
  // 0.0678 ms against 0.0686 at 64 MiB; see "Open" above.)
  for (unsigned i = warp; i < 256u; i += warps) {
    const unsigned b = (i + blockIdx.x) & 255u;
    const unsigned sum = hs_warp_sum(hs_lane_columns[b * 32u + lane]);
    if (lane == 0) atomicAdd(&out[b], Counter(sum));
  }
}

#endif  // HISTOSTUDY_FAST_KERNELS_CUH
