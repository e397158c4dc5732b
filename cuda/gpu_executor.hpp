// The part of a GPU executor that does not depend on how the kernels were
// compiled: resolve (delegated to the variant), checked runs, samplers and
// the lesson's timing, over the buffers and stream of the run's
// SharedDevice (cuda/shared_device.hpp), which every GPU executor of the
// run shares. A toolchain subclass (nvcc: cuda/nvcc_executor.cpp; NVRTC
// and modules directories: cuda/module_executor.cpp) supplies toolchain(),
// describe() and two hooks: launch(), which starts a kernel by name
// expression, and blocks_per_sm(), its occupancy. Plain C++: no kernel code
// here.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda/shared_device.hpp"
#include "cuda/variants.hpp"
#include "driver/executor.hpp"

namespace hs::gpu {

class GpuExecutor : public Executor {
 public:
  explicit GpuExecutor(std::shared_ptr<SharedDevice> device);

  bool supports(const Implementation& impl) const override;
  LaunchPolicy resolve(const Implementation& impl, LaunchPolicy requested, std::uint64_t n,
                       int runs) const override;
  void load(std::span<const std::uint8_t> data) override;
  RunOutput run_once(const Implementation& impl, const LaunchPolicy& policy, const Placement& placement) override;
  std::unique_ptr<Sampler> sampler(const Implementation& impl, const LaunchPolicy& policy,
                                   const Placement& placement, CacheMode mode) override;
  CacheMode honoured(CacheMode requested) const override { return requested; }
  double time_back_to_back(const Implementation& impl, const LaunchPolicy& policy, const Placement& placement,
                           int warmups, int reps) override;
  nlohmann::json placement_record(const Placement& placement) const override;
  double peak_clock_mhz() const override { return device_->peak_clock_mhz(); }

  const DeviceLimits& limits() const { return device_->limits(); }
  int device() const { return device_->device(); }
  // Name, compute capability, SMs, driver and runtime versions: for describe().
  nlohmann::json device_json() const;

  // One run, ready to enqueue without host work that could skew timing.
  struct Prepared {
    std::string_view impl;  // its implementation's name, for messages
    std::uint64_t n = 0;    // the bytes its grid, counters and CUB's storage are for
    bool library = false;
    int counter_bits = 32;
    void* out = nullptr;
    std::vector<KernelLaunch> plan;
  };
  Prepared prepare(const Implementation& impl, const LaunchPolicy& policy, const Placement& placement);
  // On the shared device's input, the run's output and the scratch.
  void enqueue(const Prepared& run);
  // The same over data[0, n) of device memory other than the loaded input
  // (a streamed chunk, cuda/stream_count.cpp), on the shared stream: a run
  // prepared for n bytes, enqueued on any buffer of n bytes. enqueue throws
  // Error for more bytes than the run was prepared for (CUB's also for fewer).
  Prepared prepare(const Implementation& impl, const LaunchPolicy& policy, const Placement& placement,
                   const unsigned char* data, std::uint64_t n);
  void enqueue(const Prepared& run, const unsigned char* data, std::uint64_t n);
  SharedDevice& shared() const { return *device_; }

 protected:
  // Starts one kernel of a plan on stream() with `args` (its one
  // parameter, packed by launch.args). Must check the launch.
  virtual void launch(const KernelLaunch& launch, KernelArgs& args) = 0;
  // Blocks of `kernel` (a name expression) one SM holds at once with that
  // block size and dynamic shared memory: the occupancy API of this code.
  virtual int blocks_per_sm(const std::string& kernel, int block, std::size_t dynamic_shared) const = 0;
  cudaStream_t stream() const { return device_->stream(); }
  // "7.5": for messages.
  std::string compute_capability() const;
  // Throws Error unless `args` is the size of the argument struct that
  // `launch.kernel` takes, `param_bytes` (a plan packing another family's).
  void check_args(const KernelLaunch& launch, const KernelArgs& args, std::size_t param_bytes) const;

 private:
  std::shared_ptr<SharedDevice> device_;
};

}  // namespace hs::gpu
