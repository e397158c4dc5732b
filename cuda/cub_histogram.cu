// cub::DeviceHistogram::HistogramEven as a study variant (see
// cuda/cub_histogram.hpp for how it keeps the executor's semantics).
//                                          build/histostudy run --impl cub
#include "cuda/cub_histogram.hpp"

#include <cub/device/device_histogram.cuh>
#include <cub/version.cuh>

#include <algorithm>

#include "cuda/check.hpp"

namespace hs::gpu {
namespace {

// 257 levels 0, 1, ..., 256 make 256 bins of width 1: bin = sample. The
// levels are int, so 256 is representable (an unsigned char level cannot
// hold the exclusive upper bound).
constexpr int kLevels = 257;
constexpr int kLowerLevel = 0;
constexpr int kUpperLevel = 256;

// Adds one chunk's 256 counts into the global bins: one block of 256
// threads, one plain add each (the only writer of the bins on the stream).
template <typename Counter>
__global__ void hs_cub_accumulate(const unsigned* __restrict__ counts, Counter* __restrict__ bins) {
  const unsigned b = threadIdx.x;
  if (b < 256u) bins[b] += Counter(counts[b]);
}

std::size_t temp_bytes_for(const unsigned char* data, int length, cudaStream_t stream) {
  std::size_t bytes = 0;
  HS_CUDA(cub::DeviceHistogram::HistogramEven(nullptr, bytes, data, static_cast<unsigned*>(nullptr), kLevels,
                                              kLowerLevel, kUpperLevel, length, stream));
  return bytes;
}

}  // namespace

CubHistogram::~CubHistogram() {
  // Errors are ignored here: a destructor must not throw, and a failed free
  // leaves nothing to recover.
  if (temp_) (void)cudaFree(temp_);
  if (chunk_counts_) (void)cudaFree(chunk_counts_);
}

void CubHistogram::prepare(const unsigned char* data, std::uint64_t n, cudaStream_t stream) {
  if (prepared_ && prepared_n_ == n) return;
  if (!chunk_counts_) HS_CUDA(cudaMalloc(&chunk_counts_, 256 * sizeof(unsigned)));
  // The full chunk and the last (partial) one may need different amounts.
  std::size_t need = 0;
  if (n >= kChunkBytes) need = std::max(need, temp_bytes_for(data, int(kChunkBytes), stream));
  if (n % kChunkBytes) need = std::max(need, temp_bytes_for(data, int(n % kChunkBytes), stream));
  // Never leave temp_ null: CUB treats a null d_temp_storage as a size query
  // and does no work.
  need = std::max<std::size_t>(need, 256);
  if (!temp_ || need > temp_bytes_) {
    if (temp_) HS_CUDA(cudaFree(temp_));
    temp_ = nullptr;
    temp_bytes_ = 0;
    HS_CUDA(cudaMalloc(&temp_, need));
    temp_bytes_ = need;
  }
  prepared_n_ = n;
  prepared_ = true;
}

void CubHistogram::enqueue(const unsigned char* data, std::uint64_t n, void* bins, int counter_bits,
                           cudaStream_t stream) {
  if (!prepared_ || prepared_n_ != n)
    throw Error("cub: enqueue for " + std::to_string(n) + " bytes without prepare() for that size");
  for (std::uint64_t offset = 0; offset < n; offset += kChunkBytes) {
    const int length = int(std::min(kChunkBytes, n - offset));
    std::size_t bytes = temp_bytes_;  // CUB takes it by reference
    HS_CUDA(cub::DeviceHistogram::HistogramEven(temp_, bytes, data + offset, chunk_counts_, kLevels, kLowerLevel,
                                                kUpperLevel, length, stream));
    if (counter_bits == 64)
      hs_cub_accumulate<<<1, 256, 0, stream>>>(chunk_counts_, static_cast<unsigned long long*>(bins));
    else
      hs_cub_accumulate<<<1, 256, 0, stream>>>(chunk_counts_, static_cast<unsigned*>(bins));
    HS_CUDA(cudaGetLastError());
  }
}

std::string CubHistogram::version() {
  return std::to_string(CUB_MAJOR_VERSION) + "." + std::to_string(CUB_MINOR_VERSION) + "." +
         std::to_string(CUB_SUBMINOR_VERSION);
}

}  // namespace hs::gpu
