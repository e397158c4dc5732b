// Scratch behind README.md ("Tried"): count_morsels with a shorter loop-carried chain (the digit planes enter
// the adder tree last: one full adder deep for d0 a vector, not four), and that with vpmultishiftqb; one core,
// 1 MiB of morsels, thread CPU clock, in turn with the committed loop and its repeat (an A/A pair):
//   g++ -std=c++20 -O3 -fopenmp -I. -Istudy -Ibuild tools/explorations/cpu-avx512/count3.cpp build/libhistostudy_core.a -o count3
//   tools/explorations/cpu-avx512/when_quiet.sh ./count3
#include "cpu_openmp/openmp_fast.cpp"
#include <ctime>
#include <cstdio>
#include <random>
#include <vector>
namespace hs::cpu { namespace {
HS_AVX512 inline void csa(__m512i& s, __m512i& c, __m512i a, __m512i b, __m512i d) { c = carry3(a, b, d); s = sum3(a, b, d); }
template <int mode>
HS_AVX512 void count_morsels3(const std::uint8_t* p, std::uint64_t vectors, Group& g, int group, Bins& totals) {
  __m512i d0 = _mm512_load_si512(g.planes[0]);
  __m512i d1 = _mm512_load_si512(g.planes[1]);
  __m512i d2 = _mm512_load_si512(g.planes[2]);
  __m512i eights = _mm512_load_si512(g.eights);
  const __m512i one = _mm512_set1_epi64(1);
  for (std::uint64_t i = 0; i < vectors; ++i) {
    const __m512i v = _mm512_loadu_si512(p + 64 * i);
    __m512i x[8];
    x[0] = _mm512_rolv_epi64(one, v);
    for (int k = 1; k < 8; ++k)
      x[k] = mode == 4 ? _mm512_rolv_epi64(one, _mm512_multishift_epi64_epi8(_mm512_set1_epi64(8 * k), v))
                       : _mm512_rolv_epi64(one, _mm512_srli_epi64(v, 8 * k));
    __m512i a0, c0, a1, c1, a2, c2, c3, s, k0, k1, e;
    csa(a0, c0, x[0], x[1], x[2]);
    csa(a1, c1, x[3], x[4], x[5]);
    csa(a2, c2, x[6], x[7], d0);
    csa(d0, c3, a0, a1, a2);
    csa(s, k0, d1, c0, c1);
    csa(d1, k1, s, c2, c3);
    csa(d2, e, d2, k0, k1);
    eights = _mm512_add_epi8(eights, column_counts(e));
    if (++g.column_adds == kMaxColumnAdds) {
      _mm512_store_si512(g.eights, eights);
      flush_eights(g, group, totals);
      eights = _mm512_setzero_si512();
    }
  }
  _mm512_store_si512(g.planes[0], d0);
  _mm512_store_si512(g.planes[1], d1);
  _mm512_store_si512(g.planes[2], d2);
  _mm512_store_si512(g.eights, eights);
}
template <int mode>
HS_AVX512 void count_only(const std::uint8_t* m, std::uint64_t n, Avx512Counts& s, Bins& totals) {
  for (std::uint64_t done = 0; done + kBinBlock <= n; done += kBinBlock) {
    const int g = int((done / kBinBlock) % 4);
    if constexpr (mode == 0) count_morsels(m + done, kBinBlock / 64, s.group[g], g, totals);
    else count_morsels3<mode>(m + done, kBinBlock / 64, s.group[g], g, totals);
  }
}
template <int mode> hs::Bins counts_of(const std::uint8_t* m, std::uint64_t n) {
  Avx512Counts s; hs::Bins t{}; count_only<mode>(m, n, s, t);
  for (int g = 0; g < kGroups; ++g) { s.group[g].left = 0; } finish_avx512(s, t); return t;
}
}}
using namespace hs::cpu;
double cpu_now() { timespec t{}; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main() {
  const std::uint64_t n = 1 << 20;
  std::vector<std::uint8_t> m(n); std::mt19937_64 rng(7);
  for (auto& b : m) b = std::uint8_t(rng() & 63);
  const auto want = counts_of<0>(m.data(), n);
  if (counts_of<3>(m.data(), n) != want || counts_of<4>(m.data(), n) != want) { std::puts("miscount"); return 1; }
  auto time = [&](auto f) { std::vector<double> t; for (int r = 0; r < 15; ++r) { double t0 = cpu_now(); for (int k = 0; k < 64; ++k) f(); t.push_back((cpu_now() - t0) / 64); } std::sort(t.begin(), t.end()); return n / t[7] / 1e9; };
  Avx512Counts s; hs::Bins tot{};
  for (int round = 0; round < 3; ++round) {
    std::printf("count_morsels               %6.2f GB/s\n", time([&] { count_only<0>(m.data(), n, s, tot); }));
    std::printf("short chain                 %6.2f GB/s\n", time([&] { count_only<3>(m.data(), n, s, tot); }));
    std::printf("short chain + multishift    %6.2f GB/s\n", time([&] { count_only<4>(m.data(), n, s, tot); }));
    std::printf("count_morsels again         %6.2f GB/s\n", time([&] { count_only<0>(m.data(), n, s, tot); }));
  }
}
