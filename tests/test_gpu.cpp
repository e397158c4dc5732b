// The `gpu` suite: every GPU kernel, bin for bin against the CPU reference,
// on every named input, at sizes from 0 to 1 GiB, with odd and even block
// sizes, grid 1 and the lesson's grid, and 32- and 64-bit counters. Exits 77
// (meson's "skipped") when this machine has no usable CUDA GPU.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <climits>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cpu_openmp/openmp_histogram.hpp"
#include "tests/stream_fixtures.hpp"
#include "cuda/check.hpp"
#include "cuda/fast_constants.cuh"
#include "cuda/floor_constants.cuh"
#include "cuda/gpu_executor.hpp"
#include "cuda/lesson_constants.cuh"
#include "cuda/modules.hpp"
#include "cuda/nvcc_kernels.hpp"
#include "cuda/shared_device.hpp"
#include "cuda/toolchains.hpp"
#include "cuda/variants.hpp"
#include "driver/control.hpp"
#include "count/count.hpp"
#include "driver/harness.hpp"
#include "platform/error.hpp"
#include "driver/executor.hpp"
#include "platform/files.hpp"
#include "driver/inputs.hpp"
#include "driver/registry.hpp"
#include "platform/sha256.hpp"
#include "driver/sizes.hpp"

namespace {

std::shared_ptr<hs::gpu::SharedDevice> g_device;  // made in main(); the suite is skipped without it
std::unique_ptr<hs::Executor> g_gpu;

// The correctness checks use bins at an offset no study run uses by default.
const hs::Placement kAnywhere{384};

hs::Executor& gpu() { return *g_gpu; }

const std::vector<std::string> kInputs = {"uniform",    "lesson_english", "prose",      "one_byte",
                                          "distinct_1", "distinct_7",     "distinct_64"};
// 0: the variant's default, which every variant must accept.
const std::vector<int> kBlocks = {0, 33, 64, 96, 128, 256, 1024};
constexpr std::uint64_t kGiB = 1ull << 30;

// One kernel configuration: an implementation and, where it takes passes, P.
struct Config {
  const char* impl;
  int passes = 0;
};

// Every kernel configuration of the registry: each GPU implementation that
// launches kernels (not a library), once per pass count where it takes them.
std::vector<Config> registry_kernels() {
  std::vector<Config> out;
  for (const auto& impl : hs::implementations()) {
    if (impl.backend != hs::Backend::cuda || impl.gpu->library) continue;
    const std::string_view name = impl.name;
    for (int passes : impl.takes_passes ? std::vector<int>{1, 2, 4, 8} : std::vector<int>{0})
      out.push_back({name.data(), passes});
  }
  return out;
}
const std::vector<Config> kKernels = registry_kernels();

// The registry's library implementation (CUB).
const hs::Implementation& library_impl() {
  for (const auto& impl : hs::implementations())
    if (impl.backend == hs::Backend::cuda && impl.gpu->library) return impl;
  throw std::logic_error("the registry has no library implementation");
}

// The kernel nvcc compiled for a name expression.
const void* nvcc_kernel(const std::string& name) {
  for (const auto& kernel : hs::gpu::nvcc::kernel_table())
    if (kernel.name == name) return kernel.stub;
  FAIL("no compiled kernel " << name);
  return nullptr;
}

// A request that leaves every choice to the variant (as the CLI sends it:
// passes 0 means the variant's default, where LaunchPolicy{} says 1).
hs::LaunchPolicy defaults() {
  hs::LaunchPolicy p;
  p.passes = 0;
  return p;
}

hs::Bins reference_of(std::span<const std::uint8_t> data) {
  hs::Bins bins{};
  hs::cpu::reference(data, bins);
  return bins;
}

// The counter width resolve must pick for `runs` runs of n bytes.
int expected_bits(std::uint64_t n, int runs) { return n > std::uint64_t(UINT32_MAX) / std::uint64_t(runs) ? 64 : 32; }

// Resolves and runs one configuration on the loaded input; checks every bin
// (or the byte sum, for floors) and that the bins add up to n. A block size
// the variant refuses (UsageError) is skipped; its default (0) never is.
void check_kernel(const Config& config, int grid, int block, int runs, std::uint64_t n, const hs::Bins& want,
                  const std::string& input) {
  const hs::Implementation& impl = hs::find_implementation(config.impl);
  hs::LaunchPolicy requested = defaults();
  requested.grid = grid;
  requested.block = block;
  requested.passes = config.passes;
  hs::LaunchPolicy policy;
  try {
    policy = gpu().resolve(impl, requested, n, runs);
  } catch (const hs::UsageError& e) {
    INFO(config.impl << " refused block " << block << ": " << e.what());
    CHECK(block != 0);
    return;
  }
  INFO(config.impl << " on " << input << ", " << n << " bytes, " << policy.str() << ", runs " << runs);
  if (config.passes) CHECK(policy.passes == config.passes);
  if (impl.counts) CHECK(policy.counter_bits == expected_bits(n, runs));
  const hs::RunOutput out = gpu().run_once(impl, policy, kAnywhere);
  if (impl.counts) {
    CHECK(hs::first_mismatch(want, out.bins) == std::nullopt);
    CHECK(hs::stats_of(out.bins).total == n);
  } else {
    CHECK(out.byte_sum == hs::byte_sum(want));
  }
}

void check_cub(int runs, std::uint64_t n, const hs::Bins& want, const std::string& input) {
  const hs::Implementation& impl = library_impl();
  const hs::LaunchPolicy policy = gpu().resolve(impl, defaults(), n, runs);
  INFO("cub on " << input << ", " << n << " bytes, " << policy.str() << ", runs " << runs);
  CHECK(policy.counter_bits == expected_bits(n, runs));
  const hs::RunOutput out = gpu().run_once(impl, policy, kAnywhere);
  CHECK(hs::first_mismatch(want, out.bins) == std::nullopt);
  CHECK(hs::stats_of(out.bins).total == n);
}

}  // namespace

