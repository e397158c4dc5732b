// The CPU implementations as the registry (study/driver/registry.hpp) sees them:
// each declared once, beside the call that runs it. The bodies live in
// openmp_histogram.cpp and openmp_fast.cpp.
#include "cpu_openmp/openmp_fast.hpp"
#include "cpu_openmp/openmp_histogram.hpp"
#include "driver/registry.hpp"

namespace hs::cpu {
namespace {

using namespace declared;

void run_reference(std::span<const std::uint8_t> data, Bins& bins, const LaunchPolicy&) { reference(data, bins); }
void run_openmp_private(std::span<const std::uint8_t> data, Bins& bins, const LaunchPolicy& p) {
  openmp_private(data, bins, p.threads);
}
void run_openmp_fast(std::span<const std::uint8_t> data, Bins& bins, const LaunchPolicy& p) {
  openmp_fast(data, bins, p.threads);
}
std::uint64_t run_openmp_read_floor(std::span<const std::uint8_t> data, const LaunchPolicy& p) {
  return openmp_read_floor(data, p.threads);
}

Implementation counting(std::string_view name, std::string_view family, std::string_view idea,
                        std::vector<std::string_view> roles, CpuHistogram run,
                        std::string_view (*code_path)() = nullptr) {
  return {.name = name, .backend = Backend::cpu, .family = family, .idea = idea, .roles = std::move(roles),
          .bytes_read = reads_input_once, .global_atomics = no_global_atomics, .cpu_histogram = run,
          .code_path = code_path};
}

}  // namespace

const std::vector<Implementation>& implementations() {
  static const std::vector<Implementation> list = {
      counting("reference", "cpu_openmp/openmp_histogram.cpp", "single thread, one increment per byte: the oracle",
               {"oracle", "baseline"}, run_reference),
      counting("openmp_private", "cpu_openmp/openmp_histogram.cpp",
               "per-thread private 256 counters, merged once at the end", {"privatized"}, run_openmp_private),
      counting("openmp_fast", "cpu_openmp/openmp_fast.cpp",
               "with AVX-512 (VBMI2, BITALG, GFNI): bytes binned by their top two bits, one-hot lanes summed by "
               "full adders, column popcounts; elsewhere 8 interleaved 16-bit sub-histograms per thread",
               {"subject"}, run_openmp_fast, openmp_fast_path),
      {.name = "openmp_read_floor", .backend = Backend::cpu, .family = "cpu_openmp/openmp_histogram.cpp",
       .idea = "parallel reads with the widest loads the CPU has, summed, no counting: the CPU read floor",
       .roles = {"floor"}, .counts = false, .bytes_read = reads_input_once, .global_atomics = no_global_atomics,
       .cpu_floor = run_openmp_read_floor, .code_path = openmp_read_floor_path},
  };
  return list;
}

}  // namespace hs::cpu
