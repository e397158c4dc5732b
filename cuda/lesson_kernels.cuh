// The lesson's histogram kernels (docs/study-spec.md section 1) and the per-warp step the
// study adds. Device code only: nvcc compiles it into the binary
// (cuda/nvcc_kernels.cu) and NVRTC can compile it at run time, so it uses no
// host header and no <cstdint>.
//
//   global       hs_global<Counter>: one global atomicAdd per byte
//                ("histogramGlobal").      build/histostudy run --impl global
//   per_block    hs_per_block<Counter>: the lesson's privatized kernel
//                ("histogramPrivate"): 256 shared counters per block, merged
//                into the global bins with 256 atomicAdds per block.
//                                          build/histostudy run --impl per_block
//   per_warp     hs_per_warp<Counter>: one 256-counter shared copy per warp,
//                summed per block, then merged like per_block.
//                                          build/histostudy run --impl per_warp
//   partitioned  hs_partitioned<Counter, Width>: one pass of the lesson's
//                exercise ("histogramPartitioned"): privatizes the Width =
//                256/P bins [first_bin, first_bin + Width); a run is P launches.
//                                          build/histostudy run --impl partitioned --passes 4
//
// Counter is the global bin type, unsigned int or unsigned long long: the
// launch policy picks 64 bits when 32 could overflow between zeroings.
// Every kernel ADDS into `out` (never stores), so runs accumulate and the
// timed loop never zeroes the bins.
//
// Launch assumptions (all): 1-D grid and block; any blockDim.x in 1..1024
// (not only multiples of 32), any gridDim.x, any n including 0; indices are
// 64-bit, so n may exceed 4 GiB. Shared counters are 32-bit and zeroed per
// launch, so the bytes one block reads in one launch (at most
// ceil(n / (gridDim.x * blockDim.x)) * blockDim.x) must be < 2^32: the
// variants' resolve (cuda/variants.cpp) refuses launches that could exceed it.
// One parameter, hs_lesson_args (lesson_constants.cuh).
#ifndef HISTOSTUDY_LESSON_KERNELS_CUH
#define HISTOSTUDY_LESSON_KERNELS_CUH

#include "lesson_constants.cuh"

// Reads: every byte once, one 1-byte load each, grid-stride over single
// bytes. Contends on: the global bins, one atomicAdd per byte (n global
// atomics), all threads of the grid on the same 256 addresses.
// Shared memory: none.
template <typename Counter>
__global__ void hs_global(hs_lesson_args args) {
  const unsigned char* __restrict__ data = args.data;
  const unsigned long long n = args.n;
  Counter* __restrict__ out = static_cast<Counter*>(args.bins);
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&out[data[i]], Counter(1));
}

// Reads: every byte once, one 1-byte load each, grid-stride over single
// bytes. Contends on: the block's 256 shared counters (one shared atomicAdd
// per byte, blockDim.x threads sharing them), then the global bins with
// exactly 256 atomicAdds per block (gridDim.x * 256 in all; zero bins are
// merged too, so the count is exact). Shared memory: 1 KiB static.
template <typename Counter>
__global__ void hs_per_block(hs_lesson_args args) {
  const unsigned char* __restrict__ data = args.data;
  const unsigned long long n = args.n;
  Counter* __restrict__ out = static_cast<Counter*>(args.bins);
  __shared__ unsigned int bins[HS_LESSON_BINS];
  for (unsigned b = threadIdx.x; b < 256u; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&bins[data[i]], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < 256u; b += blockDim.x) atomicAdd(&out[b], Counter(bins[b]));
}

// The per-warp copies live in dynamic shared memory, one 256-counter copy
// per warp: the launch must pass ceil(blockDim.x / 32) * 1024 bytes.
extern __shared__ unsigned int hs_warp_copies[];

// Reads: every byte once, one 1-byte load each, grid-stride over single
// bytes. Contends on: the warp's own 256 shared counters (at most 32 threads
// share a counter, instead of blockDim.x), then the global bins with exactly
// 256 atomicAdds per block after the block sums its copies bin by bin.
// Shared memory: ceil(blockDim.x / 32) KiB dynamic (a partial last warp gets
// its own copy).
template <typename Counter>
__global__ void hs_per_warp(hs_lesson_args args) {
  const unsigned char* __restrict__ data = args.data;
  const unsigned long long n = args.n;
  Counter* __restrict__ out = static_cast<Counter*>(args.bins);
  const unsigned copies = (blockDim.x + 31u) >> 5;
  const unsigned counters = copies * 256u;
  for (unsigned c = threadIdx.x; c < counters; c += blockDim.x) hs_warp_copies[c] = 0;
  __syncthreads();
  unsigned int* const mine = hs_warp_copies + (threadIdx.x >> 5) * 256u;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&mine[data[i]], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < 256u; b += blockDim.x) {
    unsigned int sum = 0;  // < 2^32: the block's bytes per launch are (see the header)
    for (unsigned c = 0; c < copies; ++c) sum += hs_warp_copies[c * 256u + b];
    atomicAdd(&out[b], Counter(sum));
  }
}

// Reads: every byte once per pass (a run of P passes reads P * n bytes),
// one 1-byte load each, grid-stride over single bytes; bytes outside the
// slice [first_bin, first_bin + Width) are read and skipped. Contends on:
// the block's Width shared counters (one shared atomicAdd per byte in the
// slice), then the global bins of the slice with exactly Width atomicAdds
// per block, so the P passes together make gridDim.x * 256. Shared memory:
// Width * 4 bytes static. `first_bin` must be a multiple of Width below 256.
template <typename Counter, unsigned Width>
__global__ void hs_partitioned(hs_lesson_args args) {
  const unsigned char* __restrict__ data = args.data;
  const unsigned long long n = args.n;
  Counter* __restrict__ out = static_cast<Counter*>(args.bins);
  const unsigned first_bin = args.first_bin;
  static_assert(Width >= 1 && Width <= 256 && 256 % Width == 0, "Width must divide 256");
  __shared__ unsigned int bins[Width];
  for (unsigned b = threadIdx.x; b < Width; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const unsigned bin = unsigned(data[i]) - first_bin;  // wraps to a huge value below the slice
    if (bin < Width) atomicAdd(&bins[bin], 1u);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < Width; b += blockDim.x) atomicAdd(&out[first_bin + b], Counter(bins[b]));
}

// Every instantiation the plans (cuda/variants.cpp) can name, for the table
// of kernels nvcc compiles into the binary (cuda/nvcc_kernels.cu); a test
// checks it against the names the plans produce.
#define HS_LESSON_KERNELS(K)                                                                                 \
  K(hs_global<unsigned int>) K(hs_global<unsigned long long>) K(hs_per_block<unsigned int>)                  \
  K(hs_per_block<unsigned long long>) K(hs_per_warp<unsigned int>) K(hs_per_warp<unsigned long long>)        \
  K(hs_partitioned<unsigned int, 256>) K(hs_partitioned<unsigned int, 128>)                                  \
  K(hs_partitioned<unsigned int, 64>) K(hs_partitioned<unsigned int, 32>)                                    \
  K(hs_partitioned<unsigned long long, 256>) K(hs_partitioned<unsigned long long, 128>)                      \
  K(hs_partitioned<unsigned long long, 64>) K(hs_partitioned<unsigned long long, 32>)

#endif  // HISTOSTUDY_LESSON_KERNELS_CUH
