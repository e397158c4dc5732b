// What every GPU executor of one run shares (docs/controls.md): the device, one
// stream, one input copy, one bins arena, the floors' byte sum, one scratch
// buffer, CUB's temporary storage, the L2 flush buffer and the SM-clock
// probe. Toolchains therefore launch on the same buffers at the same
// addresses, and a comparison between them differs only in their code.
//
// The bins live in an arena aligned to 2 MiB, at an offset every run
// records (study/driver/sampling.hpp, Placement): where global atomics' bins fall
// alone moved the lesson's global kernel 2x on the H200 (docs/controls.md).
// Plain C++: no kernel code here.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "cuda/cub_histogram.hpp"
#include "cuda/variants.hpp"
#include "driver/sampling.hpp"

namespace hs::gpu {

class SharedDevice {
 public:
  // Selects `device`. Throws Unavailable when the machine has no usable CUDA
  // GPU, UsageError when `device` is not one of them.
  explicit SharedDevice(int device);
  // The CUDA devices this process sees; throws Unavailable (saying why) when none.
  static int count();
  ~SharedDevice();
  SharedDevice(const SharedDevice&) = delete;
  SharedDevice& operator=(const SharedDevice&) = delete;

  int device() const { return device_; }
  const DeviceLimits& limits() const { return limits_; }
  const std::string& name() const { return name_; }
  cudaStream_t stream() const { return stream_; }
  CubHistogram& cub() { return cub_; }
  void activate() const;

  // Copies `data` into the one input buffer (reallocated only to grow).
  void load(std::span<const std::uint8_t> data);
  bool loaded() const { return loaded_; }
  const unsigned char* input() const { return input_; }
  std::uint64_t size() const { return n_; }

  // 256 counters, room for 64-bit ones, at `placement` in the arena.
  void* bins(const Placement& placement) const;
  unsigned long long* byte_sum() const { return sum_; }
  // At least `bytes` of scratch, allocated here (grown only), outside any
  // timed region. The scratch is zero whenever it is allocated (zeroed on
  // the shared stream before anything later on it), and every user must
  // leave it zero: so a launch may expect it zero (lane_shared's spread
  // entries), even when another plan's request regrew it since.
  void* scratch(std::size_t bytes);
  // Enqueues zeroing of the bins at `placement` and of the byte sum.
  void zero_outputs(const Placement& placement);

  // Enqueues a write of twice the L2's size, evicting whatever a run left
  // there (nvbench's cold measurement writes the L2's size once).
  void flush_l2();
  // Enqueues the clock probe into the next slot of a ring; returns the slot.
  std::size_t probe_clock();
  // The SM clock a finished probe measured, in MHz.
  double probe_mhz(std::size_t slot) const;
  // cudaDevAttrClockRate: the clock samples are judged against.
  double peak_clock_mhz() const { return peak_clock_mhz_; }

  // {bins_offset, bins, input, sum, scratch}: offsets modulo 2 MiB.
  nlohmann::json placement_record(const Placement& placement) const;

 private:
  void release() noexcept;

  int device_ = 0;
  DeviceLimits limits_;
  std::string name_;
  double peak_clock_mhz_ = 0;
  cudaStream_t stream_ = nullptr;
  unsigned char* input_ = nullptr;
  std::uint64_t n_ = 0, capacity_ = 0;
  bool loaded_ = false;
  void* arena_ = nullptr;          // the allocation the bins live in
  unsigned char* arena_base_ = nullptr;  // its first 2 MiB boundary
  unsigned long long* sum_ = nullptr;
  void* scratch_ = nullptr;
  std::size_t scratch_capacity_ = 0;
  void* flush_ = nullptr;
  std::size_t flush_bytes_ = 0;
  unsigned long long* probes_ = nullptr;  // the ring: (SM cycles, ns) per slot
  std::size_t next_probe_ = 0;
  CubHistogram cub_;
};

}  // namespace hs::gpu
