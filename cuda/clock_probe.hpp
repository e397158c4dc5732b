// The SM-clock probe (cuda/clock_probe.cu), plain C++: one thread spins for
// about 10 us of globaltimer and stores (clock64 cycles, globaltimer ns) at
// slot[0], slot[1]; cycles / ns is the SM clock right after a sample.
#pragma once
#include <cuda_runtime_api.h>

namespace hs::gpu {

void enqueue_clock_probe(unsigned long long* slot, cudaStream_t stream);

}  // namespace hs::gpu
