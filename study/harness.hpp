// The one harness for every implementation, CPU and GPU: correct first (all
// 256 bins against the CPU reference from zeroed bins, then sum == length),
// then timing (raw per-run samples, and the lesson's own mean-of-10 method).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "study/bins.hpp"
#include "study/executor.hpp"
#include "study/policy.hpp"
#include "study/registry.hpp"
#include "study/stats.hpp"

namespace hs {

struct TimingPlan {
  int warmups = 3;          // untimed runs before the per-run samples
  int reps = 20;            // runs timed one by one (raw samples kept)
  int lesson_warmups = 3;   // the lesson's method (STUDY-SPEC.md 1): 3 warm-ups,
  int lesson_reps = 10;     // then the mean of 10 back-to-back runs; 0 skips it
  // The most runs between two zeroings of the bins: what counter widths must survive.
  int runs_between_zeroings() const;
  nlohmann::json to_json() const;
};

// One input as the harness sees it: its bytes and their reference histogram.
struct Subject {
  std::string input;
  std::span<const std::uint8_t> data;
  const Bins& reference;
};

struct Row {
  std::string experiment, impl, backend, toolchain, input;
  std::uint64_t size = 0;
  LaunchPolicy policy;
  BinStats input_stats;
  bool check_passed = false;
  std::string check_detail;  // the first mismatch, when the check failed
  std::optional<std::uint64_t> global_atomics;
  std::uint64_t bytes_read = 0;
  std::vector<double> samples_ms;
  Summary summary;
  std::optional<double> lesson_mean_ms;
  double gbps = 0;                     // bytes_read over the median time
  std::optional<double> pct_of_floor;  // against the floor measured in the same run
  std::string floor_impl;

  nlohmann::json to_json() const;
};

// Checks one implementation on `subject`, then times it (if the check passed).
Row measure(Executor& executor, const Implementation& impl, const LaunchPolicy& requested,
            const Subject& subject, const TimingPlan& timing, const std::string& experiment);

// Fills pct_of_floor for every row whose floor (same toolchain, input and
// size) is among `rows`.
void attach_floors(std::vector<Row>& rows);

double gigabytes_per_second(std::uint64_t bytes, double ms);

}  // namespace hs
