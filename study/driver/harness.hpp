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

#include "driver/bins.hpp"
#include "driver/executor.hpp"
#include "driver/policy.hpp"
#include "driver/registry.hpp"
#include "driver/sampling.hpp"
#include "driver/stats.hpp"

namespace hs {

struct TimingPlan {
  int warmups = 3;          // untimed runs of each executor before its samples
  StopRule stop;            // how many samples: min, then to a target noise, within caps
  CacheMode cache = CacheMode::cold;
  // A sample whose SM clock is below this fraction of the device's peak is
  // throttled: kept in the log, left out of the statistics. 0.75: nvbench's
  // default throttle threshold.
  double throttle_fraction = 0.75;
  int lesson_warmups = 3;   // the lesson's method (docs/study-spec.md section 1): 3 warm-ups,
  int lesson_reps = 10;     // then the mean of 10 back-to-back runs; 0 skips it
  // The most runs between two zeroings of the bins: what counter widths
  // must survive. Sampling zeroes the bins (outside any timed region) every
  // this many runs, so longer sampling never widens the counters.
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
  std::vector<std::string> roles;  // the registry's (registry.hpp, kRoles)
  nlohmann::json device;           // the GPU it ran on (index, uuid, name, pci_bus_id); null on the CPU
  std::uint64_t size = 0;
  LaunchPolicy policy;
  BinStats input_stats;
  bool check_passed = false;
  std::string check_detail;  // the first mismatch, when the check failed
  std::optional<std::uint64_t> global_atomics;
  std::optional<std::uint64_t> global_atomic_bytes;  // what those updates add (global_atomic_bytes)
  std::uint64_t bytes_read = 0;
  std::vector<double> samples_ms;  // the samples the statistics use: every timed one not throttled
  Summary summary;
  // Every sample as taken, in order: its time, its position in the rotation
  // (0: first), the SM clock after it (null where not measured), whether it was throttled.
  struct LoggedSample {
    double ms = 0;
    int position = 0;
    double clock_mhz = 0;
    bool throttled = false;
  };
  std::vector<LoggedSample> sample_log;
  std::string cache_mode;            // cold or hot, as the executor honoured it
  StopOutcome stop;                  // why sampling stopped, and the noise then
  // What was sampled in rotation with this row, in round-0 order: the
  // toolchains, or where the entries differ in implementation, "toolchain impl".
  std::vector<std::string> group;
  std::string control_of;            // an A/A control entry: the toolchain it repeats; "" otherwise
  std::string code;                  // the executor's code_path(): SASS for this GPU, driver-compiled PTX, host
  nlohmann::json placement;          // the executor's placement record (null on the CPU)
  std::optional<double> lesson_mean_ms;
  double gbps = 0;                     // bytes_read over the median time
  std::optional<double> pct_of_floor;  // against the floor measured in the same run
  std::string floor_impl;
  // CPU rows: what the rest of the host did while their rotation ran
  // (study/platform/host_load.hpp); null on the GPU.
  nlohmann::json host_load;

  nlohmann::json to_json() const;
};

// One thing to time: an implementation with the policy and placement its
// case asks for, on one executor.
struct MeasureEntry {
  Executor* executor = nullptr;
  const Implementation* impl = nullptr;
  LaunchPolicy requested;
  Placement placement;
  std::string experiment;
};

// Checks every entry on `subject`, then times those that passed, sample by
// sample in a rotating order (A B C, B C A, C A B, ...) until every one
// meets the stopping rule at the end of a whole rotation, so each entry
// holds each position equally often, and a stretch of the machine running
// slow lands on all of them alike. One row per entry, in their order.
std::vector<Row> measure(const std::vector<MeasureEntry>& entries, const Subject& subject, const TimingPlan& timing);

// One implementation on every executor of `members`: its toolchains
// compared in rotation.
std::vector<Row> measure(const std::vector<Executor*>& members, const Implementation& impl,
                         const LaunchPolicy& requested, const Placement& placement, const Subject& subject,
                         const TimingPlan& timing, const std::string& experiment);

// Below this size a percent of the read floor means nothing (2,500% was
// seen at 1 byte): fixed launch and timer costs set both times.
inline constexpr std::uint64_t kMinFloorBytes = 1u << 20;

// Fills pct_of_floor for every row of at least kMinFloorBytes whose floor
// (same toolchain, input and size) is among `rows`.
void attach_floors(std::vector<Row>& rows);

double gigabytes_per_second(std::uint64_t bytes, double ms);

}  // namespace hs
