#include "driver/harness.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "platform/error.hpp"
#include "platform/files.hpp"

namespace hs {
namespace {

// The check: every bin against the reference, then the bins sum to the
// length (catches a merge written as a store); floors return the byte sum.
std::optional<std::string> check_output(const Implementation& impl, const RunOutput& out, const Subject& s) {
  if (!impl.counts) {
    const std::uint64_t want = byte_sum(s.reference);
    if (out.byte_sum != want)
      return "byte sum: expected " + std::to_string(want) + ", got " + std::to_string(out.byte_sum);
    return std::nullopt;
  }
  if (auto mismatch = first_mismatch(s.reference, out.bins)) return mismatch;
  const std::uint64_t total = stats_of(out.bins).total;
  if (total != s.data.size())
    return "bins sum to " + std::to_string(total) + ", input has " + std::to_string(s.data.size()) + " bytes";
  return std::nullopt;
}

}  // namespace

int TimingPlan::runs_between_zeroings() const {
  return std::max({1, warmups + stop.min_samples, lesson_warmups + lesson_reps});
}

nlohmann::json TimingPlan::to_json() const {
  return {{"warmups", warmups},
          {"reps", stop.min_samples},
          {"stop", stop.to_json()},
          {"cache", cache_mode_name(cache)},
          {"throttle_fraction", throttle_fraction},
          {"runs_between_zeroings", runs_between_zeroings()},
          {"lesson_warmups", lesson_warmups},
          {"lesson_reps", lesson_reps}};
}

double gigabytes_per_second(std::uint64_t bytes, double ms) {
  return ms > 0 ? double(bytes) / (ms * 1e-3) / 1e9 : 0.0;
}

namespace {

// The GPU an executor runs on, as every row names it; null for the CPU.
nlohmann::json device_of(const Executor& executor) {
  const auto described = executor.describe();
  if (!described.contains("device")) return nullptr;
  nlohmann::json out = nlohmann::json::object();
  for (const char* key : {"index", "uuid", "name", "pci_bus_id"})
    if (described["device"].contains(key)) out[key] = described["device"][key];
  return out;
}

// Resolves the policy and checks one run; the row is timed only if it passed.
Row checked_row(const MeasureEntry& entry, const Subject& subject, const TimingPlan& timing) {
  Executor& executor = *entry.executor;
  const Implementation& impl = *entry.impl;
  const LaunchPolicy& requested = entry.requested;
  const Placement& placement = entry.placement;
  Row row;
  row.experiment = entry.experiment;
  row.impl = impl.name;
  row.backend = backend_name(impl.backend);
  row.roles.assign(impl.roles.begin(), impl.roles.end());
  row.device = device_of(executor);
  row.toolchain = executor.toolchain();
  row.control_of = executor.control_of();
  row.code = impl.code_path ? "host: " + std::string(impl.code_path()) : executor.code_path();
  row.input = subject.input;
  row.size = subject.data.size();
  row.input_stats = stats_of(subject.reference);
  row.policy = executor.resolve(impl, requested, row.size, timing.runs_between_zeroings());
  row.global_atomics = impl.global_atomics(row.policy, row.size);
  row.global_atomic_bytes = global_atomic_bytes(impl, row.policy, row.size);
  row.bytes_read = impl.bytes_read(row.policy, row.size);
  row.floor_impl = floor_for(impl).name;
  row.cache_mode = cache_mode_name(executor.honoured(timing.cache));
  auto mismatch = check_output(impl, executor.run_once(impl, row.policy, placement), subject);
  row.check_passed = !mismatch;
  if (mismatch) row.check_detail = *mismatch;  // a wrong answer is never timed
  return row;
}

// "nvcc 13.0.88", or "cpu openmp_fast" where the entries span several implementations.
std::string group_name(const Row& row, bool several_impls) {
  return several_impls ? row.toolchain + " " + row.impl : row.toolchain;
}

// The entries that passed their check, sampled in rotation (see measure()).
class RotatingSampling {
 public:
  RotatingSampling(const std::vector<MeasureEntry>& entries, std::vector<Row>& rows, const TimingPlan& timing)
      : rows_(rows), timing_(timing) {
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (!rows[i].check_passed) continue;
      const MeasureEntry& e = entries[i];
      const CacheMode mode = e.executor->honoured(timing.cache);
      members_.push_back({i, e.executor->sampler(*e.impl, rows[i].policy, e.placement, mode),
                          timing.throttle_fraction * e.executor->peak_clock_mhz()});
    }
    const bool several_impls =
        std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return r.impl != rows[0].impl; });
    for (auto& m : members_)
      for (const auto& other : members_) rows_[m.row].group.push_back(group_name(rows_[other.row], several_impls));
  }

  void run() {
    const int k = int(members_.size());
    if (k == 0) return;
    for (int w = 0; w < timing_.warmups; ++w)
      for (int j : rotation(k, w)) turn(members_[std::size_t(j)], false);
    const auto start = std::chrono::steady_clock::now();
    for (int round = 0;; ++round) {
      const auto order = rotation(k, round);
      for (int j : order) turn(members_[std::size_t(j)], true);
      for (std::size_t position = 0; position < order.size(); ++position)
        record(members_[std::size_t(order[position])], int(position));
      if ((round + 1) % k == 0 &&
          all_stopped(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()))
        break;
    }
  }

 private:
  struct Member {
    std::size_t row;
    std::unique_ptr<Sampler> sampler;
    double throttle_below_mhz;  // 0: no clock to judge
  };

  // One run of `m`, zeroing the shared bins first when the counters need it.
  void turn(Member& m, bool timed) {
    stop_if_interrupted();
    if (since_zero_ == 0 || since_zero_ >= timing_.runs_between_zeroings()) {
      m.sampler->reset_bins();
      since_zero_ = 0;
    }
    timed ? m.sampler->sample() : m.sampler->warm();
    ++since_zero_;
  }

  void record(Member& m, int position) {
    Row& row = rows_[m.row];
    for (const Sample& s : m.sampler->collect()) {
      const bool throttled = m.throttle_below_mhz > 0 && s.clock_mhz < m.throttle_below_mhz;
      row.sample_log.push_back({s.ms, position, s.clock_mhz, throttled});
      if (!throttled) row.samples_ms.push_back(s.ms);
    }
  }

  // Every member has met the rule; each row keeps the outcome it met.
  bool all_stopped(double seconds) {
    bool all = true;
    for (auto& m : members_) {
      Row& row = rows_[m.row];
      row.stop = should_stop(timing_.stop, row.samples_ms, int(row.sample_log.size()), seconds);
      all = all && !row.stop.reason.empty();
    }
    return all;
  }

  std::vector<Row>& rows_;
  const TimingPlan& timing_;
  std::vector<Member> members_;
  int since_zero_ = 0;
};

}  // namespace

