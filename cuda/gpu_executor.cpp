#include "cuda/gpu_executor.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "cuda/check.hpp"
#include "cuda/device_record.hpp"
#include "platform/error.hpp"
#include "driver/sizes.hpp"

namespace hs::gpu {
namespace {

// CUDA events for one sample each, made outside any timed region.
class EventPairs {
 public:
  EventPairs() = default;
  EventPairs(const EventPairs&) = delete;
  EventPairs& operator=(const EventPairs&) = delete;
  ~EventPairs() {
    for (auto& [start, stop] : pairs_) {
      (void)cudaEventDestroy(start);
      (void)cudaEventDestroy(stop);
    }
  }
  std::pair<cudaEvent_t, cudaEvent_t> at(std::size_t i) {
    while (pairs_.size() <= i) {
      cudaEvent_t start = nullptr, stop = nullptr;
      HS_CUDA(cudaEventCreate(&start));
      const cudaError_t made = cudaEventCreate(&stop);
      if (made != cudaSuccess) (void)cudaEventDestroy(start);
      HS_CUDA(made);
      pairs_.emplace_back(start, stop);
    }
    return pairs_[i];
  }
  static double elapsed_ms(std::pair<cudaEvent_t, cudaEvent_t> pair) {
    float ms = 0;
    HS_CUDA(cudaEventElapsedTime(&ms, pair.first, pair.second));
    return ms;
  }

 private:
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> pairs_;
};

// Samples of one prepared run: [flush L2] start-event run stop-event probe,
// all on the shared stream; collect() synchronizes and reads them.
class GpuSampler final : public Sampler {
 public:
  GpuSampler(GpuExecutor& executor, GpuExecutor::Prepared run, const Placement& placement, CacheMode mode)
      : executor_(executor), run_(std::move(run)), placement_(placement), mode_(mode) {}

  void warm() override { executor_.enqueue(run_); }

  void reset_bins() override { executor_.shared().zero_outputs(placement_); }

  void sample() override {
    SharedDevice& device = executor_.shared();
    const auto events = events_.at(taken_);
    if (mode_ == CacheMode::cold) device.flush_l2();
    HS_CUDA(cudaEventRecord(events.first, device.stream()));
    executor_.enqueue(run_);
    HS_CUDA(cudaEventRecord(events.second, device.stream()));
    probes_.push_back(device.probe_clock());
    ++taken_;
  }

  std::vector<Sample> collect() override {
    HS_CUDA(cudaStreamSynchronize(executor_.shared().stream()));
    std::vector<Sample> out;
    for (; collected_ < taken_; ++collected_)
      out.push_back({EventPairs::elapsed_ms(events_.at(collected_)), executor_.shared().probe_mhz(probes_[collected_])});
    return out;
  }

