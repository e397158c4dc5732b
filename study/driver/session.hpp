// One run of the study as a whole: the executors it measures with (the CPU,
// one GPU executor per toolchain on one shared device, the A/A control), the
// environment record, the measurements, and the result file they make. The
// command line (study/cli/run.cpp, env.cpp, ...) parses options and calls these.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/executor.hpp"
#include "driver/results.hpp"
#include "driver/study.hpp"

namespace hs {

struct Executors {
  std::vector<std::unique_ptr<Executor>> owned;
  std::string gpu_absent;            // why there is no GPU executor, if there is none
  std::vector<std::string> skipped;  // toolchain entries left out (modules:DIR), a line each
  std::string device_line;           // "GPU 0: NVIDIA H200 (GPU-..., 00000000:00:06.0)": which GPU, said once
  std::vector<Executor*> all() const;
};

// The CPU executor, and one GPU executor per toolchain spec ("nvcc",
// "nvrtc", "nvrtc:LIBRARY", "modules:DIR"; none named: nvcc), in order, plus
// the A/A control entry (--control auto|none|SPEC), all on one shared
// device: `device` is an index or a UUID ("" the first GPU). Without a
// usable GPU the GPU executors are left out and `gpu_absent` says why,
// unless a device was named: then that is an error. A spec of unknown
// spelling is a UsageError in every build; a build without CUDA refuses
// any toolchain named (and a --control spec) as a UsageError too.
Executors make_executors(const std::vector<std::string>& toolchains = {}, const std::string& control = "none",
                         const std::string& device = "");

// The first executor of `ex` that runs `impl`. Throws Unavailable saying why
// none does (no GPU here, and why).
Executor& executor_for(const Executors& ex, const Implementation& impl);

// A GPU that --device all or a list names: its index and its line ("1:
// NVIDIA H200, GPU-..., PCI 00000000:00:07.0").
struct NamedGpu {
  int index;
  std::string line;
};

// The GPUs "all" or a --device list names, in the order named. Throws
// Unavailable without a usable GPU, UsageError for one not here or named twice.
std::vector<NamedGpu> gpus_named(const std::string& spec);

// The environment record of a run on `ex` (host, build, driver, executors).
nlohmann::json environment_record(const Executors& ex);

// NVML's snapshot of the run's GPU (clocks, power, temperature...); null without one.
nlohmann::json gpu_state(const Executors& ex);

// Measures `cases` and returns the run's record. An error part-way ends the
// run with every measurement taken kept, and the record says where
// (RunRecord::incomplete).
RunRecord record_run(const StudyRequest& request, const std::vector<Case>& cases, const Executors& ex,
                     const std::vector<std::string>& argv, const std::function<void(const std::string&)>& progress);

// Writes the record as DIR/<date>_<gpu or cpu>_<toolchains>.json, the GPU
// with its index (<name>-gpuN) in a run of several GPUs (a run id); a plain
// name should that be refused, so no measurement is lost to a file name.
// Returns the path.
std::string save_run(const RunRecord& record, const Executors& ex, const std::string& dir);

}  // namespace hs
