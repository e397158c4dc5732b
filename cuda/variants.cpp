// The GPU implementations, each declared once (gpu::implementations(), at
// the end) beside its launch policy and plan (cuda/variants.hpp). Plain C++,
// compiled with or without CUDA: the plans name kernels by their name
// expressions, so the nvcc executor and an NVRTC executor run the same plan,
// and the launch constants come from the kernels' own headers.
#include "cuda/variants.hpp"

#include <algorithm>
#include <climits>
#include <string>
#include <string_view>

#include "cuda/fast_constants.cuh"
#include "cuda/floor_constants.cuh"
#include "cuda/lesson_constants.cuh"
#include "platform/error.hpp"
#include "driver/registry.hpp"
#include "driver/sizes.hpp"

namespace hs::gpu {
namespace {

// The lesson's launch: docs/study-spec.md section 1, "Grid: 1024 blocks x 256
// threads". Every GPU variant of the lesson defaults to it so rows compare
// like for like; lane_shared sizes its own (resolve_lane_shared), and cub
// chooses its own launch.
constexpr int kLessonGrid = 1024;
constexpr int kLessonBlock = 256;
// gridDim.x can be at most 2^31 - 1 (CUDA C++ Programming Guide, table of
// technical specifications per compute capability).
constexpr long long kMaxGrid = INT_MAX;
constexpr unsigned kWarpSize = HS_LESSON_WARP;
static_assert(HS_LESSON_BINS == kBins);
constexpr std::uint64_t kSharedCounterBytes = HS_LESSON_COUNTER_BYTES;
constexpr std::uint64_t kBinsSharedBytes = kBins * kSharedCounterBytes;

std::string counter_type(int bits) { return bits == 64 ? "unsigned long long" : "unsigned int"; }

std::string partitioned_kernel(int bits, int width) {
  return "hs_partitioned<" + counter_type(bits) + ", " + std::to_string(width) + ">";
}

// The counter width for the global bins: 32 bits when `runs` runs of n bytes
// cannot overflow a 32-bit bin (every byte in one bin each run), else 64.
// A request for 64 is honoured; 0 and 32 mean "as narrow as is safe".
int counter_bits_for(const LaunchPolicy& requested, std::uint64_t n, int runs, std::string_view name) {
  if (requested.counter_bits != 0 && requested.counter_bits != 32 && requested.counter_bits != 64)
    throw UsageError(std::string(name) + ": counter width " + std::to_string(requested.counter_bits) +
                     " bits is not 32 or 64");
  const std::uint64_t r = runs < 1 ? 1 : std::uint64_t(runs);
  const bool overflows_32 = n > std::uint64_t(UINT32_MAX) / r;  // n * r > 2^32 - 1, without overflow
  return overflows_32 || requested.counter_bits == 64 ? 64 : 32;
}

// Fills grid and block with the lesson's defaults and checks them against
// the device; passes, copies and shared bytes get each variant's values.
LaunchPolicy launch_shape(LaunchPolicy p, const DeviceLimits& limits, std::string_view name) {
  if (p.grid == 0) p.grid = kLessonGrid;
  if (p.block == 0) p.block = kLessonBlock;
  if (p.grid < 1 || p.grid > kMaxGrid)
    throw UsageError(std::string(name) + ": grid " + std::to_string(p.grid) + " is outside 1.." +
                     std::to_string(kMaxGrid) + " (0: the lesson's " + std::to_string(kLessonGrid) + ")");
  if (p.block < 1 || p.block > limits.max_threads_per_block)
    throw UsageError(std::string(name) + ": block size " + std::to_string(p.block) + " is outside 1.." +
                     std::to_string(limits.max_threads_per_block) + " (this GPU's threads per block; 0: the lesson's " +
                     std::to_string(kLessonBlock) + ")");
  p.passes = 1;
  p.copies = 1;
  return p;
}

void check_shared(const LaunchPolicy& p, const DeviceLimits& limits, std::string_view name) {
  if (p.shared_bytes > limits.shared_per_block_optin)
    throw UsageError(std::string(name) + ": " + with_commas(p.shared_bytes) + " bytes of shared memory per block " +
                     "exceed this GPU's " + with_commas(limits.shared_per_block_optin) + " (block size " +
                     std::to_string(p.block) + ")");
}

// Shared counters are 32-bit and zeroed per launch: one block's bytes in one
// launch, at most ceil(n / (grid * block)) * block, must stay below 2^32.
void check_block_bytes(const LaunchPolicy& p, std::uint64_t n, std::string_view name) {
  const std::uint64_t threads = std::uint64_t(p.grid) * std::uint64_t(p.block);
  const std::uint64_t rounds = n / threads + (n % threads != 0);
  if (rounds > std::uint64_t(UINT32_MAX) / std::uint64_t(p.block))
    throw UsageError(std::string(name) + ": with grid " + std::to_string(p.grid) + " x block " +
                     std::to_string(p.block) + ", one block would count up to " +
                     with_commas(rounds * std::uint64_t(p.block)) + " of the " + with_commas(n) +
                     " bytes in one launch, more than its 32-bit shared counters hold; use a larger grid");
}

// ---- floors: hs_sum_bytes, hs_read_floor --------------------------------

LaunchPolicy resolve_floor(LaunchPolicy requested, const DeviceLimits& limits, std::string_view name) {
  LaunchPolicy p = launch_shape(requested, limits, name);
  p.counter_bits = 64;  // they add into a 64-bit byte sum, whatever n
  p.shared_bytes = HS_FLOOR_SHARED_BYTES;
  check_shared(p, limits, name);
  return p;
}

LaunchPolicy resolve_sum_bytes(LaunchPolicy requested, std::uint64_t, int, const LaunchTarget& target) {
  return resolve_floor(requested, target.limits, "sum_bytes");
}
LaunchPolicy resolve_read_floor(LaunchPolicy requested, std::uint64_t, int, const LaunchTarget& target) {
  return resolve_floor(requested, target.limits, "read_floor");
}

// The input, and the 64-bit byte sum as the output.
KernelArgs floor_args(const Buffers& b) { return hs_floor_args{b.data, b.n, static_cast<unsigned long long*>(b.out)}; }

std::vector<KernelLaunch> plan_sum_bytes(const LaunchPolicy& p, std::uint64_t) {
  return {{.kernel = "hs_sum_bytes", .grid = unsigned(p.grid), .block = unsigned(p.block), .args = floor_args}};
}
std::vector<KernelLaunch> plan_read_floor(const LaunchPolicy& p, std::uint64_t) {
  return {{.kernel = "hs_read_floor", .grid = unsigned(p.grid), .block = unsigned(p.block), .args = floor_args}};
}

// ---- global -------------------------------------------------------------

LaunchPolicy resolve_global(LaunchPolicy requested, std::uint64_t n, int runs, const LaunchTarget& target) {
  const DeviceLimits& limits = target.limits;
  LaunchPolicy p = launch_shape(requested, limits, "global");
  p.counter_bits = counter_bits_for(requested, n, runs, "global");
  p.shared_bytes = 0;
  return p;
}

// The input and the bins, all 256 counted by one launch.
KernelArgs lesson_args(const Buffers& b) { return hs_lesson_args{b.data, b.n, b.out, 0}; }

std::vector<KernelLaunch> plan_global(const LaunchPolicy& p, std::uint64_t) {
  return {{.kernel = "hs_global<" + counter_type(p.counter_bits) + ">", .grid = unsigned(p.grid),
           .block = unsigned(p.block), .args = lesson_args}};
}

// ---- per_block ----------------------------------------------------------

// The privatized kernels: `copies` 256-counter shared copies a block (the
// shared bytes are the same whether static or dynamic).
LaunchPolicy resolve_copies(LaunchPolicy requested, std::uint64_t n, int runs, const DeviceLimits& limits,
                            std::string_view name, int copies) {
  LaunchPolicy p = launch_shape(requested, limits, name);
  p.counter_bits = counter_bits_for(requested, n, runs, name);
  p.copies = copies;
  p.shared_bytes = std::uint64_t(copies) * kBinsSharedBytes;
  check_shared(p, limits, name);
  check_block_bytes(p, n, name);
  return p;
}

LaunchPolicy resolve_per_block(LaunchPolicy requested, std::uint64_t n, int runs, const LaunchTarget& target) {
  return resolve_copies(requested, n, runs, target.limits, "per_block", 1);  // static
}

std::vector<KernelLaunch> plan_per_block(const LaunchPolicy& p, std::uint64_t) {
  return {{.kernel = "hs_per_block<" + counter_type(p.counter_bits) + ">", .grid = unsigned(p.grid),
           .block = unsigned(p.block), .args = lesson_args}};
}

// ---- per_warp -----------------------------------------------------------

LaunchPolicy resolve_per_warp(LaunchPolicy requested, std::uint64_t n, int runs, const LaunchTarget& target) {
  const int block = requested.block == 0 ? kLessonBlock : requested.block;
  const int copies = int((unsigned(block) + kWarpSize - 1) / kWarpSize);  // a partial last warp gets a copy too
  return resolve_copies(requested, n, runs, target.limits, "per_warp", copies);  // dynamic
}

std::vector<KernelLaunch> plan_per_warp(const LaunchPolicy& p, std::uint64_t) {
  return {{.kernel = "hs_per_warp<" + counter_type(p.counter_bits) + ">", .grid = unsigned(p.grid),
           .block = unsigned(p.block), .shared_bytes = std::size_t(p.shared_bytes), .args = lesson_args}};
}

// ---- partitioned --------------------------------------------------------

LaunchPolicy resolve_partitioned(LaunchPolicy requested, std::uint64_t n, int runs, const LaunchTarget& target) {
  const DeviceLimits& limits = target.limits;
  LaunchPolicy p = launch_shape(requested, limits, "partitioned");
  const int passes = requested.passes == 0 ? kLessonPasses : requested.passes;
  if (std::find(kPassCounts.begin(), kPassCounts.end(), passes) == kPassCounts.end()) {
    std::string counts;
    for (int p : kPassCounts) counts.append(counts.empty() ? "" : ", ").append(std::to_string(p));
    throw UsageError("partitioned: " + std::to_string(passes) + " passes is not one of " + counts +
                     " (each pass privatizes 256/P bins)");
  }
  p.passes = passes;
  p.counter_bits = counter_bits_for(requested, n, runs, "partitioned");
  p.shared_bytes = std::uint64_t(kBins / passes) * kSharedCounterBytes;  // static
  check_shared(p, limits, "partitioned");
  check_block_bytes(p, n, "partitioned");
  return p;
}

std::vector<KernelLaunch> plan_partitioned(const LaunchPolicy& p, std::uint64_t) {
  const int width = kBins / p.passes;
  std::vector<KernelLaunch> launches;
  for (int pass = 0; pass < p.passes; ++pass) {
    const unsigned first_bin = unsigned(pass * width);
    launches.push_back({.kernel = partitioned_kernel(p.counter_bits, width), .grid = unsigned(p.grid),
                        .block = unsigned(p.block), .args = [first_bin](const Buffers& b) -> KernelArgs {
                          return hs_lesson_args{b.data, b.n, b.out, first_bin};
                        }});
  }
  return launches;
}

// ---- lane_shared (cuda/fast_kernels.cuh) ---------------------------------

constexpr std::uint64_t kLaneColumnsBytes = HS_LANE_SHARED_WORDS * 4;
constexpr std::uint64_t kMaxLaneSharedBytes = 1ull << HS_ARRIVAL_SHIFT;
// Blocks an SM by the bytes each SM counts: each block has a fixed cost
// (zeroing, its sums), so small inputs want one, larger two; registers leave
// room for no third (docs/decisions/lane-shared.md, "The default grid").
constexpr std::uint64_t kOneBlockBelowPerSm = 256 << 10;
constexpr std::uint64_t kLaneSharedBlocksPerSm = 2;

std::string lane_shared_kernel(int bits) { return "hs_lane_shared<" + counter_type(bits) + ">"; }

// lane_shared's default grid: one wave of as many blocks an SM as n calls
// for (kOneBlockBelowPerSm, ...) and the SM holds (the occupancy API).
int lane_shared_grid(std::uint64_t n, int block, int counter_bits, const LaunchTarget& target) {
  const std::uint64_t sms = std::uint64_t(std::max(1, target.limits.sm_count));
  const std::uint64_t wanted = n / sms < kOneBlockBelowPerSm ? 1 : kLaneSharedBlocksPerSm;
  const int fits = target.blocks_per_sm(lane_shared_kernel(counter_bits), block, kLaneColumnsBytes);
  return int(sms * std::min<std::uint64_t>(wanted, std::uint64_t(std::max(1, fits))));
}

LaunchPolicy resolve_lane_shared(LaunchPolicy requested, std::uint64_t n, int runs, const LaunchTarget& target) {
  const DeviceLimits& limits = target.limits;
  if (n >= kMaxLaneSharedBytes)
    throw UsageError("lane_shared: " + with_commas(n) + " bytes is not below 2^" + std::to_string(HS_ARRIVAL_SHIFT) +
                     " (its merge keeps a bin's sum in " + std::to_string(HS_ARRIVAL_SHIFT) + " bits)");
  if (requested.block == 0) requested.block = std::min(HS_LANE_SHARED_BLOCK, limits.max_threads_per_block);
  if (requested.block % int(kWarpSize) != 0 || requested.block > HS_LANE_SHARED_MAX_BLOCK)
    throw UsageError("lane_shared: block size " + std::to_string(requested.block) +
                     " is not a multiple of 32 up to " + std::to_string(HS_LANE_SHARED_MAX_BLOCK) +
                     " (whole warps for its warp sums; registers allow no more)");
  const int counter_bits = counter_bits_for(requested, n, runs, "lane_shared");
  if (requested.grid == 0) requested.grid = lane_shared_grid(n, requested.block, counter_bits, target);
  LaunchPolicy p = launch_shape(requested, limits, "lane_shared");
  if (p.grid > HS_LANE_SHARED_MAX_GRID)
    throw UsageError("lane_shared: grid " + std::to_string(p.grid) + " is over " +
                     std::to_string(HS_LANE_SHARED_MAX_GRID) +
                     " (its merge counts a bin's arrivals in " + std::to_string(64 - HS_ARRIVAL_SHIFT) +
                     " bits; 0: by the input's size)");
  p.counter_bits = counter_bits;
  p.shared_bytes = kLaneColumnsBytes;  // dynamic
  check_shared(p, limits, "lane_shared");
  // The block's 32-bit columns hold what its warps count in one launch: a
  // whole number of tiles a warp, plus the < 32 head and tail bytes.
  const std::uint64_t warps = std::uint64_t(p.grid) * std::uint64_t(p.block / int(kWarpSize));
  const std::uint64_t tiles_per_warp = (n / std::uint64_t(HS_LANE_SHARED_TILE_BYTES) + 1 + warps - 1) / warps;
  if (tiles_per_warp * std::uint64_t(HS_LANE_SHARED_TILE_BYTES) * std::uint64_t(p.block / int(kWarpSize)) + 32 > UINT32_MAX)
    throw UsageError("lane_shared: with grid " + std::to_string(p.grid) +
                     ", one block would count more bytes than its 32-bit counters hold; use a larger grid");
  return p;
}

// The input, the bins, and the scratch for the spread entries.
KernelArgs lane_shared_args(const Buffers& b) { return hs_lane_shared_args{b.data, b.n, b.out, b.scratch}; }

// One launch; its spread entries live in the scratch, which is zero when it
// starts and which it leaves zero (the scratch's contract, KernelLaunch).
std::vector<KernelLaunch> plan_lane_shared(const LaunchPolicy& p, std::uint64_t) {
  return {{.kernel = lane_shared_kernel(p.counter_bits), .grid = unsigned(p.grid), .block = unsigned(p.block),
           .shared_bytes = std::size_t(p.shared_bytes), .scratch_bytes = HS_SPREAD_BYTES, .args = lane_shared_args}};
}

// ---- cub ----------------------------------------------------------------

// CUB picks its own grid, block and shared memory: recorded as 0. Its
// counters are 32-bit per chunk (cuda/cub_histogram.cu) and are added into
// global bins of the width chosen here.
LaunchPolicy resolve_cub(LaunchPolicy requested, std::uint64_t n, int runs, const LaunchTarget&) {
  LaunchPolicy p = requested;
  p.grid = 0;
  p.block = 0;
  p.passes = 1;
  p.copies = 1;
  p.shared_bytes = 0;
  p.counter_bits = counter_bits_for(requested, n, runs, "cub");
  return p;
}

std::vector<KernelLaunch> plan_library(const LaunchPolicy&, std::uint64_t) { return {}; }

// Global atomics: the floors add each block's byte sum into one counter.
std::optional<std::uint64_t> one_add_per_block(const LaunchPolicy& p, std::uint64_t) { return std::uint64_t(p.grid); }

// Global atomics: every block merges all 256 bins once, whatever the
// passes or copies.
std::optional<std::uint64_t> one_merge_per_block(const LaunchPolicy& p, std::uint64_t) {
  return std::uint64_t(p.grid) * kBins;
}
// lane_shared: every block adds its 256 sums into the spread entries, and
// one atomicAdd a bin moves each total into the bins.
std::optional<std::uint64_t> one_merge_per_block_and_one_move(const LaunchPolicy& p, std::uint64_t) {
  return (std::uint64_t(p.grid) + 1) * kBins;
}
// Their bytes: the spread entries are 64-bit ((arrivals << 40) + sum) at any
// counter width, the moves into the bins of the counter's width.
std::optional<std::uint64_t> spread_entries_and_moves(const LaunchPolicy& p, std::uint64_t) {
  return std::uint64_t(p.grid) * kBins * sizeof(std::uint64_t) + kBins * std::uint64_t(p.counter_bits / 8);
}

const Variant kSumBytes{resolve_sum_bytes, plan_sum_bytes};
const Variant kReadFloor{resolve_read_floor, plan_read_floor};
const Variant kGlobal{resolve_global, plan_global};
const Variant kPerBlock{resolve_per_block, plan_per_block};
const Variant kPerWarp{resolve_per_warp, plan_per_warp};
const Variant kPartitioned{resolve_partitioned, plan_partitioned};
const Variant kLaneShared{resolve_lane_shared, plan_lane_shared};
const Variant kCub{resolve_cub, plan_library, true};

using namespace declared;

}  // namespace

const std::vector<Implementation>& implementations() {
  static const std::vector<Implementation> list = {
      {.name = "sum_bytes", .backend = Backend::cuda, .family = "cuda/floor_kernels.cuh",
       .idea = "the lesson's floor: byte loads, grid-stride, per-thread sum, no atomics", .roles = {"reader"},
       .counts = false, .bytes_read = reads_input_once, .global_atomics = one_add_per_block, .gpu = &kSumBytes},
      {.name = "read_floor", .backend = Backend::cuda, .family = "cuda/floor_kernels.cuh",
       .idea = "16-byte loads summed, no atomics: the real floor of any histogram", .roles = {"floor"},
       .counts = false, .bytes_read = reads_input_once, .global_atomics = one_add_per_block, .gpu = &kReadFloor},
      {.name = "global", .backend = Backend::cuda, .family = "cuda/lesson_kernels.cuh",
       .idea = "one global atomicAdd per byte", .roles = {"baseline"}, .bytes_read = reads_input_once,
       .global_atomics = one_atomic_per_byte, .gpu = &kGlobal},
      {.name = "per_block", .backend = Backend::cuda, .family = "cuda/lesson_kernels.cuh",
       .idea = "the lesson's privatized kernel: shared 256-bin copy per block, merged by atomicAdd",
       .roles = {"privatized"}, .bytes_read = reads_input_once, .global_atomics = one_merge_per_block,
       .gpu = &kPerBlock},
      {.name = "per_warp", .backend = Backend::cuda, .family = "cuda/lesson_kernels.cuh",
       .idea = "one 256-counter shared copy per warp, merged per block", .roles = {"contender"},
       .bytes_read = reads_input_once, .global_atomics = one_merge_per_block, .gpu = &kPerWarp},
      {.name = "partitioned", .backend = Backend::cuda, .family = "cuda/lesson_kernels.cuh",
       .idea = "P passes over the input, each privatizing 256/P bins (the lesson's exercise)",
       .roles = {"contender"}, .takes_passes = true, .bytes_read = reads_input_per_pass,
       .global_atomics = one_merge_per_block, .gpu = &kPartitioned},
      {.name = "lane_shared", .backend = Backend::cuda, .family = "cuda/fast_kernels.cuh",
       .idea = "one set of 32-bit lane-column counters a block, shared by its warps: conflict-free shared atomics; "
               "one launch, each bin's total moved by the block that adds to it last",
       .roles = {"subject"}, .bytes_read = reads_input_once, .global_atomics = one_merge_per_block_and_one_move,
       .atomic_bytes = spread_entries_and_moves, .gpu = &kLaneShared},
      {.name = "cub", .backend = Backend::cuda, .family = "cuda/cub_histogram.cu",
       .idea = "cub::DeviceHistogram::HistogramEven: the library peer", .roles = {"peer"},
       .bytes_read = reads_input_once, .global_atomics = hidden_by_library, .gpu = &kCub},
  };
  return list;
}

const std::vector<std::string>& kernel_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& impl : implementations())
      for (int bits : {32, 64})
        for (int passes : kPassCounts) {
          if (passes != 1 && !impl.takes_passes) continue;
          LaunchPolicy p;
          p.grid = p.block = 1;
          p.counter_bits = bits;
          p.passes = passes;
          for (const auto& launch : impl.gpu->plan(p, 0))
            if (std::find(v.begin(), v.end(), launch.kernel) == v.end()) v.push_back(launch.kernel);
        }
    return v;
  }();
  return names;
}

}  // namespace hs::gpu
