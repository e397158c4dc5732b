// The `cpu` suite's sampling tests (docs/controls.md): the rotating order, the
// stopping rule, throttled samples, the bins' placement and the A/A
// control, with scripted executors that need no GPU.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "build_config.hpp"
#include "cpu_openmp/openmp_histogram.hpp"
#if HISTOSTUDY_HAVE_CUDA
#include "cuda/modules.hpp"
#endif
#include "driver/control.hpp"
#include "platform/error.hpp"
#include "driver/harness.hpp"
#include "driver/inputs.hpp"
#include "driver/registry.hpp"
#include "driver/sampling.hpp"
#include "driver/study.hpp"

namespace {

// Every sample() call of every scripted executor, in the order made, and
// the implementation each sampled.
std::vector<std::string> g_calls, g_impls;

// An executor of `backend`'s implementations (the CPU's unless set) whose
// samples take `ms` (cycling) at `clock_mhz` (cycling), and whose checked
// run is the reference itself.
class ScriptedExecutor final : public hs::Executor {
 public:
  ScriptedExecutor(std::string name, std::vector<double> ms, std::vector<double> clock_mhz = {1000})
      : name_(std::move(name)), ms_(std::move(ms)), clock_(std::move(clock_mhz)) {}

  std::string toolchain() const override { return name_; }
  std::string code_path() const override { return "host"; }
  nlohmann::json describe() const override { return {{"compiler", name_}}; }
  bool supports(const hs::Implementation& impl) const override { return impl.backend == backend; }
  hs::LaunchPolicy resolve(const hs::Implementation&, hs::LaunchPolicy requested, std::uint64_t, int) const override {
    if (requested.block > max_block) throw hs::UsageError(name_ + ": block size over " + std::to_string(max_block));
    requested.threads = 1;
    return requested;
  }
  void load(std::span<const std::uint8_t> data) override { data_ = data; }
  hs::RunOutput run_once(const hs::Implementation&, const hs::LaunchPolicy&, const hs::Placement& p) override {
    placements.push_back(p.bins_offset);
    hs::RunOutput out;
    hs::cpu::reference(data_, out.bins);
    return out;
  }
  std::unique_ptr<hs::Sampler> sampler(const hs::Implementation& impl, const hs::LaunchPolicy&,
                                       const hs::Placement& p, hs::CacheMode) override {
    placements.push_back(p.bins_offset);
    return std::make_unique<Script>(*this, std::string(impl.name));
  }
  hs::CacheMode honoured(hs::CacheMode requested) const override { return requested; }
  double time_back_to_back(const hs::Implementation&, const hs::LaunchPolicy&, const hs::Placement&, int,
                           int) override {
    return ms_.front();
  }
  nlohmann::json placement_record(const hs::Placement& p) const override { return {{"bins_offset", p.bins_offset}}; }
  double peak_clock_mhz() const override { return 1000; }

  std::vector<std::uint32_t> placements;  // every placement it was asked to use
  int resets = 0;
  hs::Backend backend = hs::Backend::cpu;
  int max_block = 1024;  // resolve refuses larger blocks, as a variant's limit would

 private:
  class Script final : public hs::Sampler {
   public:
    Script(ScriptedExecutor& e, std::string impl) : e_(e), impl_(std::move(impl)) {}
    void warm() override {}
    void reset_bins() override { ++e_.resets; }
    void sample() override {
      g_calls.push_back(e_.name_);
      g_impls.push_back(impl_);
      pending_.push_back({e_.ms_[i_ % e_.ms_.size()], e_.clock_[i_ % e_.clock_.size()]});
      ++i_;
    }
    std::vector<hs::Sample> collect() override { return std::exchange(pending_, {}); }

   private:
    ScriptedExecutor& e_;
    std::string impl_;
    std::vector<hs::Sample> pending_;
    std::size_t i_ = 0;
  };

