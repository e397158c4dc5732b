#include "study/harness.hpp"

#include <algorithm>

#include "study/error.hpp"

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
  return std::max({1, warmups + reps, lesson_warmups + lesson_reps});
}

nlohmann::json TimingPlan::to_json() const {
  return {{"warmups", warmups},
          {"reps", reps},
          {"lesson_warmups", lesson_warmups},
          {"lesson_reps", lesson_reps}};
}

double gigabytes_per_second(std::uint64_t bytes, double ms) {
  return ms > 0 ? double(bytes) / (ms * 1e-3) / 1e9 : 0.0;
}

Row measure(Executor& executor, const Implementation& impl, const LaunchPolicy& requested,
            const Subject& subject, const TimingPlan& timing, const std::string& experiment) {
  Row row;
  row.experiment = experiment;
  row.impl = impl.name;
  row.backend = backend_name(impl.backend);
  row.toolchain = executor.toolchain();
  row.input = subject.input;
  row.size = subject.data.size();
  row.input_stats = stats_of(subject.reference);
  row.policy = executor.resolve(impl, requested, row.size, timing.runs_between_zeroings());
  row.global_atomics = impl.global_atomics(row.policy, row.size);
  row.bytes_read = impl.bytes_read(row.policy, row.size);
  row.floor_impl = floor_for(impl).name;

  auto mismatch = check_output(impl, executor.run_once(impl, row.policy), subject);
  row.check_passed = !mismatch;
  if (mismatch) {
    row.check_detail = *mismatch;
    return row;  // a wrong answer is never timed
  }
  row.samples_ms = executor.time_each(impl, row.policy, timing.warmups, timing.reps);
  row.summary = summarize(row.samples_ms);
  if (timing.lesson_reps > 0)
    row.lesson_mean_ms = executor.time_back_to_back(impl, row.policy, timing.lesson_warmups, timing.lesson_reps);
  row.gbps = gigabytes_per_second(row.bytes_read, row.summary.median);
  return row;
}

void attach_floors(std::vector<Row>& rows) {
  for (auto& row : rows) {
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
}  // namespace

nlohmann::json Row::to_json() const {
  return {{"experiment", experiment},
          {"impl", impl},
          {"backend", backend},
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
          {"bytes_read", bytes_read},
          {"samples_ms", samples_ms},
          {"summary_ms", summary.to_json()},
          {"lesson_mean_ms", optional_json(lesson_mean_ms)},
          {"gbps", gbps},
          {"floor_impl", floor_impl},
          {"pct_of_floor", optional_json(pct_of_floor)}};
}

}  // namespace hs
