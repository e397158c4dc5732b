// The `cub` variant: cub::DeviceHistogram::HistogramEven, the library peer of
// the lesson's kernels (cuda/cub_histogram.cu). Plain C++ header.
//
// CUB counts into 32-bit counters and WRITES its output; the study's bins
// are ADDED into (runs accumulate between zeroings). So each run hands CUB
// chunks of fewer than 2^31 bytes, lets it write a chunk's 256 counts into a
// scratch array, and a one-block kernel adds them into the global bins (32-
// or 64-bit, per the policy). run_once from zeroed bins is exact; the timed
// loop never zeroes or reads the bins (the scratch array CUB zeroes itself,
// inside its own launches, and that is part of its time).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace hs::gpu {

class CubHistogram {
 public:
  CubHistogram() = default;
  CubHistogram(const CubHistogram&) = delete;
  CubHistogram& operator=(const CubHistogram&) = delete;
  ~CubHistogram();

  // Allocates CUB's temporary storage for runs over n bytes (once per n;
  // call it outside any timing).
  void prepare(const unsigned char* data, std::uint64_t n, cudaStream_t stream);
  // Enqueues one run on `stream`: adds the histogram of data[0, n) into
  // `bins`, 256 counters of `counter_bits` (32 or 64) bits. prepare(n) first.
  void enqueue(const unsigned char* data, std::uint64_t n, void* bins, int counter_bits, cudaStream_t stream);

  // "3.0.1": the CUB this binary was built with.
  static std::string version();

  // Bytes per HistogramEven call: 1 GiB. Far below INT_MAX, so CUB takes its
  // 32-bit offset path, no bin of a chunk can overflow its 32-bit counters,
  // and CUB's tile offsets cannot wrap: with chunks of 2^31 - 4096 bytes
  // they did on the H200 (4,847,616 bytes counted twice at 4 GiB
  // + 3, the check caught it). A multiple of 4096, so every chunk starts as
  // aligned as the buffer (CUB vectorizes byte loads on aligned input).
  static constexpr std::uint64_t kChunkBytes = 1ull << 30;

 private:
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
  unsigned* chunk_counts_ = nullptr;  // 256 32-bit counts of the last chunk
  std::uint64_t prepared_n_ = 0;
  bool prepared_ = false;
};

}  // namespace hs::gpu