  std::string name_;
  std::vector<double> ms_, clock_;
  std::span<const std::uint8_t> data_;
};

struct Fixture {
  std::vector<std::uint8_t> data = hs::make_input(hs::parse_input("uniform"), 4096);
  hs::Bins reference{};
  Fixture() { hs::cpu::reference(data, reference); }
  hs::Subject subject() const { return {"uniform", data, reference}; }
};

hs::TimingPlan fixed(int samples) {
  hs::TimingPlan plan;
  plan.warmups = 1;
  plan.stop = {samples, samples, -1.0, 3600.0};  // no noise target: exactly `samples`
  plan.lesson_reps = 0;
  return plan;
}

std::vector<hs::Row> measure_all(std::vector<ScriptedExecutor*> executors, const hs::TimingPlan& plan,
                                 const hs::Placement& placement = {}) {
  static Fixture f;
  std::vector<hs::Executor*> members(executors.begin(), executors.end());
  for (auto* e : members) e->load(f.data);
  g_calls.clear();
  return hs::measure(members, hs::find_implementation("reference"), {}, placement, f.subject(), plan, "test");
}

}  // namespace

TEST_CASE("rotation: A B C, B C A, C A B; every member holds every position once per cycle") {
  CHECK(hs::rotation(3, 0) == std::vector<int>{0, 1, 2});
  CHECK(hs::rotation(3, 1) == std::vector<int>{1, 2, 0});
  CHECK(hs::rotation(3, 2) == std::vector<int>{2, 0, 1});
  CHECK(hs::rotation(3, 3) == std::vector<int>{0, 1, 2});
  for (int k = 1; k <= 6; ++k) {
    std::map<std::pair<int, int>, int> held;  // (member, position) -> times
    for (int r = 0; r < k; ++r) {
      const auto order = hs::rotation(k, r);
      for (int pos = 0; pos < k; ++pos) ++held[{order[std::size_t(pos)], pos}];
    }
    CHECK(held.size() == std::size_t(k * k));
    for (const auto& [key, times] : held) CHECK(times == 1);
  }
}

TEST_CASE("the harness samples members sample by sample in rotation and logs each position") {
  ScriptedExecutor a("A", {1.0}), b("B", {2.0}), c("C", {3.0});
  const auto rows = measure_all({&a, &b, &c}, fixed(6));
  REQUIRE(rows.size() == 3);
  // Interleaved one sample at a time, the order rotating each round.
  const std::vector<std::string> expected = {"A", "B", "C", "B", "C", "A", "C", "A", "B",
                                             "A", "B", "C", "B", "C", "A", "C", "A", "B"};
  CHECK(g_calls == expected);
  for (const auto& row : rows) {
    CHECK(row.samples_ms.size() == 6);
    CHECK(row.group == std::vector<std::string>{"A", "B", "C"});
    std::map<int, int> positions;
    for (const auto& s : row.sample_log) ++positions[s.position];
    CHECK(positions == std::map<int, int>{{0, 2}, {1, 2}, {2, 2}});
    CHECK(row.stop.reason == "max_samples");
  }
  CHECK(rows[1].summary.median == 2.0);
}

TEST_CASE("a member's times do not depend on where it stands in the arguments") {
  ScriptedExecutor a("A", {1.0, 1.2, 0.9}), b("B", {2.0, 2.1});
  const auto ab = measure_all({&a, &b}, fixed(8));
  ScriptedExecutor a2("A", {1.0, 1.2, 0.9}), b2("B", {2.0, 2.1});
  const auto ba = measure_all({&b2, &a2}, fixed(8));
  CHECK(ab[0].samples_ms == ba[1].samples_ms);
  CHECK(ab[1].samples_ms == ba[0].samples_ms);
}

