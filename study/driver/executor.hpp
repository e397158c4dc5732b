// Where implementations run: the CPU, or a GPU through one toolchain (the
// kernels nvcc built into this binary, or kernels an NVRTC library compiled
// at run time). The harness (study/driver/harness.hpp) drives every executor the
// same way: load the input, check one run, then take samples, interleaved
// sample by sample with the other executors of the same backend. GPU
// executors of one run share one device's buffers and stream
// (cuda/shared_device.hpp), so two toolchains differ only in their code.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/bins.hpp"
#include "driver/policy.hpp"
#include "driver/registry.hpp"
#include "driver/sampling.hpp"

namespace hs {

// What one checked run produced: bins for histograms, a byte sum for floors.
struct RunOutput {
  Bins bins{};
  std::uint64_t byte_sum = 0;
};

// One implementation on one executor, checked and ready to sample. The
// harness calls sample() on several samplers in a rotating order, then
// collect() on each; nothing here zeroes or reads the bins between the two
// events of a sample.
class Sampler {
 public:
  virtual ~Sampler() = default;
  // One untimed run.
  virtual void warm() = 0;
  // Zeroes the bins, outside any timed region, before counters could overflow.
  virtual void reset_bins() = 0;
  // One timed run (in cold mode preceded by an L2 flush, outside the timing).
  virtual void sample() = 0;
  // Waits for the samples taken since the last collect and returns them in order.
  virtual std::vector<Sample> collect() = 0;
};

class Executor {
 public:
  virtual ~Executor() = default;
  // "cpu", "nvcc 13.0.88", "nvrtc 12.6.85": the toolchain label in result rows.
  virtual std::string toolchain() const = 0;
  // The code that runs: "sass sm_90" (built for this GPU's arch family),
  // "ptx compute_75, compiled by the driver" (JIT-compiled at load time),
  // or "host" on the CPU. JIT changes the code that ran, so rows say which.
  virtual std::string code_path() const = 0;
  // For an A/A control entry (study/driver/control.hpp), the toolchain it repeats; "" otherwise.
  virtual std::string control_of() const { return ""; }
  // Compiler, version and flags behind this executor's code, for the record.
  virtual nlohmann::json describe() const = 0;
  virtual bool supports(const Implementation& impl) const = 0;
  // Fills the defaults of `requested` for an input of n bytes that will be
  // run up to `runs` times between zeroings, and picks a counter width that
  // cannot overflow. Throws UsageError for a policy this device cannot run.
  virtual LaunchPolicy resolve(const Implementation& impl, LaunchPolicy requested, std::uint64_t n,
                               int runs) const = 0;
  virtual void load(std::span<const std::uint8_t> data) = 0;
  // Zeroes the bins at `placement`, runs once, reads back.
  virtual RunOutput run_once(const Implementation& impl, const LaunchPolicy& policy,
                             const Placement& placement) = 0;
  // A sampler of `impl` writing its bins at `placement`. The cache mode is
  // what the executor honours: a CPU executor runs hot.
  virtual std::unique_ptr<Sampler> sampler(const Implementation& impl, const LaunchPolicy& policy,
                                           const Placement& placement, CacheMode mode) = 0;
  // The cache mode samples of this executor are taken in when `requested`.
  virtual CacheMode honoured(CacheMode requested) const = 0;
  // The lesson's method: zeroes the bins, `warmups` runs, then `reps`
  // back-to-back runs timed as one; mean milliseconds per run.
  virtual double time_back_to_back(const Implementation& impl, const LaunchPolicy& policy,
                                   const Placement& placement, int warmups, int reps) = 0;
  // Where this executor's buffers lie for `placement` (each address modulo
  // 2 MiB), for the record; null where addresses mean nothing (the CPU).
  virtual nlohmann::json placement_record(const Placement& placement) const = 0;
  // The device's peak SM clock, against which each sample's measured clock
  // is judged throttled or not; 0: the executor measures no clock.
  virtual double peak_clock_mhz() const = 0;
};

std::unique_ptr<Executor> make_cpu_executor();

}  // namespace hs
