// The study driver: which implementations run on which inputs, sizes and
// launch configurations (an experiment), on which executors, in what order.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/executor.hpp"
#include "driver/harness.hpp"
#include "driver/policy.hpp"

namespace hs {

// One measurement to make: an implementation on an input at a size, with a
// requested launch policy (zeros are filled by the executor).
struct Case {
  std::string experiment;
  std::string input;
  std::uint64_t size = 0;
  const Implementation* impl = nullptr;
  LaunchPolicy policy;
  Placement placement;  // where the bins lie (the placement experiment sweeps it)
};

struct StudyRequest {
  std::vector<std::string> experiments;  // lesson, sweep, blocks; empty: lesson + sweep
  std::vector<std::string> impls;        // replaces the experiments' implementations
  std::vector<std::string> inputs;       // replaces their inputs
  std::vector<std::uint64_t> sizes;      // replaces their sizes
  LaunchPolicy policy;                   // grid, block, threads set by the user
  int passes = 0;                        // P for implementations that take passes; 0: the experiment's
  std::vector<Placement> placements;     // bins offsets; empty: the experiment's (placement: its sweep; else 0)
  TimingPlan gpu_timing;
  TimingPlan cpu_timing = cpu_default_timing();
  // The GPU-only options the user named besides a grid and block (--cache,
  // --toolchain, ...): a run with no GPU case refuses them all.
  std::vector<std::string> gpu_options;
  // The CPU is slow: one warm-up, 5 to 10 samples within a second, hot, no lesson method.
  static TimingPlan cpu_default_timing();
};

// Expands a request into cases for the given executors; the read floor of
// each backend is added so every row has a floor from the same run. Every
// input and size is checked here, before any measurement: throws UsageError
// for unknown names, sizes of 0 or beyond memory, and a grid, block or
// other GPU-only option in a run with no GPU implementation (its CPU
// implementations run without them); Error for unreadable, empty or
// non-regular files. Repeated cases are made once.
std::vector<Case> plan_cases(const StudyRequest& request, const std::vector<Executor*>& executors);

// "N cases; lesson: 12 implementations on uniform, ... at 67,109,475 B; ...":
// what will run, said before it runs.
std::string describe_plan(const std::vector<Case>& cases);

// "custom cpu reference uniform 611 B (threads=1 counters=64bit)": one
// measurement (", bins +128" where the bins are offset), names escaped
// (printable), as progress lines and a dry run's plan say it.
std::string measurement_label(const std::string& experiment, const std::string& toolchain, std::string_view impl,
                              const std::string& input, std::uint64_t size, const LaunchPolicy& policy,
                              std::uint64_t bins_offset);

// What `cases` will measure, one measurement_label a case and executor, with
// the policy each executor resolves: run --dry-run's plan.
std::vector<std::string> plan_lines(const std::vector<Case>& cases, const std::vector<Executor*>& executors,
                                    const StudyRequest& request);

// Runs every case on every executor that supports it, one input at a time
// (generated once, reference computed once); the executors of a case take
// their samples in rotation (harness.hpp, measure). `progress` gets a line
// per measurement. Rows are appended to `rows` as they are measured, so an
// error part-way leaves every earlier measurement there.
void run_cases(const std::vector<Case>& cases, const std::vector<Executor*>& executors, const StudyRequest& request,
               const std::function<void(const std::string&)>& progress, std::vector<Row>& rows);

}  // namespace hs
