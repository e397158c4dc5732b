#include "study/registry.hpp"

#include "build_config.hpp"
#include "cpu_openmp/openmp_fast.hpp"
#include "cpu_openmp/openmp_histogram.hpp"
#include "study/error.hpp"
#include "cuda/variants.hpp"  // plain C++: lane_shared's fold, for its declared atomics
#if HISTOSTUDY_HAVE_CUDA
#define HS_GPU(variant) &gpu::variant
#else
#define HS_GPU(variant) nullptr
#endif

namespace hs {
namespace {

// Bytes moved and global atomics, declared once per idea.
std::uint64_t reads_input_once(const LaunchPolicy&, std::uint64_t n) { return n; }
std::uint64_t reads_input_per_pass(const LaunchPolicy& p, std::uint64_t n) { return n * std::uint64_t(p.passes); }
std::optional<std::uint64_t> no_global_atomics(const LaunchPolicy&, std::uint64_t) { return 0; }
std::optional<std::uint64_t> one_atomic_per_byte(const LaunchPolicy&, std::uint64_t n) { return n; }
// Every block merges all 256 bins once, whatever the passes or copies.
std::optional<std::uint64_t> one_merge_per_block(const LaunchPolicy& p, std::uint64_t) {
  return std::uint64_t(p.grid) * kBins;
}
// Blocks store rows; each block of the fold merges all 256 bins once.
std::optional<std::uint64_t> one_merge_per_fold_block(const LaunchPolicy& p, std::uint64_t) {
  return gpu::fold_blocks(std::uint64_t(p.grid)) * kBins;
}
std::optional<std::uint64_t> hidden_by_library(const LaunchPolicy&, std::uint64_t) { return std::nullopt; }

void run_reference(std::span<const std::uint8_t> data, Bins& bins, const LaunchPolicy&) {
  cpu::reference(data, bins);
}
void run_openmp_private(std::span<const std::uint8_t> data, Bins& bins, const LaunchPolicy& p) {
  cpu::openmp_private(data, bins, p.threads);
}
void run_openmp_fast(std::span<const std::uint8_t> data, Bins& bins, const LaunchPolicy& p) {
  cpu::openmp_fast(data, bins, p.threads);
}
std::uint64_t run_openmp_read_floor(std::span<const std::uint8_t> data, const LaunchPolicy& p) {
  return cpu::openmp_read_floor(data, p.threads);
}

const std::vector<Implementation> kImplementations = {
    // name, backend, family, idea, counts, floor, bytes_read, global_atomics, cpu_histogram, cpu_floor, gpu
    {"reference", Backend::cpu, "cpu_openmp/openmp_histogram.cpp",
     "single thread, one increment per byte: the oracle", true, false, reads_input_once, no_global_atomics,
     run_reference},
    {"openmp_private", Backend::cpu, "cpu_openmp/openmp_histogram.cpp",
     "per-thread private 256 counters, merged once at the end", true, false, reads_input_once,
     no_global_atomics, run_openmp_private},
    {"openmp_fast", Backend::cpu, "cpu_openmp/openmp_fast.cpp",
     "8 interleaved 16-bit sub-histograms per thread, 8-byte reads, dynamic chunks", true, false,
     reads_input_once, no_global_atomics, run_openmp_fast},
    {"openmp_read_floor", Backend::cpu, "cpu_openmp/openmp_histogram.cpp",
     "parallel 8-byte reads summed, no counting: the CPU read floor", false, true, reads_input_once,
     no_global_atomics, nullptr, run_openmp_read_floor},
    {"sum_bytes", Backend::cuda, "cuda/floor_kernels.cuh",
     "the lesson's floor: byte loads, grid-stride, per-thread sum, no atomics", false, false,
     reads_input_once, no_global_atomics, nullptr, nullptr, HS_GPU(kSumBytes)},
    {"read_floor", Backend::cuda, "cuda/floor_kernels.cuh",
     "16-byte loads summed, no atomics: the real floor of any histogram", false, true, reads_input_once,
     no_global_atomics, nullptr, nullptr, HS_GPU(kReadFloor)},
    {"global", Backend::cuda, "cuda/lesson_kernels.cuh", "one global atomicAdd per byte", true, false,
     reads_input_once, one_atomic_per_byte, nullptr, nullptr, HS_GPU(kGlobal)},
    {"per_block", Backend::cuda, "cuda/lesson_kernels.cuh",
     "the lesson's privatized kernel: shared 256-bin copy per block, merged by atomicAdd", true, false,
     reads_input_once, one_merge_per_block, nullptr, nullptr, HS_GPU(kPerBlock)},
    {"per_warp", Backend::cuda, "cuda/lesson_kernels.cuh",
     "one 256-counter shared copy per warp, merged per block", true, false, reads_input_once,
     one_merge_per_block, nullptr, nullptr, HS_GPU(kPerWarp)},
    {"partitioned", Backend::cuda, "cuda/lesson_kernels.cuh",
     "P passes over the input, each privatizing 256/P bins (the lesson's exercise)", true, false,
     reads_input_per_pass, one_merge_per_block, nullptr, nullptr, HS_GPU(kPartitioned)},
    {"lane_shared", Backend::cuda, "cuda/fast_kernels.cuh",
     "one set of 32-bit lane-column counters a block, shared by its warps: conflict-free shared atomics at full "
     "occupancy; blocks store their sums, a second kernel folds them",
     true, false, reads_input_once, one_merge_per_fold_block, nullptr, nullptr, HS_GPU(kLaneShared)},
    {"cub", Backend::cuda, "cuda/cub_histogram.cu", "cub::DeviceHistogram::HistogramEven: the library peer",
     true, false, reads_input_once, hidden_by_library, nullptr, nullptr, HS_GPU(kCub)},
};

}  // namespace

std::string_view backend_name(Backend b) { return b == Backend::cpu ? "cpu" : "cuda"; }

const std::vector<Implementation>& implementations() { return kImplementations; }

const Implementation& find_implementation(std::string_view name) {
  for (const auto& impl : kImplementations)
    if (impl.name == name) return impl;
  std::string known;
  for (const auto& impl : kImplementations) known += (known.empty() ? "" : ", ") + std::string(impl.name);
  throw UsageError("unknown implementation '" + std::string(name) + "' (known: " + known + ")");
}

const Implementation& floor_for(const Implementation& impl) {
  return find_implementation(impl.backend == Backend::cpu ? "openmp_read_floor" : "read_floor");
}

}  // namespace hs