TEST_CASE("every GPU kernel equals the reference at small sizes, any block size, grid 1 and the lesson's grid") {
  for (const auto& input : kInputs)
    for (std::uint64_t n : {0ull, 1ull, 611ull, 65536ull + 611}) {
      const auto data = hs::make_input(hs::parse_input(input), n);
      const hs::Bins want = reference_of(data);
      REQUIRE(hs::stats_of(want).total == n);
      gpu().load(data);
      for (const auto& config : kKernels)
        for (int block : kBlocks)
          for (int grid : {1, 0})
            for (int runs : {1, INT_MAX}) check_kernel(config, grid, block, runs, n, want, input);
      for (int runs : {1, INT_MAX}) check_cub(runs, n, want, input);
    }
}

TEST_CASE("every GPU kernel equals the reference at the lesson's size, every block size") {
  for (const auto& input : kInputs) {
    const auto data = hs::make_input(hs::parse_input(input), hs::kLessonSize);
    const hs::Bins want = reference_of(data);
    gpu().load(data);
    for (const auto& config : kKernels) {
      for (int block : kBlocks)
        for (int runs : {1, 100}) check_kernel(config, 0, block, runs, hs::kLessonSize, want, input);
      if (input == "uniform" || input == "one_byte") check_kernel(config, 1, 1024, 1, hs::kLessonSize, want, input);
    }
    for (int runs : {1, 100}) check_cub(runs, hs::kLessonSize, want, input);
  }
}

TEST_CASE("every GPU kernel equals the reference at 1 GiB") {
  for (const std::string input : {"uniform", "one_byte"}) {
    const auto data = hs::make_input(hs::parse_input(input), kGiB);
    const hs::Bins want = reference_of(data);
    gpu().load(data);
    for (const auto& config : kKernels) {
      check_kernel(config, 0, 256, 1, kGiB, want, input);
      check_kernel(config, 0, 1024, 8, kGiB, want, input);  // 8 GiB between zeroings: 64-bit counters
    }
    for (int runs : {1, 8}) check_cub(runs, kGiB, want, input);
  }
}

// cub counted extra bytes past 4 GiB (chunks of 2^31 - 4096 bytes
// let CUB's 32-bit tile offsets wrap); every implementation past 4 GiB, and
// at cub's chunk boundaries and the old chunk size.
TEST_CASE("every GPU kernel equals the reference past 4 GiB and at cub's chunk boundaries") {
  const std::uint64_t chunk = hs::gpu::CubHistogram::kChunkBytes;
  for (const std::string input : {"one_byte", "uniform"})
    for (std::uint64_t n : std::vector<std::uint64_t>{chunk + 1, (1ull << 31) - 4096, 2 * chunk + 3, 4 * kGiB + 3}) {
      const auto data = hs::make_input(hs::parse_input(input), n);
      const hs::Bins want = reference_of(data);
      gpu().load(data);
      for (const auto& config : kKernels) check_kernel(config, 0, 0, 1, n, want, input);
      check_cub(1, n, want, input);
    }
}

// cuda/fast_kernels.cuh: blocks of whole warps up to 512 threads; the default fills the SMs.
TEST_CASE("lane_shared equals the reference on every input, size, grid and block") {
  std::vector<std::string> inputs = kInputs;
  for (const char* k : {"distinct_2", "distinct_32", "distinct_128", "distinct_256"}) inputs.push_back(k);
  for (const auto& input : inputs)
    for (std::uint64_t n : std::vector<std::uint64_t>{0, 1, 611, 65536 + 611, hs::kLessonSize}) {
      const auto data = hs::make_input(hs::parse_input(input), n);
      const hs::Bins want = reference_of(data);
      gpu().load(data);
      for (int block : {0, 32, 96, 256, 512})
        for (int grid : {0, 1, 7, 33, 70})
          for (int runs : {1, INT_MAX}) check_kernel({"lane_shared"}, grid, block, runs, n, want, input);
    }
  for (const std::string input : {"uniform", "lesson_english", "one_byte"}) {
    const auto data = hs::make_input(hs::parse_input(input), kGiB + 611);
    const hs::Bins want = reference_of(data);
    gpu().load(data);
    check_kernel({"lane_shared"}, 0, 0, 8, kGiB + 611, want, input);
  }
}

