// Scratch behind README.md: where the avx512 path's time goes on this core: binning alone (the compressing stores,
// counts discarded), counting alone (count_morsels over bytes already in 0..63), and counting alone with parts of its loop
// taken out. One core, 1 MiB, thread CPU clock. Built by explore.sh as kernels.cpp is, against the loop of commit
// 9e2f255 (three digit planes, 64-bit shifts).
#include "cpu_openmp/openmp_fast.cpp"
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>
#include <vector>
using namespace hs::cpu;
static double cpu_now() { timespec t{}; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
template <class F> static double median_s(F f) {
  std::vector<double> t;
  for (int r = 0; r < 11; ++r) { const double t0 = cpu_now(); f(); t.push_back(cpu_now() - t0); }
  std::sort(t.begin(), t.end());
  return t[5];
}
namespace hs::cpu { namespace {
HS_AVX512 void bin_only(const std::uint8_t* p, std::uint64_t n, Avx512Counts& s) {
  for (std::uint64_t done = 0; done < n; done += kBinBlock) {
    std::uint8_t* out[kGroups];
    for (int g = 0; g < kGroups; ++g) out[g] = s.group[g].buf;
    for (std::uint64_t i = 0; i < kBinBlock; i += 64) bin_vector(_mm512_loadu_si512(p + done + i), ~0ull, out);
    asm volatile("" ::"r"(out[0]), "r"(out[1]), "r"(out[2]), "r"(out[3]) : "memory");
  }
}
// Binning's compresses without their stores (each group's compressed vectors xored into a register): what the
// stores cost.
HS_AVX512 void bin_no_stores(const std::uint8_t* p, std::uint64_t n, std::uint8_t* sink) {
  __m512i acc[kGroups] = {};
  for (std::uint64_t i = 0; i < n; i += 64) {
    const __m512i v = _mm512_loadu_si512(p + i);
    const std::uint64_t bit7 = _mm512_movepi8_mask(v), bit6 = _mm512_movepi8_mask(_mm512_add_epi8(v, v));
    const __m512i morsels = _mm512_and_si512(v, _mm512_set1_epi8(0x3F));
    const std::uint64_t in[kGroups] = {~bit7 & ~bit6, ~bit7 & bit6, bit7 & ~bit6, bit7 & bit6};
    for (int g = 0; g < kGroups; ++g) acc[g] = _mm512_xor_si512(acc[g], _mm512_maskz_compress_epi8(in[g], morsels));
  }
  _mm512_storeu_si512(sink, _mm512_xor_si512(_mm512_xor_si512(acc[0], acc[1]), _mm512_xor_si512(acc[2], acc[3])));
}
HS_AVX512 void count_only(const std::uint8_t* m, std::uint64_t n, Avx512Counts& s, Bins& totals) {
  for (std::uint64_t done = 0; done + kBinBlock <= n; done += kBinBlock)
    count_morsels(m + done, kBinBlock / 64, s.group[0], 0, totals);
}
// Counting alone with parts of its loop taken out (the counts are then wrong; only the time is read): what each
// part costs. mode 1: no column counts (e is xored into eights); 2: no rotates (the loaded bytes are the one-hots);
// 3: unaligned loads at p + k in place of the shifts; 4: both 1 and 3.
template <int mode>
HS_AVX512 void count_part(const std::uint8_t* p, std::uint64_t vectors, Group& g) {
  __m512i d0 = _mm512_load_si512(g.planes[0]), d1 = _mm512_load_si512(g.planes[1]), d2 = _mm512_load_si512(g.planes[2]);
  __m512i eights = _mm512_load_si512(g.eights);
  const __m512i one = _mm512_set1_epi64(1);
  for (std::uint64_t i = 0; i < vectors; ++i) {
    __m512i x[8];
    const __m512i v = _mm512_loadu_si512(p + 64 * i);
    for (int k = 0; k < 8; ++k) {
      const __m512i c = mode == 3 || mode == 4 ? _mm512_loadu_si512(p + 64 * i + k) : k ? _mm512_srli_epi64(v, 8 * k) : v;
      x[k] = mode == 2 ? c : _mm512_rolv_epi64(one, c);
    }
    const __m512i t0 = add_into(d0, x[0], x[1]), t1 = add_into(d0, x[2], x[3]);
    const __m512i t2 = add_into(d0, x[4], x[5]), t3 = add_into(d0, x[6], x[7]);
    const __m512i f0 = add_into(d1, t0, t1), f1 = add_into(d1, t2, t3);
    const __m512i e = add_into(d2, f0, f1);
    eights = mode == 1 || mode == 4 ? _mm512_xor_si512(eights, e) : _mm512_add_epi8(eights, column_counts(e));
  }
  _mm512_store_si512(g.planes[0], d0), _mm512_store_si512(g.planes[1], d1), _mm512_store_si512(g.planes[2], d2);
  _mm512_store_si512(g.eights, eights);
}
template <int mode> HS_AVX512 void count_part_all(const std::uint8_t* m, std::uint64_t n, Avx512Counts& s) {
  for (std::uint64_t done = 0; done + kBinBlock <= n; done += kBinBlock) count_part<mode>(m + done, kBinBlock / 64, s.group[0]);
}
}}
int main() {
  const std::uint64_t n = 1 << 20;
  std::vector<std::uint8_t> u(n), m(n); std::mt19937_64 rng(7);
  for (std::uint64_t i = 0; i < n; ++i) u[i] = std::uint8_t(rng()), m[i] = u[i] & 63;
  Avx512Counts s; hs::Bins tot{};
  const double both = median_s([&] { count_avx512(u.data(), n, s, tot); });
  const double bin = median_s([&] { bin_only(u.data(), n, s); });
  const double nostore = median_s([&] { bin_no_stores(u.data(), n, s.group[0].buf); });
  std::printf("binning without its stores %.2f GB/s\n", n / nostore / 1e9);
  const double cnt = median_s([&] { count_only(m.data(), n, s, tot); });
  std::printf("both %.2f GB/s, binning alone %.2f, counting alone %.2f\n", n / both / 1e9, n / bin / 1e9, n / cnt / 1e9);
  const char* names[] = {"", "no column counts", "no rotates", "unaligned loads", "unaligned, no column counts"};
  double t[5] = {0, median_s([&] { count_part_all<1>(m.data(), n, s); }), median_s([&] { count_part_all<2>(m.data(), n, s); }),
                 median_s([&] { count_part_all<3>(m.data(), n, s); }), median_s([&] { count_part_all<4>(m.data(), n, s); })};
  for (int i = 1; i < 5; ++i) std::printf("counting, %-28s %.2f GB/s\n", names[i], n / t[i] / 1e9);
}
