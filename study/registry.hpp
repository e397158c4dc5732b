// The one registry: every implementation's readable name, family, idea and
// launcher, CPU and GPU alike. Adding a variant touches its kernel, one entry
// here and one doc line.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "study/bins.hpp"
#include "study/policy.hpp"

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

struct Implementation {
  std::string_view name;
  Backend backend;
  std::string_view family;   // the source file it lives in
  std::string_view idea;     // one line, for `histostudy list` and the docs
  bool counts = true;        // false: a read floor, which returns a byte sum instead of bins
  bool floor = false;        // the floor other implementations are measured against
  // Bytes read from memory per run (GB/s and percent of floor use it).
  std::uint64_t (*bytes_read)(const LaunchPolicy&, std::uint64_t n);
  // Global-memory atomic updates per run; nullopt where a library hides it.
  std::optional<std::uint64_t> (*global_atomics)(const LaunchPolicy&, std::uint64_t n);
  CpuHistogram cpu_histogram = nullptr;
  CpuFloor cpu_floor = nullptr;
  const gpu::Variant* gpu = nullptr;  // null for CPU variants and in builds without CUDA
};

const std::vector<Implementation>& implementations();

// Throws UsageError listing the known names when `name` is unknown.
const Implementation& find_implementation(std::string_view name);

// The floor measured beside `impl` in a run: openmp_read_floor or read_floor.
const Implementation& floor_for(const Implementation& impl);

}  // namespace hs