TEST_CASE("lane_shared refuses what it cannot run and counts misaligned buffers") {
  const auto& lane_shared = hs::find_implementation("lane_shared");
  hs::LaunchPolicy p = defaults();
  for (int block : {48, 1024}) {  // a partial warp; over the kernel's __launch_bounds__
    p.block = block;
    CHECK_THROWS_AS(gpu().resolve(lane_shared, p, 1000, 1), hs::UsageError);
  }
  p = defaults();
  p.grid = 1;  // one block would count 2^32 bytes into 32-bit counters
  CHECK_THROWS_AS(gpu().resolve(lane_shared, p, 1ull << 32, 1), hs::UsageError);
  CHECK_NOTHROW(gpu().resolve(lane_shared, p, 1ull << 30, 1));
  p.grid = HS_LANE_SHARED_MAX_GRID + 1;  // more arrivals than a spread entry counts
  CHECK_THROWS_AS(gpu().resolve(lane_shared, p, 1ull << 30, 1), hs::UsageError);
  p = defaults();
  CHECK_THROWS_AS(gpu().resolve(lane_shared, p, 1ull << HS_ARRIVAL_SHIFT, 1), hs::UsageError);

  // Its plan on buffers at every offset from 16-byte alignment (the
  // executor's are aligned), launch after launch on one scratch zeroed
  // once: every launch must leave its spread entries zero for the next.
  const auto data = hs::make_input(hs::parse_input("prose"), 70000);
  const auto policy = gpu().resolve(lane_shared, defaults(), 70000, 1);
  const auto plan = lane_shared.gpu->plan(policy, 70000);
  REQUIRE(plan.size() == 1);
  const std::size_t scratch_bytes = plan[0].scratch_bytes;
  CHECK(scratch_bytes == HS_SPREAD_BYTES);
  void *raw = nullptr, *bins = nullptr, *scratch = nullptr;
  HS_CUDA(cudaMalloc(&raw, data.size()));
  HS_CUDA(cudaMalloc(&bins, 256 * sizeof(unsigned)));
  HS_CUDA(cudaMalloc(&scratch, scratch_bytes));
  HS_CUDA(cudaMemset(scratch, 0, scratch_bytes));
  HS_CUDA(cudaMemcpy(raw, data.data(), data.size(), cudaMemcpyHostToDevice));
  for (std::size_t offset = 0; offset < 20; offset += 3)
    for (std::uint64_t n : {0ull, 5ull, 17ull, 4099ull, 69000ull}) {
      const auto want = reference_of({data.data() + offset, n});
      HS_CUDA(cudaMemset(bins, 0, 256 * sizeof(unsigned)));
      for (const auto& launch : plan) {
        hs::gpu::KernelArgs args = launch.args({static_cast<const unsigned char*>(raw) + offset, n, bins, scratch});
        void* params[] = {args.data()};
        HS_CUDA(cudaLaunchKernel(nvcc_kernel(launch.kernel), dim3(launch.grid), dim3(launch.block), params,
                                 launch.shared_bytes, nullptr));
        HS_CUDA(cudaGetLastError());
      }
      std::vector<unsigned> got32(256);
      HS_CUDA(cudaMemcpy(got32.data(), bins, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost));
      hs::Bins got{};
      for (int v = 0; v < 256; ++v) got[v] = got32[v];
      INFO("offset " << offset << " n " << n);
      CHECK(hs::first_mismatch(want, got) == std::nullopt);
    }
  HS_CUDA(cudaFree(scratch));
  HS_CUDA(cudaFree(bins));
  HS_CUDA(cudaFree(raw));
}

