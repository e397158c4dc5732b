// The SM-clock probe behind every GPU sample (cuda/shared_device.hpp):
// reads nothing, contends on nothing; one thread of one block spins until
// the global timer has advanced kSpinNs, and stores the SM cycles that took.
// cycles / ns is the clock of the SM it ran on, right after the sample (the
// SM clock is one domain on NVIDIA GPUs). nvbench measures its samples'
// clocks the same way (clock64 over globaltimer) to discard throttled ones.
#include "cuda/clock_probe.hpp"

#include "cuda/check.hpp"

namespace hs::gpu {
namespace {

// 10 us: globaltimer ticks every 32 ns to 1 us by GPU, so the clock it
// gives is within 1% where the timer is coarsest.
constexpr unsigned long long kSpinNs = 10000;

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void hs_clock_probe(unsigned long long* slot) {
  const unsigned long long t0 = global_ns();
  const long long c0 = clock64();
  unsigned long long t = t0;
  while (t - t0 < kSpinNs) t = global_ns();
  const long long c1 = clock64();
  slot[0] = (unsigned long long)(c1 - c0);
  slot[1] = t - t0;
}

}  // namespace

void enqueue_clock_probe(unsigned long long* slot, cudaStream_t stream) {
  hs_clock_probe<<<1, 1, 0, stream>>>(slot);
  HS_CUDA(cudaGetLastError());
}

}  // namespace hs::gpu
