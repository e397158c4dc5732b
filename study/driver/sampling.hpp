// How samples are taken, so that a comparison differs only in what it
// compares (docs/controls.md): the cache mode, where the bins live, the stopping
// rule, and the rotating order in which several executors take turns.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hs {

// cold: the L2 is flushed before every sample (nvbench's cold measurement),
// so each run reads its input from DRAM; hot: samples run back to back, and an
// input smaller than the L2 is partly served from it.
enum class CacheMode { cold, hot };
std::string cache_mode_name(CacheMode mode);
// Throws UsageError for anything but "cold" or "hot".
CacheMode parse_cache_mode(const std::string& name);

// Where a run's output bins start: this many bytes past a 2 MiB boundary.
// The placement experiment sweeps it; every other run uses 0 (where a fresh
// cudaMalloc puts a small buffer). Global atomics on the H200 run
// 2.09x faster or slower from this offset alone.
struct Placement {
  std::uint32_t bins_offset = 0;
  static constexpr std::uint32_t kAlignment = 128;             // one L2 line: the sweep's finest step
  static constexpr std::uint32_t kMaxOffset = 1u << 20;        // 1 MiB
  // Throws UsageError unless the offset is a multiple of kAlignment up to kMaxOffset.
  static Placement checked(std::int64_t bins_offset);
};

// When to stop taking samples of one case: at least `min_samples` (after
// `warmups`), then until the median's noise is at most `target_noise`, or
// `max_samples` were taken, or `max_seconds` of sampling passed.
struct StopRule {
  int min_samples = 20;
  int max_samples = 200;
  double target_noise = 0.005;  // nvbench's default max noise (0.5%)
  double max_seconds = 5.0;
  nlohmann::json to_json() const;
};

// Why sampling stopped: "noise" (the target was reached), "max_samples", "max_time".
struct StopOutcome {
  std::string reason;
  double noise = 0;  // noise at the stop; NaN with fewer than 2 samples
};

// The noise of a median: half the width of its distribution-free 95%
// confidence interval (order statistics n/2 -+ 0.98 sqrt(n)), over the
// median. Unlike the samples' spread it shrinks as samples accrue, so it can
// serve as a stopping target. NaN for fewer than 2 samples.
double median_noise(std::vector<double> samples);

// Whether to stop after `taken` samples (`used` of them not throttled) and
// `seconds` of sampling; nullopt-like empty reason: go on.
StopOutcome should_stop(const StopRule& rule, const std::vector<double>& used, int taken, double seconds);

// The order in which `members` executors take their turn in round `round`:
// A B C, B C A, C A B, ...: over any `members` consecutive rounds every
// executor holds every position once.
std::vector<int> rotation(int members, int round);

// One timed run as an executor saw it: milliseconds, and the SM clock
// measured right after it (NaN where the executor cannot measure it).
struct Sample {
  double ms = 0;
  double clock_mhz = 0;
};

}  // namespace hs
