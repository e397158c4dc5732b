// The part of a GPU executor that does not depend on how the kernels were
// compiled: the device, one stream, the input, bins, byte-sum and scratch buffers,
// CUDA events, the device limits, resolve (delegated to the variant), checked
// runs and both timing methods, and the CUB variant. A toolchain subclass
// (nvcc: cuda/nvcc_executor.cpp; NVRTC later) supplies toolchain(),
// describe() and ONE hook, launch(), that starts a kernel by name expression.
// Plain C++: no kernel code here.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda/cub_histogram.hpp"
#include "cuda/variants.hpp"
#include "study/executor.hpp"

namespace hs::gpu {

class GpuExecutor : public Executor {
 public:
  // Selects `device`. Throws Unavailable when the machine has no usable CUDA
  // GPU, UsageError when `device` is not one of them.
  explicit GpuExecutor(int device);
  ~GpuExecutor() override;
  GpuExecutor(const GpuExecutor&) = delete;
  GpuExecutor& operator=(const GpuExecutor&) = delete;

  bool supports(const Implementation& impl) const override;
  LaunchPolicy resolve(const Implementation& impl, LaunchPolicy requested, std::uint64_t n,
                       int runs) const override;
  void load(std::span<const std::uint8_t> data) override;
  RunOutput run_once(const Implementation& impl, const LaunchPolicy& policy) override;
  std::vector<double> time_each(const Implementation& impl, const LaunchPolicy& policy, int warmups,
                                int reps) override;
  double time_back_to_back(const Implementation& impl, const LaunchPolicy& policy, int warmups, int reps) override;

  const DeviceLimits& limits() const { return limits_; }
  int device() const { return device_; }
  // Name, compute capability, SMs, driver and runtime versions: for describe().
  nlohmann::json device_json() const;

 protected:
  // Starts one kernel of a plan on stream() with `args` = {&data, &n, &out,
  // &slice, &scratch} (KernelLaunch's parameter list). Must check the launch.
  virtual void launch(const KernelLaunch& launch, void** args) = 0;
  cudaStream_t stream() const { return stream_; }
  // "7.5": for messages.
  std::string compute_capability() const;

 private:
  struct Prepared {  // one run, ready to enqueue without host work that could skew timing
    bool library = false;
    int counter_bits = 32;
    void* out = nullptr;
    std::vector<KernelLaunch> plan;
  };
  Prepared prepare(const Implementation& impl, const LaunchPolicy& policy);
  void enqueue(const Prepared& run);
  void ensure_scratch(std::size_t bytes);
  void zero_outputs();
  void activate() const;
  void ensure_events(std::size_t pairs);
  void release() noexcept;

  int device_ = 0;
  DeviceLimits limits_;
  std::string name_;
  cudaStream_t stream_ = nullptr;
  unsigned char* data_ = nullptr;
  std::uint64_t n_ = 0, capacity_ = 0;
  bool loaded_ = false;
  void* bins_ = nullptr;              // 256 counters, sized for 64-bit ones
  unsigned long long* sum_ = nullptr;  // the floors' byte sum
  void* scratch_ = nullptr;            // KernelLaunch::scratch_bytes
  std::size_t scratch_capacity_ = 0;
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> events_;
  CubHistogram cub_;
};

}  // namespace hs::gpu
