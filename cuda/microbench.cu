// Shared-memory update rates per SM per clock (cuda/microbench.hpp).
#include "cuda/check.hpp"
#include "cuda/microbench.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <vector>

namespace hs::gpu {
namespace {

constexpr unsigned kThreads = 1024;      // two such blocks fill an H200 SM (2048 threads)
constexpr unsigned kIterations = 4096;   // 4096 x 4 updates a thread: ~10^5 clocks, timer noise < 1%
constexpr unsigned kColumns = 2048;      // 8 KiB of counters: 64 words per lane

enum Pattern { atomic_distinct, atomic_same, rmw_distinct };

__device__ __forceinline__ unsigned hs_sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// Reads and contends on: shared memory only. Each thread makes 4 updates an
// iteration to words lane * spread + 32 * row: spread 1 puts lane L's words
// in bank L (conflict-free), spread 0 sends the block to word 0 through an
// address the compiler cannot see is uniform (so it cannot aggregate the
// warp's atomics). Per block: start and stop clock64 and the SM it ran on.
// Launch: any grid, blockDim.x == kThreads.
template <int P>
__global__ void hs_shared_rate(unsigned spread, unsigned long long* clocks, unsigned* sink) {
  __shared__ unsigned counters[kColumns];
  for (unsigned i = threadIdx.x; i < kColumns; i += blockDim.x) counters[i] = 0;
  __syncthreads();
  const unsigned lane = (threadIdx.x & 31u) * spread;
  unsigned row = ((threadIdx.x >> 5) & 15u) * spread;
  const long long start = clock64();
  for (unsigned i = 0; i < kIterations; ++i) {
    unsigned* w0 = &counters[lane + 32u * row];
    unsigned* w1 = &counters[lane + 32u * ((row + 16u * spread) & 63u)];
    unsigned* w2 = &counters[lane + 32u * ((row + 32u * spread) & 63u)];
    unsigned* w3 = &counters[lane + 32u * ((row + 48u * spread) & 63u)];
    if (P == rmw_distinct) {
      const unsigned a = *w0, b = *w1, c = *w2, d = *w3;
      *w0 = a + 1u;
      *w1 = b + 1u;
      *w2 = c + 1u;
      *w3 = d + 1u;
    } else {
      atomicAdd(w0, 1u);
      atomicAdd(w1, 1u);
      atomicAdd(w2, 1u);
      atomicAdd(w3, 1u);
    }
    row = (row + spread) & 15u;
  }
  __syncthreads();
  const long long stop = clock64();
  if (threadIdx.x == 0) {
    clocks[3 * blockIdx.x] = (unsigned long long)start;
    clocks[3 * blockIdx.x + 1] = (unsigned long long)stop;
    clocks[3 * blockIdx.x + 2] = hs_sm_id();
    sink[blockIdx.x] = counters[lane];
  }
}

// Updates per clock of each SM, from the first start to the last stop of the
// blocks it ran (clock64 is the SM's own counter), whatever the occupancy;
// the median over SMs.
template <int P>
double updates_per_clock(unsigned spread, unsigned blocks, unsigned long long* clocks, unsigned* sink) {
  for (int launch = 0; launch < 2; ++launch) {  // the first is a warm-up
    hs_shared_rate<P><<<blocks, kThreads>>>(spread, clocks, sink);
    HS_CUDA(cudaGetLastError());
  }
  HS_CUDA(cudaDeviceSynchronize());
  std::vector<unsigned long long> host(3 * std::size_t(blocks));
  HS_CUDA(cudaMemcpy(host.data(), clocks, host.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  std::map<unsigned long long, std::array<unsigned long long, 3>> sms;  // sm -> first start, last stop, blocks
  for (unsigned b = 0; b < blocks; ++b) {
    auto [it, fresh] = sms.try_emplace(host[3 * b + 2], std::array<unsigned long long, 3>{host[3 * b], host[3 * b + 1], 0});
    auto& sm = it->second;
    sm[0] = std::min(sm[0], host[3 * b]);
    sm[1] = std::max(sm[1], host[3 * b + 1]);
    ++sm[2];
  }
  std::vector<double> rates;
  for (const auto& [id, sm] : sms) rates.push_back(double(sm[2]) * kThreads * kIterations * 4.0 / double(sm[1] - sm[0]));
  std::nth_element(rates.begin(), rates.begin() + rates.size() / 2, rates.end());
  return rates[rates.size() / 2];
}

}  // namespace

SharedRates measure_shared_rates(int device) {
  HS_CUDA(cudaSetDevice(device));
  SharedRates r;
  int clock_khz = 0, max_threads_sm = 0;
  HS_CUDA(cudaDeviceGetAttribute(&r.sm_count, cudaDevAttrMultiProcessorCount, device));
  HS_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  HS_CUDA(cudaDeviceGetAttribute(&max_threads_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  r.sm_clock_mhz = clock_khz / 1000.0;
  r.threads_per_block = int(kThreads);
  r.blocks_per_sm = std::max(1, max_threads_sm / int(kThreads));
  const unsigned blocks = unsigned(r.sm_count * r.blocks_per_sm);
  unsigned long long* clocks = nullptr;
  unsigned* sink = nullptr;
  auto add = [&](const char* pattern, double rate) {
    r.rates.push_back({pattern, rate, rate * r.sm_count * r.sm_clock_mhz * 1e6 / 1e9});
  };
  try {
    HS_CUDA(cudaMalloc(&clocks, 3 * blocks * sizeof(unsigned long long)));
    HS_CUDA(cudaMalloc(&sink, blocks * sizeof(unsigned)));
    add("atomic_distinct", updates_per_clock<atomic_distinct>(1, blocks, clocks, sink));
    add("atomic_same", updates_per_clock<atomic_same>(0, blocks, clocks, sink));
    add("rmw_distinct", updates_per_clock<rmw_distinct>(1, blocks, clocks, sink));
  } catch (...) {  // freed on the way out; the first error is the one reported
    if (clocks) (void)cudaFree(clocks);
    if (sink) (void)cudaFree(sink);
    throw;
  }
  HS_CUDA(cudaFree(clocks));
  HS_CUDA(cudaFree(sink));
  return r;
}

}  // namespace hs::gpu