std::vector<Row> measure(const std::vector<MeasureEntry>& entries, const Subject& subject, const TimingPlan& timing) {
  std::vector<Row> rows;
  for (const MeasureEntry& e : entries) rows.push_back(checked_row(e, subject, timing));
  RotatingSampling(entries, rows, timing).run();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const MeasureEntry& e = entries[i];
    Row& row = rows[i];
    row.placement = e.executor->placement_record(e.placement);
    if (row.samples_ms.empty()) continue;  // failed its check, or every sample was throttled
    row.summary = summarize(row.samples_ms);
    if (timing.lesson_reps > 0)
      row.lesson_mean_ms = e.executor->time_back_to_back(*e.impl, row.policy, e.placement, timing.lesson_warmups,
                                                         timing.lesson_reps);
    row.gbps = gigabytes_per_second(row.bytes_read, row.summary.median);
  }
  return rows;
}

std::vector<Row> measure(const std::vector<Executor*>& members, const Implementation& impl,
                         const LaunchPolicy& requested, const Placement& placement, const Subject& subject,
                         const TimingPlan& timing, const std::string& experiment) {
  std::vector<MeasureEntry> entries;
  for (auto* e : members) entries.push_back({e, &impl, requested, placement, experiment});
  return measure(entries, subject, timing);
}

void attach_floors(std::vector<Row>& rows) {
  for (auto& row : rows) {
    if (row.size < kMinFloorBytes) continue;  // launch and timer overheads, not reads, set both times
    auto floor = std::find_if(rows.begin(), rows.end(), [&](const Row& f) {
      return f.impl == row.floor_impl && f.toolchain == row.toolchain && f.input == row.input &&
             f.size == row.size && f.check_passed;
    });
    if (floor != rows.end() && floor->gbps > 0 && row.check_passed)
      row.pct_of_floor = 100.0 * row.gbps / floor->gbps;
  }
}

namespace {
template <typename T>
nlohmann::json optional_json(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// Columns, in the order the samples were taken.
nlohmann::json sample_log_json(const std::vector<Row::LoggedSample>& log) {
  nlohmann::json ms = nlohmann::json::array(), position = nlohmann::json::array(),
                 clock = nlohmann::json::array(), throttled = nlohmann::json::array();
  for (const auto& s : log) {
    ms.push_back(s.ms);
    position.push_back(s.position);
    clock.push_back(finite_or_null(s.clock_mhz));
    throttled.push_back(s.throttled);
  }
  return {{"ms", ms}, {"position", position}, {"clock_mhz", clock}, {"throttled", throttled}};
}
}  // namespace

nlohmann::json Row::to_json() const {
  return {{"experiment", experiment},
          {"impl", impl},
          {"backend", backend},
          {"roles", roles},
          {"device", device},
          {"toolchain", toolchain},
          {"input", input},
          {"size", size},
          {"policy", policy.to_json()},
          {"input_stats",
           {{"busiest_pct", input_stats.busiest_pct()},
            {"busiest", input_stats.busiest},
            {"bins_used", input_stats.bins_used}}},
          {"check", {{"passed", check_passed}, {"detail", check_detail}}},
          {"global_atomics", optional_json(global_atomics)},
          {"global_atomic_bytes", optional_json(global_atomic_bytes)},
          {"bytes_read", bytes_read},
          {"samples_ms", samples_ms},
          {"sample_log", sample_log_json(sample_log)},
          {"sampling",
           {{"cache", cache_mode},
            {"taken", sample_log.size()},
            {"used", samples_ms.size()},
            {"throttled", sample_log.size() - samples_ms.size()},
            {"stop", stop.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(stop.reason)},
            {"noise", finite_or_null(stop.noise)},
            {"group", group}}},
          {"control_of", control_of.empty() ? nlohmann::json(nullptr) : nlohmann::json(control_of)},
          {"code", code},
          {"placement", placement},
          {"summary_ms", summary.to_json()},
          {"lesson_mean_ms", optional_json(lesson_mean_ms)},
          {"gbps", gbps},
          {"floor_impl", floor_impl},
          {"pct_of_floor", optional_json(pct_of_floor)},
          {"host_load", host_load}};
}

}  // namespace hs
