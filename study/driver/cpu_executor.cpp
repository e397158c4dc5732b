// The CPU executor: runs the registry's CPU variants on host memory, timed
// with the steady clock one run at a time.
#include <chrono>
#include <limits>
#include <utility>

#include "build_config.hpp"
#include "cpu_openmp/openmp_histogram.hpp"
#include "platform/error.hpp"
#include "driver/executor.hpp"

namespace hs {
namespace {

class CpuExecutor final : public Executor {
 public:
  std::string toolchain() const override { return "cpu"; }
  std::string code_path() const override { return "host"; }

  nlohmann::json describe() const override {
    return {{"compiler", HISTOSTUDY_CXX}, {"build_type", HISTOSTUDY_BUILD_TYPE}, {"openmp", _OPENMP}};
  }

  bool supports(const Implementation& impl) const override { return impl.backend == Backend::cpu; }

  LaunchPolicy resolve(const Implementation& impl, LaunchPolicy requested, std::uint64_t, int) const override {
    if (requested.grid || requested.block)
      throw UsageError(std::string(impl.name) + " runs on the CPU: --grid and --block do not apply");
    if (requested.threads < 0 || requested.threads > cpu::kMaxThreads)
      throw UsageError("bad thread count " + std::to_string(requested.threads) + " (1.." +
                       std::to_string(cpu::kMaxThreads) + ")");
    LaunchPolicy policy = requested;
    // The threads recorded are the team a region gets, which OMP_THREAD_LIMIT can make smaller than asked.
    const int asked = cpu::resolve_threads(requested.threads), team = cpu::team_size(asked);
    if (requested.threads > 0 && team < asked)
      throw UsageError("--threads " + std::to_string(asked) + ": OpenMP runs " + std::to_string(team) +
                       " here (OMP_THREAD_LIMIT or OMP_DYNAMIC): ask for " + std::to_string(team) + " or fewer");
    policy.threads = has_role(impl, "oracle") ? 1 : team;  // the oracle is single-threaded
    policy.passes = 1;
    policy.counter_bits = 64;  // Bins are 64-bit: no length overflows them
    return policy;
  }

  void load(std::span<const std::uint8_t> data) override { data_ = data; }

  RunOutput run_once(const Implementation& impl, const LaunchPolicy& policy, const Placement&) override {
    RunOutput out;
    if (impl.counts)
      impl.cpu_histogram(data_, out.bins, policy);
    else
      out.byte_sum = impl.cpu_floor(data_, policy);
    return out;
  }

  std::unique_ptr<Sampler> sampler(const Implementation& impl, const LaunchPolicy& policy, const Placement&,
                                   CacheMode) override {
    return std::make_unique<CpuSampler>(*this, impl, policy);
  }

  // The CPU's caches are not flushed: its samples run hot.
  CacheMode honoured(CacheMode) const override { return CacheMode::hot; }

  double time_back_to_back(const Implementation& impl, const LaunchPolicy& policy, const Placement&, int warmups,
                           int reps) override {
    bins_ = {};
    for (int i = 0; i < warmups; ++i) run_accumulating(impl, policy);
    return timed_ms([&] {
             for (int i = 0; i < reps; ++i) run_accumulating(impl, policy);
           }) /
           reps;
  }

  nlohmann::json placement_record(const Placement&) const override { return nullptr; }
  double peak_clock_mhz() const override { return 0; }

 private:
  // Runs synchronously: sample() times one run with the steady clock.
  class CpuSampler final : public Sampler {
   public:
    CpuSampler(CpuExecutor& cpu, const Implementation& impl, const LaunchPolicy& policy)
        : cpu_(cpu), impl_(impl), policy_(policy) {}
    void warm() override { cpu_.run_accumulating(impl_, policy_); }
    void reset_bins() override { cpu_.bins_ = {}; }
    void sample() override {
      taken_.push_back({timed_ms([&] { cpu_.run_accumulating(impl_, policy_); }),
                        std::numeric_limits<double>::quiet_NaN()});
    }
    std::vector<Sample> collect() override { return std::exchange(taken_, {}); }

   private:
    CpuExecutor& cpu_;
    const Implementation& impl_;
    LaunchPolicy policy_;
    std::vector<Sample> taken_;
  };

  // Adds into bins_ without zeroing or reading it, as the timed loop must.
  void run_accumulating(const Implementation& impl, const LaunchPolicy& policy) {
    if (impl.counts)
      impl.cpu_histogram(data_, bins_, policy);
    else
      floor_sink_ = floor_sink_ + impl.cpu_floor(data_, policy);
  }

  template <typename F>
  static double timed_ms(F&& body) {
    auto start = std::chrono::steady_clock::now();
    body();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  std::span<const std::uint8_t> data_;
  Bins bins_{};
  volatile std::uint64_t floor_sink_ = 0;  // keeps the floor's reads alive
};

}  // namespace

std::unique_ptr<Executor> make_cpu_executor() { return std::make_unique<CpuExecutor>(); }

}  // namespace hs
