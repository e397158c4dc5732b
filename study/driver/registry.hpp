// The one registry: every implementation's readable name, family, idea,
// roles and launcher, CPU and GPU alike. Each implementation is declared
// once, beside its launch plan (cpu_openmp/variants.cpp, cuda/variants.cpp);
// this collects them. docs/experiments.md, "Adding a variant", lists the steps.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "driver/bins.hpp"
#include "driver/policy.hpp"

namespace hs {

namespace gpu {
struct Variant;  // cuda/variants.hpp: a GPU variant's policy defaults and launch plan
}

enum class Backend { cpu, cuda };
std::string_view backend_name(Backend b);

// Adds one run's histogram of `data` into `bins` (CPU variants).
using CpuHistogram = void (*)(std::span<const std::uint8_t> data, Bins& bins, const LaunchPolicy& policy);
// Reads `data` without counting; returns the byte sum (CPU read floors).
using CpuFloor = std::uint64_t (*)(std::span<const std::uint8_t> data, const LaunchPolicy& policy);

// What an implementation is in the study, as tags: experiments select by
// role, every result row carries its roles, and plots/ reads them (for runs
// older than the field, from data/registry.json, which `histostudy list
// --json` prints). Role names are the strings below.
//   oracle      the single-thread CPU reference every result is checked against
//   baseline    the lesson's unprivatized kernel (one global atomic per byte)
//   privatized  the lesson's privatized kernel (per block on the GPU, per thread on the CPU)
//   reader      the lesson's own read-only floor kernel
//   floor       the backend's real read floor, that percent of floor is taken of
//   contender   another matched variant of the lesson's ideas
//   subject     our fastest
//   peer        the library (CUB)
inline constexpr std::string_view kRoles[] = {"oracle", "baseline", "privatized", "reader",
                                              "floor",  "contender", "subject",   "peer"};

struct Implementation {
  std::string_view name = {};
  Backend backend = Backend::cpu;
  std::string_view family = {};  // the source file it lives in
  std::string_view idea = {};    // one line, for `histostudy list` and the docs
  std::vector<std::string_view> roles = {};  // of kRoles
  bool counts = true;        // false: a read floor, which returns a byte sum instead of bins
  bool takes_passes = false;  // its policy has P passes: an experiment runs it once per P it sweeps
  // Bytes read from memory per run (GB/s and percent of floor use it).
  std::uint64_t (*bytes_read)(const LaunchPolicy&, std::uint64_t n) = nullptr;
  // Global-memory atomic updates per run; nullopt where a library hides it.
  std::optional<std::uint64_t> (*global_atomics)(const LaunchPolicy&, std::uint64_t n) = nullptr;
  // The bytes those updates add, where some are not of the policy's counter
  // width; null: every one is (global_atomic_bytes below).
  std::optional<std::uint64_t> (*atomic_bytes)(const LaunchPolicy&, std::uint64_t n) = nullptr;
  CpuHistogram cpu_histogram = nullptr;
  CpuFloor cpu_floor = nullptr;
  const gpu::Variant* gpu = nullptr;  // null for CPU variants
  // The code path a CPU variant takes on this CPU ("avx512-vbmi2", ...), for
  // every row's `code`; null: the executor's.
  std::string_view (*code_path)() = nullptr;
};

const std::vector<Implementation>& implementations();

// The bytes impl's global atomic updates add per run (what a profiler's
// counters of atomic data see): its own declaration, else its updates at the
// policy's counter width; nullopt where the updates are hidden.
std::optional<std::uint64_t> global_atomic_bytes(const Implementation& impl, const LaunchPolicy& policy, std::uint64_t n);

// Bytes read and global atomics, declared once per idea (Implementation's
// bytes_read and global_atomics).
namespace declared {
inline std::uint64_t reads_input_once(const LaunchPolicy&, std::uint64_t n) { return n; }
inline std::uint64_t reads_input_per_pass(const LaunchPolicy& p, std::uint64_t n) { return n * std::uint64_t(p.passes); }
inline std::optional<std::uint64_t> no_global_atomics(const LaunchPolicy&, std::uint64_t) { return 0; }
inline std::optional<std::uint64_t> one_atomic_per_byte(const LaunchPolicy&, std::uint64_t n) { return n; }
inline std::optional<std::uint64_t> hidden_by_library(const LaunchPolicy&, std::uint64_t) { return std::nullopt; }
}  // namespace declared

bool has_role(const Implementation& impl, std::string_view role);

// The implementations with `role`, in registry order.
std::vector<const Implementation*> with_role(std::string_view role);

// Throws UsageError listing the known names when `name` is unknown.
const Implementation& find_implementation(std::string_view name);

// The floor measured beside `impl` in a run: the implementation of its
// backend with the role "floor".
const Implementation& floor_for(const Implementation& impl);

// What `histostudy list --json` prints and plots/ reads as data/registry.json
// (a test keeps the two equal): {"implementations": [{"name", "backend",
// "roles"}...], "count_plans": {backend: the plan fields count-bench records},
// "inputs": [{"name", "description"}...] (as `list` names them, inputs.hpp),
// "experiments": [...] (experiments_json()'s, experiments.hpp)}.
std::string registry_json();

// Declared beside their launch plans.
namespace cpu {
const std::vector<Implementation>& implementations();  // cpu_openmp/variants.cpp
}
namespace gpu {
const std::vector<Implementation>& implementations();  // cuda/variants.cpp
}

}  // namespace hs
