#include "driver/bins.hpp"

#include <algorithm>

namespace hs {

BinStats stats_of(const Bins& bins) {
  BinStats s;
  for (auto c : bins) {
    s.total += c;
    s.busiest = std::max(s.busiest, c);
    s.bins_used += c != 0;
  }
  return s;
}

std::uint64_t byte_sum(const Bins& bins) {
  std::uint64_t sum = 0;
  for (int v = 0; v < kBins; ++v) sum += std::uint64_t(v) * bins[v];
  return sum;
}

std::optional<std::string> first_mismatch(const Bins& want, const Bins& got) {
  for (int v = 0; v < kBins; ++v)
    if (want[v] != got[v])
      return "bin " + std::to_string(v) + ": expected " + std::to_string(want[v]) + ", got " +
             std::to_string(got[v]);
  return std::nullopt;
}

}  // namespace hs