TEST_CASE("sampling stops at the target noise, at the caps, and only after whole rotations") {
  ScriptedExecutor steady("steady", {1.0});
  hs::TimingPlan plan = fixed(5);
  plan.stop = {5, 1000, 0.005, 3600.0};
  auto rows = measure_all({&steady}, plan);
  CHECK(rows[0].stop.reason == "noise");
  CHECK(rows[0].samples_ms.size() == 5);
  CHECK(rows[0].stop.noise == 0.0);

  ScriptedExecutor noisy("noisy", {1.0, 2.0, 3.0, 4.0});
  plan.stop = {5, 40, 0.005, 3600.0};
  rows = measure_all({&noisy}, plan);
  CHECK(rows[0].stop.reason == "max_samples");
  CHECK(rows[0].samples_ms.size() == 40);
  CHECK(rows[0].stop.noise > 0.005);

  ScriptedExecutor one("one", {1.0}), two("two", {1.0, 2.0, 3.0, 4.0}), three("three", {2.0});
  plan.stop = {4, 10, 0.005, 3600.0};
  rows = measure_all({&one, &two, &three}, plan);
  for (const auto& row : rows) CHECK(row.sample_log.size() % 3 == 0);  // whole rotations: equal positions
  CHECK(rows[0].stop.reason == "noise");
  CHECK(rows[1].stop.reason == "max_samples");

  ScriptedExecutor slow("slow", {1.0, 2.0});
  plan.stop = {3, 100000, 0.0, 0.0};
  rows = measure_all({&slow}, plan);
  CHECK(rows[0].stop.reason == "max_time");
  CHECK(rows[0].samples_ms.size() == 3);  // the minimum is always taken
}

TEST_CASE("median noise: the half-width of the median's 95% interval over the median") {
  CHECK(std::isnan(hs::median_noise({})));
  CHECK(std::isnan(hs::median_noise({1.0})));
  CHECK(hs::median_noise({2.0, 2.0, 2.0, 2.0}) == 0.0);
  std::vector<double> ramp;
  for (int i = 1; i <= 100; ++i) ramp.push_back(double(i));
  // n = 100: ranks 50 -+ 9.8 -> order statistics 40 and 60 (0-based), values 41 and 61; median 50.5.
  CHECK(hs::median_noise(ramp) == doctest::Approx((61.0 - 41.0) / 2 / 50.5));
  std::vector<double> more;
  for (int rep = 0; rep < 4; ++rep) more.insert(more.end(), ramp.begin(), ramp.end());
  CHECK(hs::median_noise(more) < hs::median_noise(ramp));  // it shrinks as samples accrue
}

TEST_CASE("throttled samples are logged, flagged and left out of the statistics") {
  // Clock 1000 MHz peak, threshold 0.75: the 500 MHz samples are throttled.
  ScriptedExecutor e("E", {1.0, 9.0}, {1000, 500});
  const auto rows = measure_all({&e}, fixed(10));
  const auto& row = rows[0];
  CHECK(row.sample_log.size() == 10);
  CHECK(row.samples_ms == std::vector<double>(5, 1.0));
  int flagged = 0;
  for (const auto& s : row.sample_log) {
    CHECK(s.throttled == (s.clock_mhz < 750));
    flagged += s.throttled;
  }
  CHECK(flagged == 5);
  CHECK(row.summary.median == 1.0);
  CHECK(row.to_json()["sampling"]["throttled"] == 5);
}

TEST_CASE("every sample throttled: the row is checked but not timed") {
  ScriptedExecutor e("E", {1.0}, {100});
  const auto rows = measure_all({&e}, fixed(4));
  CHECK(rows[0].check_passed);
  CHECK(rows[0].samples_ms.empty());
  CHECK(rows[0].sample_log.size() == 4);
}

TEST_CASE("the bins are zeroed before the counters could overflow, never inside a sample") {
  ScriptedExecutor a("A", {1.0}), b("B", {1.0});
  hs::TimingPlan plan = fixed(30);  // runs between zeroings: 1 warm-up + 30 = 31
  measure_all({&a, &b}, plan);
  // 2 members x 31 runs = 62 shared runs: zeroed at the start and every 31 runs.
  CHECK(a.resets + b.resets == 2);
}

