// The GPU variants' launch policies and plans (cuda/variants.hpp). Plain C++:
// the plans name kernels by their name expressions, so the nvcc executor and
// an NVRTC executor run the same plan.
#include "cuda/variants.hpp"

#include <algorithm>
#include <climits>
#include <string>
#include <string_view>

#include "study/error.hpp"
#include "study/sizes.hpp"

namespace hs::gpu {
namespace {

// The lesson's launch: docs/study-spec.md section 1, "Grid: 1024 blocks x 256
// threads". Every GPU variant defaults to it so rows compare like for like.
constexpr int kLessonGrid = 1024;
constexpr int kLessonBlock = 256;
// The lesson's exercise: docs/study-spec.md section 1, "privatizes 64 bins at a
// time and makes 4 passes".
constexpr int kLessonPasses = 4;
// gridDim.x can be at most 2^31 - 1 (CUDA C++ Programming Guide, table of
// technical specifications per compute capability).
constexpr long long kMaxGrid = INT_MAX;
constexpr unsigned kWarpSize = 32;
// Shared counters are 32-bit (the lesson's): 256 of them are 1 KiB.
constexpr std::uint64_t kSharedCounterBytes = 4;
constexpr std::uint64_t kBinsSharedBytes = kBins * kSharedCounterBytes;
// hs_block_sum's static warp_sums[32] of 8 bytes (cuda/floor_kernels.cuh).
constexpr std::uint64_t kFloorSharedBytes = 32 * 8;

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
  p.shared_bytes = kFloorSharedBytes;
  check_shared(p, limits, name);
  return p;
}

LaunchPolicy resolve_sum_bytes(LaunchPolicy requested, std::uint64_t, int, const DeviceLimits& limits) {
  return resolve_floor(requested, limits, "sum_bytes");
}
LaunchPolicy resolve_read_floor(LaunchPolicy requested, std::uint64_t, int, const DeviceLimits& limits) {
  return resolve_floor(requested, limits, "read_floor");
}

std::vector<KernelLaunch> plan_sum_bytes(const LaunchPolicy& p, std::uint64_t) {
  return {{"hs_sum_bytes", unsigned(p.grid), unsigned(p.block), 0, 0}};
}
std::vector<KernelLaunch> plan_read_floor(const LaunchPolicy& p, std::uint64_t) {
  return {{"hs_read_floor", unsigned(p.grid), unsigned(p.block), 0, 0}};
}

// ---- global -------------------------------------------------------------

LaunchPolicy resolve_global(LaunchPolicy requested, std::uint64_t n, int runs, const DeviceLimits& limits) {
  LaunchPolicy p = launch_shape(requested, limits, "global");
  p.counter_bits = counter_bits_for(requested, n, runs, "global");
  p.shared_bytes = 0;
  return p;
}

std::vector<KernelLaunch> plan_global(const LaunchPolicy& p, std::uint64_t) {
  return {{"hs_global<" + counter_type(p.counter_bits) + ">", unsigned(p.grid), unsigned(p.block), 0, 0}};
}

// ---- per_block ----------------------------------------------------------

LaunchPolicy resolve_per_block(LaunchPolicy requested, std::uint64_t n, int runs, const DeviceLimits& limits) {
  LaunchPolicy p = launch_shape(requested, limits, "per_block");
  p.counter_bits = counter_bits_for(requested, n, runs, "per_block");
  p.shared_bytes = kBinsSharedBytes;  // static
  check_shared(p, limits, "per_block");
  check_block_bytes(p, n, "per_block");
  return p;
}

std::vector<KernelLaunch> plan_per_block(const LaunchPolicy& p, std::uint64_t) {
  return {{"hs_per_block<" + counter_type(p.counter_bits) + ">", unsigned(p.grid), unsigned(p.block), 0, 0}};
}

// ---- per_warp -----------------------------------------------------------

LaunchPolicy resolve_per_warp(LaunchPolicy requested, std::uint64_t n, int runs, const DeviceLimits& limits) {
  LaunchPolicy p = launch_shape(requested, limits, "per_warp");
  p.counter_bits = counter_bits_for(requested, n, runs, "per_warp");
  p.copies = int((unsigned(p.block) + kWarpSize - 1) / kWarpSize);  // a partial last warp gets a copy too
  p.shared_bytes = std::uint64_t(p.copies) * kBinsSharedBytes;      // dynamic
  check_shared(p, limits, "per_warp");
  check_block_bytes(p, n, "per_warp");
  return p;
}

std::vector<KernelLaunch> plan_per_warp(const LaunchPolicy& p, std::uint64_t) {
  return {{"hs_per_warp<" + counter_type(p.counter_bits) + ">", unsigned(p.grid), unsigned(p.block),
           std::size_t(p.shared_bytes), 0}};
}

// ---- partitioned --------------------------------------------------------

LaunchPolicy resolve_partitioned(LaunchPolicy requested, std::uint64_t n, int runs, const DeviceLimits& limits) {
  LaunchPolicy p = launch_shape(requested, limits, "partitioned");
  const int passes = requested.passes == 0 ? kLessonPasses : requested.passes;
  if (passes != 1 && passes != 2 && passes != 4 && passes != 8)
    throw UsageError("partitioned: " + std::to_string(passes) +
                     " passes is not one of 1, 2, 4, 8 (each pass privatizes 256/P bins)");
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
  for (int pass = 0; pass < p.passes; ++pass)
    launches.push_back({partitioned_kernel(p.counter_bits, width), unsigned(p.grid), unsigned(p.block), 0,
                        unsigned(pass * width)});
  return launches;
}

// ---- lane_shared (cuda/fast_kernels.cuh) ---------------------------------

// 256 x 32 32-bit counters a block (HS_LANE_SHARED_WORDS).
constexpr std::uint64_t kLaneColumnsBytes = 256 * 32 * 4;
// 512 threads a block: 256 and 384 were slower (the measurements in
// cuda/fast_kernels.cuh).
constexpr int kLaneSharedBlock = 512;
// Blocks an SM by the bytes each SM counts: each block has a fixed cost
// (zeroing, its row), so small inputs want few. The H200 grid sweep
// (data/explorations/20261129T1326Z_grid; 1, 1.5, 2, 3 and 4 blocks an SM)
// was fastest with 1 at 16 MiB (127 KiB an SM), 2 at 67,109,475 bytes
// (508 KiB), 2 and 3 alike at 256 MiB (2 MiB) and 3 at 1 GiB (8 MiB); the
// switch points sit between those sizes, at their geometric means.
constexpr std::uint64_t kOneBlockBelowPerSm = 256 << 10;
constexpr std::uint64_t kTwoBlocksBelowPerSm = 1 << 20;
constexpr std::uint64_t kLaneSharedBlocksPerSm = 3;
constexpr int kLaneSharedMaxBlock = 512;  // HS_LANE_SHARED_MAX_BLOCK, the kernel's __launch_bounds__
// Vectors a warp takes at a time: 32 lanes x HS_LANE_SHARED_UNROLL loads.
constexpr std::uint64_t kLaneSharedTileBytes = 32 * 2 * 16;
// Its blocks' rows (1 KiB each) live in the scratch: up to 256 MiB.
constexpr int kLaneSharedMaxGrid = 1 << 18;
constexpr unsigned kFoldBlock = 1024;  // HS_FOLD_BLOCK: four threads a bin
// The runtime keeps 1 KiB of shared memory per block (CUDA C++ Programming
// Guide, "Shared Memory", compute capability 8.x and 9.0).
constexpr std::uint64_t kReservedSharedPerBlock = 1024;

// Blocks of `block` threads and `shared` bytes one SM holds at once.
std::uint64_t blocks_per_sm(int block, std::uint64_t shared, const DeviceLimits& limits) {
  const std::uint64_t by_shared = limits.shared_per_sm / (shared + kReservedSharedPerBlock);
  const std::uint64_t by_threads = std::uint64_t(limits.max_threads_per_sm) / std::uint64_t(block);
  return std::max<std::uint64_t>(1, std::min(by_shared, by_threads));
}

// lane_shared's default grid: one wave of as many blocks an SM as n calls
// for (kOneBlockBelowPerSm, ...) and the SM holds.
int lane_shared_grid(std::uint64_t n, int block, const DeviceLimits& limits) {
  const std::uint64_t sms = std::uint64_t(std::max(1, limits.sm_count));
  const std::uint64_t per_sm = n / sms;
  const std::uint64_t wanted = per_sm < kOneBlockBelowPerSm    ? 1
                               : per_sm < kTwoBlocksBelowPerSm ? 2
                                                               : kLaneSharedBlocksPerSm;
  return int(sms * std::min(wanted, blocks_per_sm(block, kLaneColumnsBytes, limits)));
}

LaunchPolicy resolve_lane_shared(LaunchPolicy requested, std::uint64_t n, int runs, const DeviceLimits& limits) {
  if (requested.block == 0) requested.block = std::min(kLaneSharedBlock, limits.max_threads_per_block);
  if (requested.block % int(kWarpSize) != 0 || requested.block > kLaneSharedMaxBlock)
    throw UsageError("lane_shared: block size " + std::to_string(requested.block) +
                     " is not a multiple of 32 up to " + std::to_string(kLaneSharedMaxBlock) +
                     " (whole warps for its warp sums; registers allow no more)");
  if (requested.grid == 0) requested.grid = lane_shared_grid(n, requested.block, limits);
  LaunchPolicy p = launch_shape(requested, limits, "lane_shared");
  if (p.grid > kLaneSharedMaxGrid)
    throw UsageError("lane_shared: grid " + std::to_string(p.grid) + " is over " +
                     std::to_string(kLaneSharedMaxGrid) + " (its blocks' rows take 1 KiB each; 0: by the input's size)");
  p.counter_bits = counter_bits_for(requested, n, runs, "lane_shared");
  p.shared_bytes = kLaneColumnsBytes;  // dynamic
  check_shared(p, limits, "lane_shared");
  // The block's 32-bit columns hold what its warps count in one launch: a
  // whole number of tiles a warp, plus the < 32 head and tail bytes.
  const std::uint64_t warps = std::uint64_t(p.grid) * std::uint64_t(p.block / int(kWarpSize));
  const std::uint64_t tiles_per_warp = (n / kLaneSharedTileBytes + 1 + warps - 1) / warps;
  if (tiles_per_warp * kLaneSharedTileBytes * std::uint64_t(p.block / int(kWarpSize)) + 32 > UINT32_MAX)
    throw UsageError("lane_shared: with grid " + std::to_string(p.grid) +
                     ", one block would count more bytes than its 32-bit counters hold; use a larger grid");
  return p;
}

// Each block stores its row in the scratch; the fold adds every row into the bins.
std::vector<KernelLaunch> plan_lane_shared(const LaunchPolicy& p, std::uint64_t) {
  const std::size_t rows_bytes = std::size_t(p.grid) * kBins * 4;
  return {{"hs_lane_shared", unsigned(p.grid), unsigned(p.block), std::size_t(p.shared_bytes), 0, rows_bytes},
          {"hs_fold_rows<" + counter_type(p.counter_bits) + ">", unsigned(fold_blocks(std::uint64_t(p.grid))),
           kFoldBlock, 0, unsigned(p.grid), rows_bytes}};
}

// ---- cub ----------------------------------------------------------------

// CUB picks its own grid, block and shared memory: recorded as 0. Its
// counters are 32-bit per chunk (cuda/cub_histogram.cu) and are added into
// global bins of the width chosen here.
LaunchPolicy resolve_cub(LaunchPolicy requested, std::uint64_t n, int runs, const DeviceLimits&) {
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

}  // namespace

const std::vector<std::string>& kernel_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = {"hs_sum_bytes", "hs_read_floor", "hs_lane_shared"};
    for (int bits : {32, 64}) {
      v.push_back("hs_global<" + counter_type(bits) + ">");
      v.push_back("hs_per_block<" + counter_type(bits) + ">");
      v.push_back("hs_per_warp<" + counter_type(bits) + ">");
      for (int passes : {1, 2, 4, 8}) v.push_back(partitioned_kernel(bits, kBins / passes));
      v.push_back("hs_fold_rows<" + counter_type(bits) + ">");
    }
    return v;
  }();
  return names;
}

const Variant kSumBytes{resolve_sum_bytes, plan_sum_bytes};
const Variant kReadFloor{resolve_read_floor, plan_read_floor};
const Variant kGlobal{resolve_global, plan_global};
const Variant kPerBlock{resolve_per_block, plan_per_block};
const Variant kPerWarp{resolve_per_warp, plan_per_warp};
const Variant kPartitioned{resolve_partitioned, plan_partitioned};
const Variant kLaneShared{resolve_lane_shared, plan_lane_shared};
const Variant kCub{resolve_cub, plan_library, true};

}  // namespace hs::gpu
