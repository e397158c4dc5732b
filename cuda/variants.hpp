// GPU variants as the registry (study/registry.cpp) sees them: plain C++, no
// CUDA headers. A variant is a launch policy resolver plus a launch plan; the
// kernel bodies live in device-only sources (cuda/*_kernels.cuh) that nvcc
// compiles into this binary and NVRTC can compile at run time, so one plan
// runs under any toolchain.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "study/executor.hpp"
#include "study/policy.hpp"

namespace hs::gpu {

struct DeviceLimits {
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  std::size_t shared_per_block = 48 << 10;        // default per-block limit
  std::size_t shared_per_block_optin = 48 << 10;  // with cudaFuncAttributeMaxDynamicSharedMemorySize
  std::size_t shared_per_sm = 64 << 10;
};

// What a policy is resolved against: the device's limits, and how many
// blocks of a kernel one SM holds at once (the CUDA occupancy API, asked of
// the executor whose code will run, so registers count too).
struct LaunchTarget {
  DeviceLimits limits;
  std::function<int(const std::string& kernel, int block, std::size_t dynamic_shared)> blocks_per_sm;
};

// One kernel launch of a run. Every kernel has the same parameter list,
// (const unsigned char* data, unsigned long long n, Out* out, unsigned
// slice), and may take a fifth, `unsigned* scratch`: the executor passes
// all five (a kernel reads only the parameters it declares), so the nvcc
// and NVRTC executors launch any of them the same way.
struct KernelLaunch {
  std::string kernel;        // name expression in the device sources, e.g. "hs_per_block<unsigned int>"
  unsigned grid = 0, block = 0;
  std::size_t shared_bytes = 0;  // dynamic shared memory
  unsigned slice = 0;        // the kernel's fourth argument (a pass's first bin)
  // GPU memory every launch of the run gets as its fifth argument
  // (lane_shared's spread entries); no launch may expect what it holds
  // unless it says zeroed_scratch.
  std::size_t scratch_bytes = 0;
  // The launch expects the scratch's first scratch_bytes zero and leaves
  // them zero; prepare() zeroes them once, outside any timed region.
  bool zeroed_scratch = false;
};

struct Variant {
  // Fills the defaults of `requested` (grid, block, copies, passes, shared
  // bytes, counter width for `runs` runs of n bytes between zeroings) and
  // throws UsageError for what this device cannot run.
  LaunchPolicy (*resolve)(LaunchPolicy requested, std::uint64_t n, int runs, const LaunchTarget& target);
  // The launches of one run, in order; empty for library variants.
  std::vector<KernelLaunch> (*plan)(const LaunchPolicy& policy, std::uint64_t n);
  bool library = false;  // runs through a host library (CUB): nvcc toolchain only
};

// Every kernel instantiation a plan can name (name expressions of
// cuda/*_kernels.cuh), found by asking each variant's plan for every
// counter width and pass count it takes: what an NVRTC build adds with
// nvrtcAddNameExpression and what the nvcc executor's table must hold.
const std::vector<std::string>& kernel_names();

class SharedDevice;
// The executor for the kernels nvcc compiled into this binary, on the run's
// shared device. Throws Unavailable when this binary has no code for it.
std::unique_ptr<Executor> make_nvcc_executor(std::shared_ptr<SharedDevice> device);

}  // namespace hs::gpu
