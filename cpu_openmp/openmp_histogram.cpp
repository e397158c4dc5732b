#include "cpu_openmp/openmp_histogram.hpp"

#include <immintrin.h>
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

int team_size(int threads) {
  int team = 0;
#pragma omp parallel num_threads(threads)
#pragma omp single
  team = omp_get_num_threads();
  return team;
}

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

namespace {

// The floor reads with the widest loads this CPU has, each summed by one
// vpsadbw into 64-bit lanes, four sums in flight so that no add waits on
// another: a vectorized histogram must not outrun its floor. (With 8-byte
// words the floor was compute-bound, 16.6 GB/s on 2 Zen 5 cores at
// 67,109,475 bytes, below the AVX-512 histogram's 21: see
// data/explorations/cpu-avx512/README.md.)
__attribute__((target("avx512f,avx512bw"))) std::uint64_t sum_avx512(const std::uint8_t* p, std::uint64_t n) {
  const __m512i zero = _mm512_setzero_si512();
  __m512i acc[4] = {zero, zero, zero, zero};
  std::uint64_t i = 0;
  for (; i + 256 <= n; i += 256)
    for (int k = 0; k < 4; ++k)
      acc[k] = _mm512_add_epi64(acc[k], _mm512_sad_epu8(_mm512_loadu_si512(p + i + 64 * k), zero));
  for (; i + 64 <= n; i += 64) acc[0] = _mm512_add_epi64(acc[0], _mm512_sad_epu8(_mm512_loadu_si512(p + i), zero));
  alignas(64) std::uint64_t lanes[8];
  _mm512_store_si512(lanes, _mm512_add_epi64(_mm512_add_epi64(acc[0], acc[1]), _mm512_add_epi64(acc[2], acc[3])));
  std::uint64_t sum = 0;
  for (std::uint64_t lane : lanes) sum += lane;
  for (; i < n; ++i) sum += p[i];
  return sum;
}

__attribute__((target("avx2"))) std::uint64_t sum_avx2(const std::uint8_t* p, std::uint64_t n) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i acc[4] = {zero, zero, zero, zero};
  std::uint64_t i = 0;
  const auto* v = reinterpret_cast<const __m256i*>(p);  // unaligned loads: v[j] is bytes 32j..32j+31
  for (; i + 128 <= n; i += 128)
    for (int k = 0; k < 4; ++k)
      acc[k] = _mm256_add_epi64(acc[k], _mm256_sad_epu8(_mm256_loadu_si256(v + i / 32 + k), zero));
  for (; i + 32 <= n; i += 32) acc[0] = _mm256_add_epi64(acc[0], _mm256_sad_epu8(_mm256_loadu_si256(v + i / 32), zero));
  alignas(32) std::uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes),
                     _mm256_add_epi64(_mm256_add_epi64(acc[0], acc[1]), _mm256_add_epi64(acc[2], acc[3])));
  std::uint64_t sum = lanes[0] + lanes[1] + lanes[2] + lanes[3];
  for (; i < n; ++i) sum += p[i];
  return sum;
}

std::uint64_t sum_words(const std::uint8_t* p, std::uint64_t n) {
  std::uint64_t sum = 0, i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, p + i, 8);
    sum += byte_sum_of(word);
  }
  for (; i < n; ++i) sum += p[i];
  return sum;
}

enum class FloorPath { avx512bw, avx2, words };

FloorPath detect_floor_path() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) return FloorPath::avx512bw;
  if (__builtin_cpu_supports("avx2")) return FloorPath::avx2;
  return FloorPath::words;
}

FloorPath floor_path() {
  static const FloorPath path = detect_floor_path();
  return path;
}

std::uint64_t sum_bytes(const std::uint8_t* p, std::uint64_t n) {
  switch (floor_path()) {
    case FloorPath::avx512bw: return sum_avx512(p, n);
    case FloorPath::avx2: return sum_avx2(p, n);
    case FloorPath::words: break;
  }
  return sum_words(p, n);
}

}  // namespace

std::string_view openmp_read_floor_path() {
  switch (floor_path()) {
    case FloorPath::avx512bw: return "avx512bw";
    case FloorPath::avx2: return "avx2";
    case FloorPath::words: break;
  }
  return "8-byte words";
}

std::uint64_t openmp_read_floor(std::span<const std::uint8_t> data, int threads) {
  const std::uint8_t* bytes = data.data();
  const std::uint64_t n = data.size();
  std::uint64_t sum = 0;
  // One contiguous range per thread, as schedule(static) split the words.
#pragma omp parallel num_threads(resolve_threads(threads)) reduction(+ : sum)
  {
    const std::uint64_t t = std::uint64_t(omp_get_thread_num()), parts = std::uint64_t(omp_get_num_threads());
    const std::uint64_t lo = n * t / parts, hi = n * (t + 1) / parts;
    sum += sum_bytes(bytes + lo, hi - lo);
  }
  return sum;
}

}  // namespace hs::cpu
