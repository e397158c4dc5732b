// Read floors: kernels that read every byte and count nothing, so a
// histogram's time can be set against the time it takes just to read the
// input. Device code only: nvcc compiles it into the binary
// (cuda/nvcc_kernels.cu) and NVRTC can compile it at run time, so it uses no
// host header and no <cstdint>.
//
//   sum_bytes   hs_sum_bytes: the lesson's "sumBytes" floor (docs/study-spec.md section 1):
//               single-byte loads, grid-stride, per-thread partial sum, no
//               atomics per byte.          build/histostudy run --impl sum_bytes
//   read_floor  hs_read_floor: the same job with 16-byte loads: what any
//               histogram must at least spend reading its input.
//                                          build/histostudy run --impl read_floor
//
// Both add the input's byte sum into *args.sum with ONE atomicAdd per block, so
// the compiler cannot drop the reads and the harness can check the result
// (it equals the byte sum of the CPU reference histogram).
//
// Launch assumptions (both): 1-D grid and block; any blockDim.x in 1..1024
// (not only multiples of 32), any gridDim.x, any n including 0; 256 bytes of
// static shared memory; no dynamic shared memory; one parameter,
// hs_floor_args (floor_constants.cuh).
#ifndef HISTOSTUDY_FLOOR_KERNELS_CUH
#define HISTOSTUDY_FLOOR_KERNELS_CUH

#include "floor_constants.cuh"

// Sum of `v` over the block, valid in thread 0. Every thread of the block
// must call it (it has a barrier). Safe for a partial last warp: each warp
// shuffles only among the lanes that exist.
__device__ __forceinline__ unsigned long long hs_block_sum(unsigned long long v) {
  __shared__ unsigned long long warp_sums[HS_FLOOR_WARP_SUMS];
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  const unsigned warps = (blockDim.x + 31u) >> 5;
  const unsigned rest = blockDim.x - warp * 32u;
  const unsigned live = rest < 32u ? rest : 32u;  // lanes that exist in this warp
  const unsigned mask = live == 32u ? 0xffffffffu : ((1u << live) - 1u);
  for (unsigned offset = 16; offset > 0; offset >>= 1) {
    const unsigned long long other = __shfl_down_sync(mask, v, offset);
    if (lane + offset < live) v += other;
  }
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  unsigned long long total = 0;
  if (threadIdx.x == 0)
    for (unsigned w = 0; w < warps; ++w) total += warp_sums[w];
  return total;
}

// Reads: every byte once, one 1-byte load each, grid-stride over single
// bytes (the lesson's access pattern). Contends on: nothing per byte; one
// 64-bit global atomicAdd per block into *args.sum.
__global__ void hs_sum_bytes(hs_floor_args args) {
  const unsigned char* __restrict__ data = args.data;
  const unsigned long long n = args.n;
  unsigned long long* __restrict__ out = args.sum;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long sum = 0;  // 64-bit: one thread may read all n bytes (grid 1, block 1)
  // __ldg: the read-only load it had as a __restrict__ parameter, which no
  // toolchain before NVRTC 13.4 infers for this __restrict__ local past
  // hs_block_sum's shuffles (tools/codegen_audit.py --against the audit of
  // c7429b3).
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    sum += __ldg(data + i);
  sum = hs_block_sum(sum);
  if (threadIdx.x == 0) atomicAdd(out, sum);
}

// The input as the 16-byte loads see it: `head` (< 16) bytes before the
// first 16-byte-aligned address, `vectors` aligned uint4 from there
// (`body`), and the < 16 tail bytes from `body_end` to n.
struct hs_aligned_input {
  unsigned long long head, vectors, body_end;
  const uint4* body;
};

__device__ __forceinline__ hs_aligned_input hs_align_input(const unsigned char* data, unsigned long long n) {
  const unsigned long long misalign = (unsigned long long)data & 15ull;
  hs_aligned_input in;
  in.head = misalign ? 16ull - misalign : 0ull;
  if (in.head > n) in.head = n;
  in.vectors = (n - in.head) >> 4;
  in.body_end = in.head + (in.vectors << 4);
  in.body = reinterpret_cast<const uint4*>(data + in.head);
  return in;
}

// Calls f(byte) for the head and tail bytes that `in`'s vectors leave out,
// thread `first` of `stride` taking every stride-th one.
template <typename F>
__device__ __forceinline__ void hs_for_edge_bytes(const hs_aligned_input& in, const unsigned char* data,
                                                  unsigned long long n, unsigned long long first,
                                                  unsigned long long stride, F f) {
  for (unsigned long long i = first; i < in.head; i += stride) f(data[i]);
  for (unsigned long long i = in.body_end + first; i < n; i += stride) f(data[i]);
}

// Reads: every byte once; 16-byte (uint4) loads over the 16-byte-aligned
// body, grid-stride over vectors; single-byte loads for the < 16 head bytes
// before the first aligned address and the < 16 tail bytes after the body.
// Bytes are summed four at a time with __vsadu4 (sum of absolute byte
// differences against zero). Contends on: nothing per byte; one 64-bit
// global atomicAdd per block into *args.sum.
__global__ void hs_read_floor(hs_floor_args args) {
  const unsigned char* __restrict__ data = args.data;
  const unsigned long long n = args.n;
  unsigned long long* __restrict__ out = args.sum;
  const unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  const hs_aligned_input in = hs_align_input(data, n);
  unsigned long long sum = 0;
  for (unsigned long long v = tid; v < in.vectors; v += stride) {
    const uint4 q = in.body[v];
    sum += __vsadu4(q.x, 0u) + __vsadu4(q.y, 0u) + __vsadu4(q.z, 0u) + __vsadu4(q.w, 0u);  // <= 4080
  }
  hs_for_edge_bytes(in, data, n, tid, stride, [&sum](unsigned char b) { sum += b; });  // < 32 bytes
  sum = hs_block_sum(sum);
  if (threadIdx.x == 0) atomicAdd(out, sum);
}

// Every kernel the plans (cuda/variants.cpp) can name, for nvcc's table
// (cuda/nvcc_kernels.cu).
#define HS_FLOOR_KERNELS(K) K(hs_sum_bytes) K(hs_read_floor)

#endif  // HISTOSTUDY_FLOOR_KERNELS_CUH
