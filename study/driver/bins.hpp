// The 256-bin byte histogram as the study passes it around: 64-bit counts so
// no host-side total can overflow, whatever width a kernel counts in.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace hs {

inline constexpr int kBins = 256;
using Bins = std::array<std::uint64_t, kBins>;

struct BinStats {
  std::uint64_t total = 0;
  std::uint64_t busiest = 0;     // count in the fullest bin
  int bins_used = 0;
  double busiest_pct() const { return total ? 100.0 * double(busiest) / double(total) : 0.0; }
};

BinStats stats_of(const Bins& bins);

// Sum of byte values (what the read floors compute), from a histogram.
std::uint64_t byte_sum(const Bins& bins);

// Describes the first bin where got differs from want, or nothing if equal.
std::optional<std::string> first_mismatch(const Bins& want, const Bins& got);

}  // namespace hs