TEST_CASE("the placement reaches every run of every member and is recorded") {
  ScriptedExecutor a("A", {1.0}), b("B", {1.0});
  const auto rows = measure_all({&a, &b}, fixed(2), hs::Placement::checked(512));
  for (auto* e : {&a, &b}) CHECK(e->placements == std::vector<std::uint32_t>{512, 512});
  for (const auto& row : rows) CHECK(row.to_json()["placement"]["bins_offset"] == 512);
  CHECK_THROWS_AS(hs::Placement::checked(100), hs::UsageError);
  CHECK_THROWS_AS(hs::Placement::checked(-128), hs::UsageError);
  CHECK_THROWS_AS(hs::Placement::checked((1 << 20) + 128), hs::UsageError);
  CHECK(hs::Placement::checked(1 << 20).bins_offset == 1u << 20);
}

TEST_CASE("an A/A control is the same toolchain as an independent entry, labelled as the control") {
  auto control = hs::make_control(std::make_unique<ScriptedExecutor>("nvcc 13.0.88", std::vector<double>{1.0}));
  CHECK(control->toolchain() == "nvcc 13.0.88 (A/A control)");
  CHECK(control->control_of() == "nvcc 13.0.88");
  CHECK(control->describe()["control_of"] == "nvcc 13.0.88");
  ScriptedExecutor a("nvcc 13.0.88", {1.0});
  static Fixture f;
  std::vector<hs::Executor*> members = {&a, control.get()};
  for (auto* e : members) e->load(f.data);
  const auto rows = hs::measure(members, hs::find_implementation("reference"), {}, {}, f.subject(), fixed(2), "t");
  CHECK(rows[0].to_json()["control_of"].is_null());
  CHECK(rows[1].to_json()["control_of"] == "nvcc 13.0.88");
  CHECK(rows[1].toolchain == "nvcc 13.0.88 (A/A control)");
}

TEST_CASE("a study samples an input's CPU implementations in one rotation, a GPU case's toolchains in another") {
  ScriptedExecutor cpu("cpu", {1.0, 1.1}), gpu("gpu", {2.0}), gpu2("gpu2", {2.0});
  gpu.backend = gpu2.backend = hs::Backend::cuda;
  hs::StudyRequest request;
  request.impls = {"reference", "openmp_private", "lane_shared"};
  request.inputs = {"uniform"};
  request.sizes = {4096};
  request.cpu_timing = request.gpu_timing = fixed(4);
  const std::vector<hs::Executor*> executors = {&cpu, &gpu, &gpu2};
  std::vector<hs::Row> rows;
  g_calls.clear(), g_impls.clear();
  hs::run_cases(hs::plan_cases(request, executors), executors, request, [](const std::string&) {}, rows);
  // The CPU's: one sample of each at a time, the order rotating each round, never a case's samples in a row.
  std::vector<std::string> on_cpu;
  for (std::size_t i = 0; i < g_calls.size(); ++i)
    if (g_calls[i] == "cpu") on_cpu.push_back(g_impls[i]);
  const std::vector<std::string> impls = {on_cpu[0], on_cpu[1]};
  CHECK(impls == std::vector<std::string>{"reference", "openmp_private"});
  CHECK(on_cpu == std::vector<std::string>{"reference", "openmp_private", "openmp_private", "reference",
                                           "reference", "openmp_private", "openmp_private", "reference"});
  std::vector<std::string> timed;  // the floors the plan adds fail the scripted check (it sums no bytes)
  for (const auto& row : rows) {
    if (!row.check_passed) continue;
    timed.push_back(row.toolchain + " " + row.impl);
    const bool on_gpu = row.backend == "cuda";
    CHECK(row.samples_ms.size() == 4);
    CHECK(row.group == (on_gpu ? std::vector<std::string>{"gpu", "gpu2"}
                               : std::vector<std::string>{"cpu reference", "cpu openmp_private"}));
  }
  CHECK(timed ==
        std::vector<std::string>{"gpu lane_shared", "gpu2 lane_shared", "cpu reference", "cpu openmp_private"});
}

