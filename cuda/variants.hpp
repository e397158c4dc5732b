// GPU variants as the registry (study/driver/registry.cpp) sees them: plain C++, no
// CUDA headers. A variant is a launch policy resolver plus a launch plan; the
// kernel bodies live in device-only sources (cuda/*_kernels.cuh) that nvcc
// compiles into this binary and NVRTC can compile at run time, so one plan
// runs under any toolchain.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "driver/executor.hpp"
#include "driver/policy.hpp"

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

// partitioned's pass counts P, each pass privatizing 256/P bins, and the
// lesson's exercise's P (docs/study-spec.md section 1, "privatizes 64 bins at
// a time and makes 4 passes"): --passes and the experiments take them from here.
inline constexpr std::array<int, 4> kPassCounts = {1, 2, 4, 8};
inline constexpr int kLessonPasses = 4;

// What a policy is resolved against: the device's limits, and how many
// blocks of a kernel one SM holds at once (the CUDA occupancy API, asked of
// the executor whose code will run, so registers count too).
struct LaunchTarget {
  DeviceLimits limits;
  std::function<int(const std::string& kernel, int block, std::size_t dynamic_shared)> blocks_per_sm;
};

// The device buffers one run of a plan works on.
struct Buffers {
  const unsigned char* data = nullptr;  // the input
  std::uint64_t n = 0;                  // its bytes
  void* out = nullptr;                  // the 256 bins (of the policy's counter width), or a floor's byte sum
  void* scratch = nullptr;              // at least the plan's scratch_bytes, all zero
};

// A kernel's one parameter: its family's argument struct (cuda/*_constants.cuh),
// by value, as the bytes cudaLaunchKernel and cuLaunchKernel copy.
class KernelArgs {
 public:
  template <typename Args>
  KernelArgs(const Args& args) : size_(sizeof args) {  // implicit: a plan returns its family's struct
    static_assert(std::is_trivially_copyable_v<Args> && sizeof(Args) <= kMaxBytes && alignof(Args) <= kAlign);
    std::memcpy(bytes_, &args, sizeof args);
  }
  void* data() { return bytes_; }
  std::size_t size() const { return size_; }

 private:
  static constexpr std::size_t kMaxBytes = 64, kAlign = 16;
  alignas(kAlign) unsigned char bytes_[kMaxBytes];
  std::size_t size_;
};

// One kernel launch of a run. `args` packs the kernel's argument struct
// from the buffers when the run is enqueued, so one plan runs on any
// buffers, under any executor (nvcc's, or a module's).
struct KernelLaunch {
  std::string kernel;        // name expression in the device sources, e.g. "hs_per_block<unsigned int>"
  unsigned grid = 0, block = 0;
  std::size_t shared_bytes = 0;  // dynamic shared memory
  // GPU memory the run's buffers must have as scratch (lane_shared's spread
  // entries). The contract (cuda/shared_device.hpp, SharedDevice::scratch):
  // the scratch is zero when a launch starts, since it is zeroed whenever it
  // is allocated, and every launch must leave it zero.
  std::size_t scratch_bytes = 0;
  std::function<KernelArgs(const Buffers&)> args;
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