 private:
  GpuExecutor& executor_;
  GpuExecutor::Prepared run_;
  Placement placement_;
  CacheMode mode_;
  EventPairs events_;
  std::vector<std::size_t> probes_;
  std::size_t taken_ = 0, collected_ = 0;
};

}  // namespace

GpuExecutor::GpuExecutor(std::shared_ptr<SharedDevice> device) : device_(std::move(device)) {
  if (!device_) throw Error("GPU executor: no device");
}

std::string GpuExecutor::compute_capability() const {
  return std::to_string(limits().cc_major) + "." + std::to_string(limits().cc_minor);
}

void GpuExecutor::check_args(const KernelLaunch& launch, const KernelArgs& args, std::size_t param_bytes) const {
  if (args.size() != param_bytes)
    throw Error(toolchain() + " executor: " + launch.kernel + " takes a " + std::to_string(param_bytes) +
                "-byte argument struct; its plan packed " + std::to_string(args.size()) + " bytes");
}

nlohmann::json GpuExecutor::device_json() const {
  int driver = 0, runtime = 0;
  HS_CUDA(cudaDriverGetVersion(&driver));
  HS_CUDA(cudaRuntimeGetVersion(&runtime));
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  const DeviceLimits& l = limits();
  nlohmann::json record = {{"index", device()},
                           {"name", device_->name()},
                           {"compute_capability", compute_capability()},
                           {"sm_count", l.sm_count},
                           {"max_threads_per_block", l.max_threads_per_block},
                           {"shared_per_block", l.shared_per_block},
                           {"shared_per_block_optin", l.shared_per_block_optin},
                           {"shared_per_sm", l.shared_per_sm},
                           {"driver_cuda_version", version(driver)},
                           {"runtime_version", version(runtime)}};
  record.update(device_record(device()));
  return record;
}

bool GpuExecutor::supports(const Implementation& impl) const { return impl.gpu != nullptr; }

LaunchPolicy GpuExecutor::resolve(const Implementation& impl, LaunchPolicy requested, std::uint64_t n,
                                  int runs) const {
  if (!impl.gpu) throw UsageError(std::string(impl.name) + " is not a GPU implementation");
  const LaunchTarget target{limits(), [this](const std::string& kernel, int block, std::size_t shared) {
                              return blocks_per_sm(kernel, block, shared);
                            }};
  return impl.gpu->resolve(requested, n, runs, target);
}

void GpuExecutor::load(std::span<const std::uint8_t> data) { device_->load(data); }

GpuExecutor::Prepared GpuExecutor::prepare(const Implementation& impl, const LaunchPolicy& policy,
                                           const Placement& placement) {
  if (!device_->loaded()) throw Error("GPU executor: " + std::string(impl.name) + " run before any input was loaded");
  return prepare(impl, policy, placement, device_->input(), device_->size());
}

GpuExecutor::Prepared GpuExecutor::prepare(const Implementation& impl, const LaunchPolicy& policy,
                                           const Placement& placement, const unsigned char* data, std::uint64_t n) {
  if (!impl.gpu) throw UsageError(std::string(impl.name) + " is not a GPU implementation");
  device_->activate();
  Prepared run;
  run.impl = impl.name;
  run.n = n;
  run.library = impl.gpu->library;
  run.counter_bits = policy.counter_bits;
  run.out = impl.counts ? device_->bins(placement) : static_cast<void*>(device_->byte_sum());
  if (impl.counts && run.counter_bits != 32 && run.counter_bits != 64)
    throw Error(std::string(impl.name) + ": counter width " + std::to_string(run.counter_bits) +
                " is not 32 or 64 (resolve the policy first)");
  if (run.library) {
    device_->cub().prepare(data, n, stream());
    return run;
  }
  run.plan = impl.gpu->plan(policy, n);
  std::size_t scratch_bytes = 0;
  for (const auto& l : run.plan) {
    if (l.grid == 0 || l.block == 0)
      throw Error(std::string(impl.name) + ": launch of " + l.kernel + " with grid " + std::to_string(l.grid) +
                  " x block " + std::to_string(l.block) + " (resolve the policy first)");
    scratch_bytes = std::max(scratch_bytes, l.scratch_bytes);
  }
  device_->scratch(scratch_bytes);  // grown (and zeroed) here, never inside a timed region
  return run;
}

void GpuExecutor::enqueue(const Prepared& run) { enqueue(run, device_->input(), device_->size()); }

void GpuExecutor::enqueue(const Prepared& run, const unsigned char* data, std::uint64_t n) {
  if (n > run.n)
    throw Error("GPU executor: " + std::string(run.impl) + " was prepared for " + with_commas(run.n) +
                " bytes, not the " + with_commas(n) + " it was given (prepare it for them)");
  if (run.library) {
    device_->cub().enqueue(data, n, run.out, run.counter_bits, stream());
    return;
  }
  // The scratch as it is now, never a pointer kept since prepare(): it only
  // grows (in prepare()), and is zero whenever it is allocated.
  const Buffers on{data, n, run.out, device_->scratch(0)};
  for (const auto& l : run.plan) {
    KernelArgs args = l.args(on);
    launch(l, args);
  }
}

RunOutput GpuExecutor::run_once(const Implementation& impl, const LaunchPolicy& policy, const Placement& placement) {
  const Prepared run = prepare(impl, policy, placement);
  device_->zero_outputs(placement);
  enqueue(run);
  RunOutput result;
  if (!impl.counts) {
    unsigned long long sum = 0;
    HS_CUDA(cudaMemcpyAsync(&sum, device_->byte_sum(), sizeof sum, cudaMemcpyDeviceToHost, stream()));
    HS_CUDA(cudaStreamSynchronize(stream()));
    result.byte_sum = sum;
    return result;
  }
  if (run.counter_bits == 64) {
    std::array<unsigned long long, kBins> wide{};
    HS_CUDA(cudaMemcpyAsync(wide.data(), run.out, sizeof wide, cudaMemcpyDeviceToHost, stream()));
    HS_CUDA(cudaStreamSynchronize(stream()));
    std::copy(wide.begin(), wide.end(), result.bins.begin());
  } else {
    std::array<unsigned, kBins> narrow{};
    HS_CUDA(cudaMemcpyAsync(narrow.data(), run.out, sizeof narrow, cudaMemcpyDeviceToHost, stream()));
    HS_CUDA(cudaStreamSynchronize(stream()));
    std::copy(narrow.begin(), narrow.end(), result.bins.begin());
  }
  result.byte_sum = byte_sum(result.bins);
  return result;
}

std::unique_ptr<Sampler> GpuExecutor::sampler(const Implementation& impl, const LaunchPolicy& policy,
                                              const Placement& placement, CacheMode mode) {
  return std::make_unique<GpuSampler>(*this, prepare(impl, policy, placement), placement, mode);
}

double GpuExecutor::time_back_to_back(const Implementation& impl, const LaunchPolicy& policy,
                                      const Placement& placement, int warmups, int reps) {
  if (warmups < 0 || reps < 1)
    throw UsageError("back-to-back timing needs >= 0 warm-ups and >= 1 timed run (got " + std::to_string(warmups) +
                     " and " + std::to_string(reps) + ")");
  const Prepared run = prepare(impl, policy, placement);
  EventPairs events;
  const auto pair = events.at(0);
  device_->zero_outputs(placement);
  for (int w = 0; w < warmups; ++w) enqueue(run);
  HS_CUDA(cudaEventRecord(pair.first, stream()));
  for (int r = 0; r < reps; ++r) enqueue(run);
  HS_CUDA(cudaEventRecord(pair.second, stream()));
  HS_CUDA(cudaStreamSynchronize(stream()));
  return EventPairs::elapsed_ms(pair) / reps;
}

nlohmann::json GpuExecutor::placement_record(const Placement& placement) const {
  return device_->placement_record(placement);
}

}  // namespace hs::gpu
