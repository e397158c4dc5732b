// Where implementations run: the CPU, or a GPU through one toolchain (the
// kernels nvcc built into this binary, or kernels an NVRTC library compiled
// at run time). The harness (study/harness.hpp) drives every executor the
// same way: load the input once, check one run, then time.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "study/bins.hpp"
#include "study/policy.hpp"
#include "study/registry.hpp"

namespace hs {

// What one checked run produced: bins for histograms, a byte sum for floors.
struct RunOutput {
  Bins bins{};
  std::uint64_t byte_sum = 0;
};

class Executor {
 public:
  virtual ~Executor() = default;
  // "cpu", "nvcc 13.0.88", "nvrtc 12.6.85": the toolchain label in result rows.
  virtual std::string toolchain() const = 0;
  // Compiler, version and flags behind this executor's code, for the record.
  virtual nlohmann::json describe() const = 0;
  virtual bool supports(const Implementation& impl) const = 0;
  // Fills the defaults of `requested` for an input of n bytes that will be
  // run up to `runs` times between zeroings, and picks a counter width that
  // cannot overflow. Throws UsageError for a policy this device cannot run.
  virtual LaunchPolicy resolve(const Implementation& impl, LaunchPolicy requested, std::uint64_t n,
                               int runs) const = 0;
  virtual void load(std::span<const std::uint8_t> data) = 0;
  // Zeroes the bins, runs once, reads back.
  virtual RunOutput run_once(const Implementation& impl, const LaunchPolicy& policy) = 0;
  // Zeroes the bins (outside the timing), `warmups` untimed runs, then
  // `reps` runs each timed on its own; milliseconds per run.
  virtual std::vector<double> time_each(const Implementation& impl, const LaunchPolicy& policy, int warmups,
                                        int reps) = 0;
  // The lesson's method: `warmups` runs, then `reps` back-to-back runs
  // timed as one; mean milliseconds per run.
  virtual double time_back_to_back(const Implementation& impl, const LaunchPolicy& policy, int warmups,
                                   int reps) = 0;
};

std::unique_ptr<Executor> make_cpu_executor();

}  // namespace hs
