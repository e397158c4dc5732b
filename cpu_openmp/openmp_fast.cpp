#include "cpu_openmp/openmp_fast.hpp"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <string>

#include "cpu_openmp/openmp_histogram.hpp"
#include "platform/error.hpp"

namespace hs::cpu {

namespace {

// ---------------------------------------------------------------- scalar-8x16

// Sub-histograms per thread: byte j of each word goes to sub-histogram j.
// 8 beat 4 and 2 on one_byte (docs/decisions/openmp-fast.md).
constexpr int kSubs = 8;

// 16-bit sub-counters: 8 x 256 x 2 = 4 KiB per thread, so the 8
// sub-histograms are 512 bytes apart and never alias modulo 4 KiB; 32-bit
// ones measured no better (docs/decisions/openmp-fast.md).
using Counter = std::uint16_t;

// Every sub-histogram gets exactly one byte of each word, so after W words no
// counter exceeds W: flushing every 65,535 words can never overflow a 16-bit
// counter, whatever the input.
static_assert(kSubs == 8, "one byte position of each word per sub-histogram");
static_assert(fast_flush_words <= std::numeric_limits<Counter>::max());

// Bytes handed to a thread at a time: one flush block, dynamically; beat a
// static split, and matched 4-block chunks (docs/decisions/openmp-fast.md).
constexpr std::uint64_t kChunkBytes = 8 * fast_flush_words;

struct SubHistograms {
  alignas(64) Counter c[kSubs][kBins];
};

// Counts one chunk (at most one flush block) into `subs` (zero on entry),
// then adds them into the 64-bit `totals` and zeroes them again. Bytes past
// the last whole word go straight into `totals`.
void count_chunk_scalar(const std::uint8_t* p, std::uint64_t n, SubHistograms& subs, Bins& totals) {
  const std::uint64_t words = n / 8;
  for (std::uint64_t i = 0; i < words; ++i) {
    std::uint64_t w;
    std::memcpy(&w, p + 8 * i, 8);
    for (int j = 0; j < kSubs; j += 2) {
      ++subs.c[j][w & 0xFF];
      ++subs.c[j + 1][(w >> 8) & 0xFF];
      w >>= 16;
      // An empty asm keeps the 16-bit shift. Without it GCC recomputes each
      // byte as its own shift of the loaded word, one more instruction per
      // byte, and runs slower (docs/decisions/openmp-fast.md).
      asm("" : "+r"(w));
    }
  }
  for (std::uint64_t i = 8 * words; i < n; ++i) ++totals[p[i]];
  for (int s = 0; s < kSubs; ++s)
    for (int v = 0; v < kBins; ++v) totals[v] += subs.c[s][v];
  std::memset(&subs, 0, sizeof subs);
}

// ---------------------------------------------------------------- avx512
//
// Every function below runs only where avx512_supported() says so.
//
// GCC 12's intrinsics fill the unused lanes of a masked builtin with an
// "undefined" vector it then warns is uninitialized:
// silenced for this section alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define HS_AVX512 __attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512bitalg,gfni,popcnt")))

// The two top bits of a byte pick its group, the six low bits its value in
// the group (its "morsel"): bin = 64 x group + morsel.
constexpr int kGroups = 4;
constexpr int kMorsels = 64;

// Input bytes binned into the groups' buffers before the buffers are
// counted: small enough that the buffers stay in L1; 1 to 16 KiB measured alike
// (data/explorations/cpu-avx512/README.md).
constexpr std::uint64_t kBinBlock = 2048;

// The column counts added into a byte lane are at most 8 each (8 qwords);
// flushed after 31 adds, a lane holds at most 248: no byte wraps.
constexpr int kMaxColumnAdds = 31;
static_assert(kMaxColumnAdds * 8 <= 255);

// Digit planes of weight 1, 2, 4 and 8: two 64-morsel vectors an iteration,
// and one column count per 128 morsels for the weight-16 carry; with the
// unaligned loads of one_hots, 8-22% faster than three planes on a Xeon
// (data/explorations/20261203T1630Z_cpu_kernel/README.md).
constexpr int kPlanes = 4;
constexpr unsigned kCarryWeight = 1u << kPlanes;

// One group's counts in flight. Bit m of qword q of planes[w] is digit w (of
// weight 2^w) of a count of morsel m; carries[m] counts morsel m in units of
// kCarryWeight.
struct Group {
  alignas(64) std::uint8_t planes[kPlanes][64]{};
  alignas(64) std::uint8_t carries[64]{};
  int column_adds = 0;
  int left = 0;  // morsels at the front of buf not yet counted (< 64)
  // left + a block's bytes + the 64 a compressing store may write past them;
  // zeroed, as one_hots reads up to 7 bytes past the last vector it counts
  alignas(64) std::uint8_t buf[64 + kBinBlock + 64]{};
};
// The last whole vector of at most 63 + kBinBlock morsels ends 7 bytes of
// loads short of buf's end, or more.
static_assert((63 + kBinBlock) / 64 * 64 + 7 <= sizeof(Group::buf));

struct Avx512Counts {
  Group group[kGroups];
};

// Byte r of qword q goes to byte q of qword r: an 8x8 byte transpose.
constexpr std::array<std::uint8_t, 64> kTransposeBytes = [] {
  std::array<std::uint8_t, 64> idx{};
  for (int q = 0; q < 8; ++q)
    for (int r = 0; r < 8; ++r) idx[8 * r + q] = std::uint8_t(8 * q + r);
  return idx;
}();

// counts[m] = how many of the 8 qwords of x have bit m set (0..8). The byte
// transpose gathers byte m/8 of every qword into qword m/8; the affine
// instruction, with unit vectors as data and that qword as its matrix,
// transposes its 8x8 bits, so byte m holds bit m%8 of all 8; popcount.
HS_AVX512 inline __m512i column_counts(__m512i x) {
  x = _mm512_permutexvar_epi8(_mm512_loadu_si512(kTransposeBytes.data()), x);
  x = _mm512_gf2p8affine_epi64_epi8(_mm512_set1_epi64(0x8040201008040201ll), x, 0);
  return _mm512_popcnt_epi8(x);
}

HS_AVX512 inline __m512i sum3(__m512i a, __m512i b, __m512i c) { return _mm512_ternarylogic_epi64(a, b, c, 0x96); }
HS_AVX512 inline __m512i carry3(__m512i a, __m512i b, __m512i c) { return _mm512_ternarylogic_epi64(a, b, c, 0xE8); }

// (digit, carry) = digit + a + b, one full adder per bit.
HS_AVX512 inline __m512i add_into(__m512i& digit, __m512i a, __m512i b) {
  const __m512i carry = carry3(digit, a, b);
  digit = sum3(digit, a, b);
  return carry;
}

void flush_carries(Group& g, int group, Bins& totals) {
  for (int m = 0; m < kMorsels; ++m) totals[group * kMorsels + m] += kCarryWeight * g.carries[m];
  std::memset(g.carries, 0, sizeof g.carries);
  g.column_adds = 0;
}

// The one-hot qwords of the 64 morsels at q (values 0..63): x[k] holds those
// of bytes k, 8 + k, ..., 56 + k. A rotate counts modulo 64, so the load at
// q + k, whose qword j starts with byte 8j + k, brings that morsel to the
// low six bits with no shift (the other bytes, up to 7 past the vector, do
// not count).
HS_AVX512 inline void one_hots(const std::uint8_t* q, __m512i x[8]) {
  const __m512i one = _mm512_set1_epi64(1);
  for (int k = 0; k < 8; ++k) x[k] = _mm512_rolv_epi64(one, _mm512_loadu_si512(q + k));
}

// Folds the 64 morsels at q into the weight-1 and 2 planes; returns their
// two weight-4 carries in f0 and f1.
HS_AVX512 inline void fold_vector(const std::uint8_t* q, __m512i& d0, __m512i& d1, __m512i& f0, __m512i& f1) {
  __m512i x[8];
  one_hots(q, x);
  const __m512i t0 = add_into(d0, x[0], x[1]), t1 = add_into(d0, x[2], x[3]);
  const __m512i t2 = add_into(d0, x[4], x[5]), t3 = add_into(d0, x[6], x[7]);
  f0 = add_into(d1, t0, t1);
  f1 = add_into(d1, t2, t3);
}

// Adds a weight-16 carry's column counts into `carries`, flushed into totals
// before a byte lane could wrap.
HS_AVX512 inline void add_carry(__m512i carry, __m512i& carries, Group& g, int group, Bins& totals) {
  carries = _mm512_add_epi8(carries, column_counts(carry));
  if (++g.column_adds == kMaxColumnAdds) {
    _mm512_store_si512(g.carries, carries);
    flush_carries(g, group, totals);
    carries = _mm512_setzero_si512();
  }
}

// Counts `vectors` x 64 morsels (values 0..63) at p into group g, two vectors
// at a time: each morsel becomes a one-hot qword, full adders fold them into
// the weight-1, 2, 4 and 8 digit planes, and the weight-16 carry's column
// counts go into carries. An odd last vector's weight-8 carry meets a zero.
HS_AVX512 void count_morsels(const std::uint8_t* p, std::uint64_t vectors, Group& g, int group, Bins& totals) {
  __m512i d0 = _mm512_load_si512(g.planes[0]);
  __m512i d1 = _mm512_load_si512(g.planes[1]);
  __m512i d2 = _mm512_load_si512(g.planes[2]);
  __m512i d3 = _mm512_load_si512(g.planes[3]);
  __m512i carries = _mm512_load_si512(g.carries);
  std::uint64_t i = 0;
  for (; i + 2 <= vectors; i += 2) {
    __m512i f0, f1, f2, f3;
    fold_vector(p + 64 * i, d0, d1, f0, f1);
    fold_vector(p + 64 * i + 64, d0, d1, f2, f3);
    const __m512i e0 = add_into(d2, f0, f1), e1 = add_into(d2, f2, f3);
    add_carry(add_into(d3, e0, e1), carries, g, group, totals);
  }
  if (i < vectors) {
    __m512i f0, f1;
    fold_vector(p + 64 * i, d0, d1, f0, f1);
    add_carry(add_into(d3, add_into(d2, f0, f1), _mm512_setzero_si512()), carries, g, group, totals);
  }
  _mm512_store_si512(g.planes[0], d0);
  _mm512_store_si512(g.planes[1], d1);
  _mm512_store_si512(g.planes[2], d2);
  _mm512_store_si512(g.planes[3], d3);
  _mm512_store_si512(g.carries, carries);
}

// Appends the morsels of v's `valid` bytes to their groups' buffers. Each
// group's mask is a compare of the bytes' top two bits straight into a mask
// register, not sign-bit masks combined in general registers: up to 8% faster
// (data/explorations/20261203T1845Z_zen4_kernel/README.md, variant K).
HS_AVX512 inline void bin_vector(__m512i v, __mmask64 valid, std::uint8_t* out[kGroups]) {
  const __m512i morsels = _mm512_and_si512(v, _mm512_set1_epi8(0x3F));
  const __m512i tops = _mm512_and_si512(v, _mm512_set1_epi8(char(0xC0)));
  __mmask64 in[kGroups];
  for (int g = 0; g < kGroups; ++g) in[g] = _mm512_mask_cmpeq_epi8_mask(valid, tops, _mm512_set1_epi8(char(g << 6)));
  for (int g = 0; g < kGroups; ++g) {
    _mm512_storeu_si512(out[g], _mm512_maskz_compress_epi8(in[g], morsels));
    out[g] += _mm_popcnt_u64(in[g]);
  }
}

// Counts n bytes at p into s (and, at each flush, totals).
HS_AVX512 void count_avx512(const std::uint8_t* p, std::uint64_t n, Avx512Counts& s, Bins& totals) {
  for (std::uint64_t done = 0; done < n;) {
    const std::uint64_t take = std::min(kBinBlock, n - done);
    std::uint8_t* out[kGroups];
    for (int g = 0; g < kGroups; ++g) out[g] = s.group[g].buf + s.group[g].left;
    std::uint64_t i = 0;
    for (; i + 64 <= take; i += 64) bin_vector(_mm512_loadu_si512(p + done + i), ~0ull, out);
    if (i < take) {
      const std::uint64_t valid = (1ull << (take - i)) - 1;
      bin_vector(_mm512_maskz_loadu_epi8(valid, p + done + i), valid, out);
    }
    for (int g = 0; g < kGroups; ++g) {
      Group& grp = s.group[g];
      const std::uint64_t held = std::uint64_t(out[g] - grp.buf), whole = held / 64;
      count_morsels(grp.buf, whole, grp, g, totals);
      if (whole) _mm512_store_si512(grp.buf, _mm512_loadu_si512(grp.buf + 64 * whole));  // the rest to the front
      grp.left = int(held % 64);
    }
    done += take;
  }
}

// Adds what s holds into totals and empties it.
HS_AVX512 void finish_avx512(Avx512Counts& s, Bins& totals) {
  for (int g = 0; g < kGroups; ++g) {
    Group& grp = s.group[g];
    flush_carries(grp, g, totals);
    for (int w = 0; w < kPlanes; ++w) {
      alignas(64) std::uint8_t counts[64];
      _mm512_store_si512(counts, column_counts(_mm512_load_si512(grp.planes[w])));
      for (int m = 0; m < kMorsels; ++m) totals[g * kMorsels + m] += std::uint64_t(counts[m]) << w;
    }
    for (int i = 0; i < grp.left; ++i) ++totals[g * kMorsels + grp.buf[i]];
    grp = Group{};
  }
}

#pragma GCC diagnostic pop

bool avx512_supported() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vbmi2") &&
         __builtin_cpu_supports("avx512bitalg") && __builtin_cpu_supports("gfni") &&
         __builtin_cpu_supports("popcnt");
}

// ---------------------------------------------------------------- dispatch

std::int64_t chunks_of(std::uint64_t n) { return std::int64_t(n / kChunkBytes + (n % kChunkBytes != 0)); }

void run_scalar(const std::uint8_t* bytes, std::uint64_t n, Bins& bins, int threads) {
#pragma omp parallel num_threads(resolve_threads(threads))
  {
    SubHistograms subs{};
    Bins mine{};  // 64-bit totals: no thread count or length overflows them
#pragma omp for schedule(dynamic, 1) nowait
    for (std::int64_t c = 0; c < chunks_of(n); ++c) {
      const std::uint64_t lo = std::uint64_t(c) * kChunkBytes;
      count_chunk_scalar(bytes + lo, std::min(kChunkBytes, n - lo), subs, mine);
    }
#pragma omp critical(histostudy_fast_merge)
    for (int v = 0; v < kBins; ++v) bins[v] += mine[v];
  }
}

void run_avx512(const std::uint8_t* bytes, std::uint64_t n, Bins& bins, int threads) {
#pragma omp parallel num_threads(resolve_threads(threads))
  {
    Avx512Counts counts;
    Bins mine{};
#pragma omp for schedule(dynamic, 1) nowait
    for (std::int64_t c = 0; c < chunks_of(n); ++c) {
      const std::uint64_t lo = std::uint64_t(c) * kChunkBytes;
      count_avx512(bytes + lo, std::min(kChunkBytes, n - lo), counts, mine);
    }
    finish_avx512(counts, mine);
#pragma omp critical(histostudy_fast_merge)
    for (int v = 0; v < kBins; ++v) bins[v] += mine[v];
  }
}

FastPath detect_path() { return avx512_supported() ? FastPath::avx512 : FastPath::scalar_8x16; }

}  // namespace

std::string_view fast_path_name(FastPath path) { return path == FastPath::avx512 ? "avx512" : "scalar-8x16"; }

bool fast_path_supported(FastPath path) { return path == FastPath::scalar_8x16 || avx512_supported(); }

FastPath openmp_fast_chosen_path() {
  static const FastPath chosen = detect_path();
  return chosen;
}

std::string_view openmp_fast_path() { return fast_path_name(openmp_fast_chosen_path()); }

void openmp_fast_via(FastPath path, std::span<const std::uint8_t> data, Bins& bins, int threads) {
  if (!fast_path_supported(path))
    throw Unavailable("openmp_fast's " + std::string(fast_path_name(path)) + " path needs AVX-512 (F, BW, VBMI, "
                      "VBMI2, BITALG) and GFNI, which this CPU lacks");
  if (path == FastPath::avx512)
    run_avx512(data.data(), data.size(), bins, threads);
  else
    run_scalar(data.data(), data.size(), bins, threads);
}

void openmp_fast(std::span<const std::uint8_t> data, Bins& bins, int threads) {
  openmp_fast_via(openmp_fast_chosen_path(), data, bins, threads);
}

}  // namespace hs::cpu
