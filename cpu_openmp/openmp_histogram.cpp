#include "cpu_openmp/openmp_histogram.hpp"

#include <omp.h>

#include <cstring>

namespace hs::cpu {

namespace {

// Sum of a word's eight bytes: pairs into 16-bit lanes, then one multiply
// adds the four lanes into the top 16 bits (at most 8 x 255 = 2040).
std::uint64_t byte_sum_of(std::uint64_t word) {
  constexpr std::uint64_t kLow = 0x00FF00FF00FF00FFull;
  const std::uint64_t pairs = (word & kLow) + ((word >> 8) & kLow);
  return (pairs * 0x0001000100010001ull) >> 48;
}

}  // namespace

int resolve_threads(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

void reference(std::span<const std::uint8_t> data, Bins& bins) {
  for (std::uint8_t byte : data) ++bins[byte];
}

void openmp_private(std::span<const std::uint8_t> data, Bins& bins, int threads) {
  const std::uint8_t* bytes = data.data();
  const std::int64_t n = std::int64_t(data.size());
#pragma omp parallel num_threads(resolve_threads(threads))
  {
    Bins mine{};  // 64-bit private counters: no thread count or length overflows them
#pragma omp for schedule(static) nowait
    for (std::int64_t i = 0; i < n; ++i) ++mine[bytes[i]];
#pragma omp critical(histostudy_merge)
    for (int v = 0; v < kBins; ++v) bins[v] += mine[v];
  }
}

std::uint64_t openmp_read_floor(std::span<const std::uint8_t> data, int threads) {
  const std::uint8_t* bytes = data.data();
  const std::int64_t words = std::int64_t(data.size() / 8);
  std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum) num_threads(resolve_threads(threads))
  for (std::int64_t w = 0; w < words; ++w) {
    std::uint64_t word;
    std::memcpy(&word, bytes + 8 * w, 8);
    sum += byte_sum_of(word);
  }
  for (std::size_t i = std::size_t(words) * 8; i < data.size(); ++i) sum += bytes[i];
  return sum;
}

}  // namespace hs::cpu