TEST_CASE("--grid and --block launch a run's GPU implementations; its CPU ones run without them") {
  ScriptedExecutor cpu("cpu", {1}), gpu("gpu", {1});
  gpu.backend = hs::Backend::cuda;
  hs::StudyRequest request;
  request.impls = {"reference", "lane_shared"};
  request.inputs = {"uniform"};
  request.sizes = {611};
  request.policy.grid = 512;
  request.policy.block = 128;
  int counted = 0;
  for (const auto& c : hs::plan_cases(request, {&cpu, &gpu})) {
    if (!c.impl->counts) continue;  // the floors run at their own launch
    const bool on_gpu = c.impl->backend == hs::Backend::cuda;
    CHECK(c.policy.grid == (on_gpu ? 512 : 0));
    CHECK(c.policy.block == (on_gpu ? 128 : 0));
    ++counted;
  }
  CHECK(counted == 2);
  // Refused before anything is measured: named CPU implementations alone, or no GPU to run any other.
  request.impls = {"reference"};
  CHECK_THROWS_AS(hs::plan_cases(request, {&cpu, &gpu}), hs::UsageError);
  request.impls = {};
  CHECK_THROWS_AS(hs::plan_cases(request, {&cpu}), hs::UsageError);
  request.policy = {};
  CHECK_NOTHROW(hs::plan_cases(request, {&cpu}));
}

TEST_CASE("a launch policy that one toolchain refuses stops the run at its plan, before anything is measured") {
  ScriptedExecutor cpu("cpu", {1}), gpu("gpu", {1}), small("small", {1});
  gpu.backend = small.backend = hs::Backend::cuda;
  small.max_block = 256;
  hs::StudyRequest request;
  request.impls = {"reference", "lane_shared"};
  request.inputs = {"uniform"};
  request.sizes = {611};
  request.policy.block = 512;
  CHECK_NOTHROW(hs::plan_cases(request, {&cpu, &gpu}));
  CHECK_THROWS_WITH_AS(hs::plan_cases(request, {&cpu, &gpu, &small}), "small: block size over 256", hs::UsageError);
  // A block the experiment chose, not the user: the refusal says so.
  request.experiments = {"blocks"};
  request.impls = {"lane_shared"};
  request.policy = {};
  small.max_block = 512;
  CHECK_THROWS_WITH_AS(hs::plan_cases(request, {&cpu, &small}),
                       "the blocks experiment runs every block size from 64 to 1024, and small: block size over 512: "
                       "leave lane_shared out of it",
                       hs::UsageError);
}

TEST_CASE("cache modes parse by name; anything else is a usage error") {
  CHECK(hs::parse_cache_mode("cold") == hs::CacheMode::cold);
  CHECK(hs::parse_cache_mode("hot") == hs::CacheMode::hot);
  CHECK_THROWS_AS(hs::parse_cache_mode("warm"), hs::UsageError);
  CHECK(hs::cache_mode_name(hs::CacheMode::cold) == "cold");
}

#if HISTOSTUDY_HAVE_CUDA
TEST_CASE("modules: a GPU runs its own arch's SASS and the newest PTX at or below it; the rest is named") {
  const nlohmann::json manifest = {
      {"builds",
       {{{"toolchain", "nvrtc 12.6.85"}, {"arch", "sm_75"}, {"kind", "sass"}},
        {{"toolchain", "nvrtc 12.6.85"}, {"arch", "sm_90"}, {"kind", "sass"}},
        {{"toolchain", "nvrtc 12.6.85"}, {"arch", "compute_75"}, {"kind", "ptx"}},
        {{"toolchain", "nvrtc 12.6.85"}, {"arch", "compute_90"}, {"kind", "ptx"}},
        {{"toolchain", "nvrtc 13.5.37"}, {"arch", "compute_100"}, {"kind", "ptx"}}}}};
  std::vector<std::string> skipped;
  const auto chosen = hs::gpu::plan_modules(manifest, 90, skipped);
  std::vector<std::string> picked;
  for (const auto& b : chosen) picked.push_back(b["arch"].get<std::string>());
  CHECK(picked == std::vector<std::string>{"sm_90", "compute_90"});
  REQUIRE(skipped.size() == 2);
  CHECK(skipped[0] == "nvrtc 12.6.85 sm_75: skipped: SASS for sm_75 does not run on this GPU (compute capability 9.0)");
  CHECK(skipped[1].find("compute_100 is newer than this GPU") != std::string::npos);
}
#endif