namespace {

hs::gpu::GpuExecutor& gpu_executor() { return dynamic_cast<hs::gpu::GpuExecutor&>(gpu()); }

// Whether the shared scratch's first `bytes` (grown to them where it is
// smaller) are all zero once the shared stream is done.
bool scratch_is_zero(std::size_t bytes) {
  void* scratch = g_device->scratch(bytes);
  std::vector<unsigned char> host(bytes, 0xff);
  HS_CUDA(cudaStreamSynchronize(g_device->stream()));
  HS_CUDA(cudaMemcpy(host.data(), scratch, bytes, cudaMemcpyDeviceToHost));
  return std::all_of(host.begin(), host.end(), [](unsigned char b) { return b == 0; });
}

// The 32-bit bins at `placement`, once the shared stream is done.
hs::Bins bins32_at(const hs::Placement& placement) {
  std::vector<unsigned> narrow(256);
  HS_CUDA(cudaStreamSynchronize(g_device->stream()));
  HS_CUDA(cudaMemcpy(narrow.data(), g_device->bins(placement), 256 * sizeof(unsigned), cudaMemcpyDeviceToHost));
  hs::Bins bins{};
  std::copy(narrow.begin(), narrow.end(), bins.begin());
  return bins;
}

// What `f` throws as an hs::Error; "" when it throws nothing.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const hs::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// The scratch's contract (cuda/shared_device.hpp): zero whenever it is
// allocated, left zero by every user, so a run prepared before another
// plan's request regrew it still finds it zero.
TEST_CASE("the scratch is zero when allocated and after every kernel, even regrown between prepare and enqueue") {
  const auto data = hs::make_input(hs::parse_input("prose"), 70000);
  const hs::Bins want = reference_of(data);
  gpu().load(data);
  for (const auto& config : kKernels) {
    check_kernel(config, 0, 0, 1, data.size(), want, "prose");
    INFO(config.impl << " " << config.passes);
    CHECK(scratch_is_zero(HS_SPREAD_BYTES));
  }
  const auto& lane_shared = hs::find_implementation("lane_shared");
  const auto policy = gpu().resolve(lane_shared, defaults(), data.size(), 1);
  REQUIRE(policy.counter_bits == 32);
  const auto run = gpu_executor().prepare(lane_shared, policy, kAnywhere);
  // Another plan asks for more: the scratch is freed (dirty here, as freed
  // memory may be when it comes back) and allocated anew. On the H200 with
  // driver 580 this check passes even without the zeroing: a block of the
  // grown size dirtied and freed just before came back to the scratch at the
  // same address reading zero
  // (data/checks/20261201T1742Z_h200_scratch-regrow-without-zeroing.txt).
  // It guards the contract where a driver or allocator hands memory back as
  // it was.
  HS_CUDA(cudaMemsetAsync(g_device->scratch(0), 0xff, HS_SPREAD_BYTES, g_device->stream()));
  const std::size_t grown = 64 * HS_SPREAD_BYTES;  // more than any plan asks for
  CHECK(scratch_is_zero(grown));
  g_device->zero_outputs(kAnywhere);
  gpu_executor().enqueue(run);
  CHECK(hs::first_mismatch(want, bins32_at(kAnywhere)) == std::nullopt);
  CHECK(scratch_is_zero(grown));
}

TEST_CASE("a prepared run refuses more bytes than it was prepared for, naming its implementation and both sizes") {
  const auto data = hs::make_input(hs::parse_input("prose"), 4099);
  gpu().load(data);
  for (const auto& impl : hs::implementations()) {
    if (impl.backend != hs::Backend::cuda) continue;
    INFO(impl.name);
    const auto policy = gpu().resolve(impl, defaults(), data.size(), 1);
    const auto shorter = gpu_executor().prepare(impl, policy, kAnywhere, g_device->input(), data.size() - 1);
    const std::string what = error_of([&] { gpu_executor().enqueue(shorter); });
    INFO(what);
    CHECK(what.find(std::string(impl.name) + " was prepared for 4,098 bytes, not the 4,099") != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
    CHECK(error_of([&] { gpu_executor().enqueue(gpu_executor().prepare(impl, policy, kAnywhere)); }).empty());
  }
  // A sampler prepared before a larger input was loaded refuses to run on it.
  const auto& lane_shared = hs::find_implementation("lane_shared");
  const auto sampler = gpu().sampler(lane_shared, gpu().resolve(lane_shared, defaults(), data.size(), 1), kAnywhere,
                                     hs::CacheMode::hot);
  gpu().load(hs::make_input(hs::parse_input("prose"), 2 * data.size()));
  CHECK_THROWS_AS(sampler->warm(), hs::Error);
  HS_CUDA(cudaStreamSynchronize(g_device->stream()));
}

TEST_CASE("the floors read misaligned buffers: head, body and tail") {
  const auto data = hs::make_input(hs::parse_input("uniform"), 4096 + 64);
  void* raw = nullptr;
  unsigned long long* sum = nullptr;
  HS_CUDA(cudaMalloc(&raw, data.size()));
  HS_CUDA(cudaMalloc(reinterpret_cast<void**>(&sum), sizeof *sum));
  HS_CUDA(cudaMemcpy(raw, data.data(), data.size(), cudaMemcpyHostToDevice));
  for (const auto& kernel : hs::gpu::nvcc::kernel_table()) {
    if (kernel.name != "hs_read_floor" && kernel.name != "hs_sum_bytes") continue;
    for (std::size_t offset = 0; offset < 20; ++offset)
      for (std::uint64_t n : {0ull, 1ull, 15ull, 16ull, 17ull, 31ull, 100ull, 4096ull})
        for (unsigned block : {1u, 33u, 256u})
          for (unsigned grid : {1u, 3u}) {
            std::uint64_t want = 0;
            for (std::uint64_t i = 0; i < n; ++i) want += data[offset + i];
            hs_floor_args args{static_cast<const unsigned char*>(raw) + offset, n, sum};
            void* params[] = {&args};
            HS_CUDA(cudaMemset(sum, 0, sizeof *sum));
            HS_CUDA(cudaLaunchKernel(kernel.stub, dim3(grid), dim3(block), params, 0, nullptr));
            HS_CUDA(cudaGetLastError());
            unsigned long long got = 0;
            HS_CUDA(cudaMemcpy(&got, sum, sizeof got, cudaMemcpyDeviceToHost));
            INFO(kernel.name << " offset " << offset << " n " << n << " grid " << grid << " block " << block);
            CHECK(got == want);
          }
  }
  HS_CUDA(cudaFree(sum));
  HS_CUDA(cudaFree(raw));
}

TEST_CASE("per_block at the lesson's launch makes exactly 262,144 global atomics") {
  const auto n = hs::kLessonSize;
  const hs::LaunchPolicy per_block = gpu().resolve(hs::find_implementation("per_block"), defaults(), n, 13);
  CHECK(per_block.grid == 1024);
  CHECK(per_block.block == 256);
  CHECK(per_block.counter_bits == 32);  // 13 runs of the lesson's size fit 32 bits (docs/study-spec.md section 1)
  CHECK(hs::find_implementation("per_block").global_atomics(per_block, n) == std::uint64_t(262144));
  CHECK(hs::find_implementation("global").global_atomics(per_block, n) == n);
  // The partitioned passes together merge every bin once per block too.
  const hs::LaunchPolicy partitioned = gpu().resolve(hs::find_implementation("partitioned"), defaults(), n, 13);
  CHECK(partitioned.passes == 4);
  CHECK(hs::find_implementation("partitioned").global_atomics(partitioned, n) == std::uint64_t(262144));
}

TEST_CASE("resolve fills the variants' shapes and refuses what the GPU cannot run") {
  const auto& per_warp = hs::find_implementation("per_warp");
  hs::LaunchPolicy requested = defaults();
  requested.block = 33;
  const auto warp_policy = gpu().resolve(per_warp, requested, 1000, 1);
  CHECK(warp_policy.copies == 2);  // a partial last warp gets its own copy
  CHECK(warp_policy.shared_bytes == 2048);

  const auto& per_block = hs::find_implementation("per_block");
  auto refuse = [&](const hs::Implementation& impl, hs::LaunchPolicy p, std::uint64_t n) {
    INFO(impl.name << " " << p.str() << " n " << n);
    CHECK_THROWS_AS(gpu().resolve(impl, p, n, 1), hs::UsageError);
  };
  hs::LaunchPolicy p = defaults();
  p.block = 4096;
  refuse(per_block, p, 100);
  p.block = -1;
  refuse(per_block, p, 100);
  p = defaults();
  p.grid = -1;
  refuse(per_block, p, 100);
  p = defaults();
  p.passes = 3;
  refuse(hs::find_implementation("partitioned"), p, 100);
  p = defaults();
  p.counter_bits = 16;
  refuse(per_block, p, 100);
  // One block would count 2^32 bytes into 32-bit shared counters.
  p = defaults();
  p.grid = 1;
  p.block = 1024;
  refuse(per_block, p, 1ull << 32);
  refuse(per_warp, p, 1ull << 32);
  CHECK_NOTHROW(gpu().resolve(per_block, p, (1ull << 32) - 1024, 1));
  CHECK(gpu().resolve(per_block, defaults(), 1ull << 32, 1).counter_bits == 64);
}

TEST_CASE("timing runs every variant, cold and hot, and leaves run_once exact") {
  const auto data = hs::make_input(hs::parse_input("prose"), 1 << 20);
  const hs::Bins want = reference_of(data);
  gpu().load(data);
  for (const auto& impl : hs::implementations()) {
    if (impl.backend != hs::Backend::cuda) continue;
    const std::string name(impl.name);
    const auto policy = gpu().resolve(impl, defaults(), data.size(), 3 + 10 + 1);
    INFO(name);
    for (auto mode : {hs::CacheMode::cold, hs::CacheMode::hot}) {
      auto sampler = gpu().sampler(impl, policy, kAnywhere, mode);
      sampler->reset_bins();
      for (int w = 0; w < 3; ++w) sampler->warm();
      for (int r = 0; r < 10; ++r) sampler->sample();
      const auto each = sampler->collect();
      REQUIRE(each.size() == 10);
      for (const auto& s : each) {
        CHECK(s.ms > 0);
        CHECK(s.clock_mhz > 0.3 * g_device->peak_clock_mhz());  // the probe measured a plausible clock
        CHECK(s.clock_mhz < 1.5 * g_device->peak_clock_mhz());
      }
    }
    CHECK(gpu().time_back_to_back(impl, policy, kAnywhere, 3, 10) > 0);
    const auto out = gpu().run_once(impl, policy, kAnywhere);
    if (impl.counts)
      CHECK(hs::first_mismatch(want, out.bins) == std::nullopt);
    else
      CHECK(out.byte_sum == hs::byte_sum(want));
  }
}

namespace {

// The GPU implementations that count, in registry order.
std::vector<const hs::Implementation*> counting_gpu_impls() {
  std::vector<const hs::Implementation*> out;
  for (const auto& impl : hs::implementations())
    if (impl.backend == hs::Backend::cuda && impl.counts) out.push_back(&impl);
  return out;
}

// `data` through a pipe into count_on_gpu, written by another thread.
hs::Bins count_pipe(const std::vector<std::uint8_t>& data, hs::GpuStream& stream) {
  const FedPipe pipe(data, 1 << 20);
  return hs::count_on_gpu(pipe.read_end(), "pipe", std::nullopt, stream, 0);
}

}  // namespace

// histostudy count for GPU implementations (cuda/stream_count.hpp): sizes
// around count's chunks and pieces, the file read by one or several threads.
TEST_CASE("count streams a file through every GPU implementation exactly, at every size around its chunks") {
  const std::uint64_t chunk = hs::kGpuChunk;
  for (std::uint64_t n : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(4099), hs::kGpuPiece + 3, chunk - 1,
                          chunk, 2 * chunk + 4099})
    for (const std::string input : {"lesson_english", "one_byte"}) {
      const auto data = hs::make_input(hs::parse_input(input), n);
      const TempFile file(data, "gpu-stream");
      const hs::Bins want = reference_of(data);
      for (const auto* impl : counting_gpu_impls())
        for (int threads : {1, 0}) {
          INFO(impl->name << " on " << input << ", " << n << " bytes, threads " << threads);
          CHECK(hs::first_mismatch(want, hs::count_stream(file.path.string(), *impl, gpu(), threads)) == std::nullopt);
        }
    }
}

TEST_CASE("a GPU stream counts pipes, many chunks through a ring of two, again and again, and after an error") {
  const auto data = hs::make_input(hs::parse_input("uniform"), 5 * hs::kGpuPiece + 4099);
  const TempFile file(data, "gpu-stream");
  const hs::Bins want = reference_of(data);
  const int dir = ::open(std::filesystem::temp_directory_path().c_str(), O_RDONLY | O_DIRECTORY);
  REQUIRE(dir >= 0);
  for (const auto* impl : counting_gpu_impls()) {
    INFO(impl->name);
    const auto stream = hs::make_gpu_stream(gpu(), *impl, {hs::kGpuPiece, 2});
    CHECK(stream->policy().counter_bits == 64);
    for (int threads : {1, 4}) {
      const hs::Fd fd(hs::open_for_reading(file.path.string()));
      CHECK(hs::first_mismatch(want, hs::count_on_gpu(fd.get(), "file", version_of(fd), *stream, threads)) == std::nullopt);
      stream->copy(data.size());  // the bench's floor between two counts leaves them exact
    }
    CHECK(hs::first_mismatch(want, count_pipe(data, *stream)) == std::nullopt);
    CHECK_THROWS_AS(hs::count_on_gpu(dir, "a directory", std::nullopt, *stream, 2), hs::Error);
    const hs::Fd fd(hs::open_for_reading(file.path.string()));
    CHECK(hs::first_mismatch(want, hs::count_on_gpu(fd.get(), "file", version_of(fd), *stream, 3)) == std::nullopt);
    // Count's own plan for a stream: chunks of kGpuChunk, the last one short.
    const auto longer = hs::make_input(hs::parse_input("prose"), 2 * hs::kGpuChunk + 4099);
    const auto piped = hs::make_gpu_stream(gpu(), *impl, hs::read_plan(*impl));
    CHECK(hs::first_mismatch(reference_of(longer), count_pipe(longer, *piped)) == std::nullopt);
  }
  ::close(dir);
  // The study's own runs are unaffected by a stream's runs on the shared device.
  gpu().load(data);
  for (const auto* impl : counting_gpu_impls())
    CHECK(hs::first_mismatch(want, gpu().run_once(*impl, gpu().resolve(*impl, defaults(), data.size(), 1), kAnywhere)
                                       .bins) == std::nullopt);
  CHECK_THROWS_AS(hs::make_gpu_stream(*hs::make_cpu_executor(), hs::find_implementation("lane_shared"),
                                      {hs::kGpuPiece, 2}),
                  hs::UsageError);
}

TEST_CASE("a GPU stream refuses a ring it cannot use in one line saying what it needs and what it got") {
  const auto& lane_shared = hs::find_implementation("lane_shared");
  auto refusal = [&](hs::ReadPlan plan) { return error_of([&] { hs::make_gpu_stream(gpu(), lane_shared, plan); }); };
  const std::string needs = "GPU stream: needs at least 2 buffers of at least 1 byte (got ";
  CHECK(refusal({0, 1}) == needs + "1 buffer of 0 bytes)");
  CHECK(refusal({1, 0}) == needs + "0 buffers of 1 byte)");
  CHECK(refusal({0, 3}) == needs + "3 buffers of 0 bytes)");
  CHECK(refusal({1, 2}).empty());
}

TEST_CASE("the nvcc executor names its toolchain and supports exactly the GPU variants") {
  CHECK(gpu().toolchain().rfind("nvcc ", 0) == 0);
  const auto described = gpu().describe();
  CHECK(described.at("compiler") == "nvcc");
  CHECK(described.contains("flags"));
  CHECK(described.contains("archs"));
  for (const auto& impl : hs::implementations()) CHECK(gpu().supports(impl) == (impl.gpu != nullptr));
  // Every instantiation a plan can name has a compiled kernel, and every
  // compiled kernel is one a plan names.
  const auto& names = hs::gpu::kernel_names();
  for (const auto& name : names) {
    bool found = false;
    for (const auto& kernel : hs::gpu::nvcc::kernel_table()) found = found || kernel.name == name;
    INFO(name);
    CHECK(found);
  }
  for (const auto& kernel : hs::gpu::nvcc::kernel_table()) {
    INFO(kernel.name);
    CHECK(std::find(names.begin(), names.end(), std::string(kernel.name)) != names.end());
  }
}

namespace {

// global on uniform bytes at 16 MiB, hot, measured by `members` in rotation.
std::vector<hs::Row> global_uniform(const std::vector<hs::Executor*>& members, const hs::Placement& placement) {
  static const auto data = hs::make_input(hs::parse_input("uniform"), 16ull << 20);
  static const hs::Bins want = reference_of(data);
  for (auto* e : members) e->load(data);
  hs::TimingPlan plan;
  plan.cache = hs::CacheMode::hot;
  plan.stop = {30, 200, 0.002, 10.0};
  plan.lesson_reps = 0;
  auto rows = hs::measure(members, hs::find_implementation("global"), defaults(), placement,
                          {"uniform", data, want}, plan, "test");
  for (const auto& row : rows) REQUIRE(row.check_passed);
  return rows;
}

}  // namespace

TEST_CASE("an A/A pair (two independent nvcc entries on the shared buffers) measures the same on global/uniform") {
  auto control = hs::make_control(hs::gpu::make_nvcc_executor(g_device));
  const auto rows = global_uniform({&gpu(), control.get()}, {});
  const double ratio = rows[1].summary.median / rows[0].summary.median;
  MESSAGE("A/A ratio " << ratio << " (" << rows[0].summary.median << " ms, " << rows[1].summary.median << " ms)");
  CHECK(ratio == doctest::Approx(1.0).epsilon(0.02));
  CHECK(rows[0].placement == rows[1].placement);  // the same buffers, at the same addresses
  CHECK(rows[1].control_of == gpu().toolchain());
}

TEST_CASE("moving the bins by 512 bytes moves them by 512 bytes in the record, and on the H200 changes global") {
  const auto at0 = global_uniform({&gpu()}, {0});
  const auto at512 = global_uniform({&gpu()}, {512});
  const auto& p0 = at0[0].placement;
  const auto& p512 = at512[0].placement;
  CHECK(p0["bins_mod_2mib"].get<std::uint64_t>() == 0);
  CHECK(p512["bins_mod_2mib"].get<std::uint64_t>() == 512);
  CHECK(p0["input_mod_2mib"] == p512["input_mod_2mib"]);
  const double ratio = at0[0].summary.median / at512[0].summary.median;
  MESSAGE("global/uniform, bins +0 over bins +512: " << ratio);
  // The placement finding, on the GPU it was found on: 17.3 against 8.3 ms at the lesson's size.
  if (g_device->name().find("H200") != std::string::npos) CHECK(ratio > 1.5);
}

namespace {

// The first NVRTC `histostudy list` would show (the default search path's,
// or .deps/nvrtc's); "" when there is none.
std::string nvrtc_spec() {
  for (const auto& t : hs::gpu::find_toolchains())
    if (t.spec != "nvcc") return t.spec;
  return "";
}

// A modules directory built here, for this GPU's arch, by nvrtc_spec().
std::filesystem::path built_modules(const std::string& name) {
  const std::string spec = nvrtc_spec();
  REQUIRE_MESSAGE(!spec.empty(), "no NVRTC library here (./dev nvrtc, or tools/h200_run.sh unpack)");
  const auto dir = std::filesystem::temp_directory_path() / ("hs_modules_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const int cc = g_device->limits().cc_major * 10 + g_device->limits().cc_minor;
  hs::gpu::write_modules({spec}, {cc}, dir);
  return dir;
}

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

void write_json(const std::filesystem::path& path, const nlohmann::json& doc) { std::ofstream(path) << doc.dump(); }

}  // namespace

TEST_CASE("modules: every SASS and JIT-compiled PTX entry counts exactly; altered entries are skipped, never run") {
  const auto dir = built_modules("ok");
  std::vector<std::string> skipped;
  auto executors = hs::gpu::load_modules(dir, g_device, skipped);
  CHECK(skipped.empty());
  REQUIRE(executors.size() == 2);  // SASS for this GPU, and PTX the driver compiles
  const auto data = hs::make_input(hs::parse_input("lesson_english"), 65536 + 611);
  const hs::Bins want = reference_of(data);
  for (auto& e : executors) {
    INFO(e->toolchain());
    e->load(data);
    for (const auto& config : kKernels) {
      const auto& impl = hs::find_implementation(config.impl);
      const auto out = e->run_once(impl, e->resolve(impl, defaults(), data.size(), 1), kAnywhere);
      if (impl.counts)
        CHECK(hs::first_mismatch(want, out.bins) == std::nullopt);
      else
        CHECK(out.byte_sum == hs::byte_sum(want));
    }
    CHECK_FALSE(e->supports(library_impl()));
  }
  executors.clear();

  // A corrupt file: its hash no longer matches, so it is skipped with a reason.
  auto manifest = read_json(dir / "manifest.json");
  const std::string sass_file = manifest["builds"][0]["file"];
  { std::ofstream(dir / sass_file, std::ios::app) << "garbage"; }
  skipped.clear();
  executors = hs::gpu::load_modules(dir, g_device, skipped);
  CHECK(executors.size() == 1);
  REQUIRE(skipped.size() == 1);
  CHECK(skipped[0].find("SHA-256") != std::string::npos);
  executors.clear();

  // A manifest of other kernel sources: every entry skipped.
  manifest["kernel_sources_sha256"] = std::string(64, '0');
  write_json(dir / "manifest.json", manifest);
  skipped.clear();
  CHECK(hs::gpu::load_modules(dir, g_device, skipped).empty());
  REQUIRE(skipped.size() == 1);
  CHECK(skipped[0].find("other kernel sources") != std::string::npos);

  // A foreign module (a file the driver cannot load, its hash made to match): refused, skipped.
  const auto fresh = built_modules("foreign");
  auto m = read_json(fresh / "manifest.json");
  const std::string garbage = "this is not a cubin";
  { std::ofstream(fresh / m["builds"][0]["file"].get<std::string>(), std::ios::trunc) << garbage; }
  m["builds"][0]["sha256"] = hs::sha256_hex(garbage);
  write_json(fresh / "manifest.json", m);
  skipped.clear();
  CHECK(hs::gpu::load_modules(fresh, g_device, skipped).size() == 1);
  REQUIRE(skipped.size() == 1);
  CHECK(skipped[0].find("skipped") != std::string::npos);
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(fresh);
}

namespace {

// global's plan, but packing the floors' struct for hs_global, which takes
// the lesson's: a plan's mistake every executor must refuse to launch.
std::vector<hs::gpu::KernelLaunch> plan_misfit(const hs::LaunchPolicy& p, std::uint64_t n) {
  auto plan = hs::find_implementation("global").gpu->plan(p, n);
  for (auto& launch : plan)
    launch.args = [](const hs::gpu::Buffers& b) -> hs::gpu::KernelArgs {
      return hs_floor_args{b.data, b.n, static_cast<unsigned long long*>(b.out)};
    };
  return plan;
}

}  // namespace

TEST_CASE("nvcc's and NVRTC's executors refuse a plan that packs another argument struct than its kernel takes") {
  static_assert(sizeof(hs_floor_args) != sizeof(hs_lesson_args));
  const hs::gpu::Variant misfit{hs::find_implementation("global").gpu->resolve, plan_misfit};
  hs::Implementation impl = hs::find_implementation("global");
  impl.name = "misfit";
  impl.gpu = &misfit;
  const std::string spec = nvrtc_spec();
  REQUIRE_MESSAGE(!spec.empty(), "no NVRTC library here (./dev nvrtc, or tools/h200_run.sh unpack)");
  const auto nvrtc = hs::gpu::make_gpu_executor(spec, g_device);
  const auto data = hs::make_input(hs::parse_input("uniform"), 4099);
  const std::string want = "hs_global<unsigned int> takes a " + std::to_string(sizeof(hs_lesson_args)) +
                           "-byte argument struct; its plan packed " + std::to_string(sizeof(hs_floor_args)) + " bytes";
  for (hs::Executor* e : {&gpu(), nvrtc.get()}) {
    INFO(e->toolchain());
    e->load(data);
    const auto policy = e->resolve(impl, defaults(), data.size(), 1);
    const std::string what = error_of([&] { e->run_once(impl, policy, kAnywhere); });
    CHECK(what == e->toolchain() + " executor: " + want);
    // The registry's own global runs there, the same struct packed as its kernel takes.
    const auto& global = hs::find_implementation("global");
    CHECK(hs::first_mismatch(reference_of(data), e->run_once(global, policy, kAnywhere).bins) == std::nullopt);
  }
}

int main(int argc, char** argv) {
  try {
    g_device = hs::gpu::open_device();
    g_gpu = hs::gpu::make_nvcc_executor(g_device);
  } catch (const hs::Unavailable& e) {
    std::printf("gpu suite skipped: %s\n", e.what());
    return 77;
  }
  doctest::Context context(argc, argv);
  const int status = context.run();
  g_gpu.reset();
  g_device.reset();
  return status;
}
