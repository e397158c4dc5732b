// Scratch behind README.md: openmp_fast's avx512 path (bin + count, the whole kernel) against variants, one core,
// thread CPU clock (or with THREADS > 1 the team, by the wall clock, in run_avx512's
// chunks), 15 rounds in rotation with the committed kernel twice (its A/A pair). "committed" is the loop as it
// was at commit 9e2f255, before this note changed it (C1+C2 is the loop adopted): explore.sh builds this file with
// that commit's cpu_openmp/openmp_fast.cpp and .hpp first on the include path, and runs it as
//   kernels MiB THREADS INPUT...
// Variants (B: how a vector is binned; C: how morsels are counted):
//   C1  unaligned loads at p + k in place of the shifts v >> 8k (a rotate reads only a qword's low six bits)
//   C2  two 64-morsel vectors an iteration into a fourth digit plane: column counts every 128 morsels, not 64
//   B1  each group's compressed vector stored as its low 32 bytes, and its high 32 only where more than 32 went in
//   B2  256-bit compresses and stores: each half of the vector compressed on its own
//   B3  each group's compressed vector stored by a masked store of its n bytes alone (no bytes past them written)
#include "cpu_openmp/openmp_fast.cpp"
#include "driver/inputs.hpp"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <x86intrin.h>
#include <memory>
#include <type_traits>
#include <vector>
#pragma GCC target("avx512vl,bmi2")  // B2's 256-bit compresses, B3's bzhi (every CPU the avx512 path runs on has both)
namespace hs::cpu { namespace {
struct Group4 {  // Group with a fourth digit plane (C2); eights then counts sixteens
  alignas(64) std::uint8_t planes[4][64]{};
  alignas(64) std::uint8_t eights[64]{};
  int column_adds = 0;
  int left = 0;
  alignas(64) std::uint8_t buf[64 + kBinBlock + 64];
};
template <class G> struct Counts { G group[kGroups]; };

template <bool unaligned>
HS_AVX512 inline void one_hots(const std::uint8_t* q, __m512i one, __m512i x[8]) {
  const __m512i v = _mm512_loadu_si512(q);
  for (int k = 0; k < 8; ++k)
    x[k] = _mm512_rolv_epi64(one, unaligned ? _mm512_loadu_si512(q + k) : k ? _mm512_srli_epi64(v, 8 * k) : v);
}
// 8 one-hots into d0, d1: the two weight-4 carries
HS_AVX512 inline void eight_into(const __m512i x[8], __m512i& d0, __m512i& d1, __m512i& f0, __m512i& f1) {
  const __m512i t0 = add_into(d0, x[0], x[1]), t1 = add_into(d0, x[2], x[3]);
  const __m512i t2 = add_into(d0, x[4], x[5]), t3 = add_into(d0, x[6], x[7]);
  f0 = add_into(d1, t0, t1), f1 = add_into(d1, t2, t3);
}
template <bool unaligned, bool four_planes, class G>
HS_AVX512 void count_v(const std::uint8_t* p, std::uint64_t vectors, G& g, int group, Bins& totals) {
  constexpr int planes = four_planes ? 4 : 3;
  __m512i d[4];
  for (int w = 0; w < planes; ++w) d[w] = _mm512_load_si512(g.planes[w]);
  __m512i eights = _mm512_load_si512(g.eights);
  const __m512i one = _mm512_set1_epi64(1);
  std::uint64_t i = 0;
  auto column = [&](__m512i e) {
    eights = _mm512_add_epi8(eights, column_counts(e));
    if (++g.column_adds == kMaxColumnAdds) {
      _mm512_store_si512(g.eights, eights);
      for (int m = 0; m < kMorsels; ++m) totals[group * kMorsels + m] += (four_planes ? 16u : 8u) * g.eights[m];
      std::memset(g.eights, 0, sizeof g.eights);
      g.column_adds = 0;
      eights = _mm512_setzero_si512();
    }
  };
  if constexpr (four_planes) {
    for (; i + 2 <= vectors; i += 2) {
      __m512i x[8], f0, f1, f2, f3;
      one_hots<unaligned>(p + 64 * i, one, x), eight_into(x, d[0], d[1], f0, f1);
      one_hots<unaligned>(p + 64 * i + 64, one, x), eight_into(x, d[0], d[1], f2, f3);
      const __m512i e0 = add_into(d[2], f0, f1), e1 = add_into(d[2], f2, f3);
      column(add_into(d[3], e0, e1));
    }
    if (i < vectors) {  // an odd vector: its weight-8 carry goes into d3 with a zero
      __m512i x[8], f0, f1;
      one_hots<unaligned>(p + 64 * i, one, x), eight_into(x, d[0], d[1], f0, f1);
      const __m512i e0 = add_into(d[2], f0, f1);
      column(add_into(d[3], e0, _mm512_setzero_si512()));
    }
  } else {
    for (; i < vectors; ++i) {
      __m512i x[8], f0, f1;
      one_hots<unaligned>(p + 64 * i, one, x), eight_into(x, d[0], d[1], f0, f1);
      column(add_into(d[2], f0, f1));
    }
  }
  for (int w = 0; w < planes; ++w) _mm512_store_si512(g.planes[w], d[w]);
  _mm512_store_si512(g.eights, eights);
}
template <int binning>
HS_AVX512 inline void bin_v(__m512i v, std::uint64_t valid, std::uint8_t* out[kGroups]) {
  const std::uint64_t bit7 = _mm512_movepi8_mask(v);
  const std::uint64_t bit6 = _mm512_movepi8_mask(_mm512_add_epi8(v, v));
  const __m512i morsels = _mm512_and_si512(v, _mm512_set1_epi8(0x3F));
  const std::uint64_t in[kGroups] = {~bit7 & ~bit6 & valid, ~bit7 & bit6 & valid, bit7 & ~bit6 & valid,
                                     bit7 & bit6 & valid};
  for (int g = 0; g < kGroups; ++g) {
    const int n = int(_mm_popcnt_u64(in[g]));
    if constexpr (binning == 0) {
      _mm512_storeu_si512(out[g], _mm512_maskz_compress_epi8(in[g], morsels));
    } else if constexpr (binning == 1) {
      const __m512i c = _mm512_maskz_compress_epi8(in[g], morsels);
      _mm256_storeu_si256((__m256i*)out[g], _mm512_castsi512_si256(c));
      if (n > 32) _mm256_storeu_si256((__m256i*)(out[g] + 32), _mm512_extracti64x4_epi64(c, 1));
    } else if constexpr (binning == 3) {
      _mm512_mask_storeu_epi8(out[g], _bzhi_u64(~0ull, unsigned(n)), _mm512_maskz_compress_epi8(in[g], morsels));
    } else {
      const __m256i lo = _mm512_castsi512_si256(morsels), hi = _mm512_extracti64x4_epi64(morsels, 1);
      const std::uint32_t mlo = std::uint32_t(in[g]), mhi = std::uint32_t(in[g] >> 32);
      _mm256_storeu_si256((__m256i*)out[g], _mm256_maskz_compress_epi8(mlo, lo));
      _mm256_storeu_si256((__m256i*)(out[g] + _mm_popcnt_u32(mlo)), _mm256_maskz_compress_epi8(mhi, hi));
    }
    out[g] += n;
  }
}
template <int binning, bool unaligned, bool four_planes, class G>
HS_AVX512 void count_all(const std::uint8_t* p, std::uint64_t n, Counts<G>& s, Bins& totals) {
  for (std::uint64_t done = 0; done < n;) {
    const std::uint64_t take = std::min(kBinBlock, n - done);
    std::uint8_t* out[kGroups];
    for (int g = 0; g < kGroups; ++g) out[g] = s.group[g].buf + s.group[g].left;
    std::uint64_t i = 0;
    for (; i + 64 <= take; i += 64) bin_v<binning>(_mm512_loadu_si512(p + done + i), ~0ull, out);
    if (i < take) {
      const std::uint64_t valid = (1ull << (take - i)) - 1;
      bin_v<binning>(_mm512_maskz_loadu_epi8(valid, p + done + i), valid, out);
    }
    for (int g = 0; g < kGroups; ++g) {
      G& grp = s.group[g];
      const std::uint64_t held = std::uint64_t(out[g] - grp.buf), whole = held / 64;
      count_v<unaligned, four_planes>(grp.buf, whole, grp, g, totals);
      if (whole) _mm512_store_si512(grp.buf, _mm512_loadu_si512(grp.buf + 64 * whole));
      grp.left = int(held % 64);
    }
    done += take;
  }
}
template <class G> HS_AVX512 void finish(Counts<G>& s, Bins& totals) {
  constexpr int planes = sizeof(G::planes) / 64;
  for (int g = 0; g < kGroups; ++g) {
    G& grp = s.group[g];
    for (int m = 0; m < kMorsels; ++m) totals[g * kMorsels + m] += (1u << planes) * grp.eights[m];
    for (int w = 0; w < planes; ++w) {
      alignas(64) std::uint8_t counts[64];
      _mm512_store_si512(counts, column_counts(_mm512_load_si512(grp.planes[w])));
      for (int m = 0; m < kMorsels; ++m) totals[g * kMorsels + m] += std::uint64_t(counts[m]) << w;
    }
    for (int i = 0; i < grp.left; ++i) ++totals[g * kMorsels + grp.buf[i]];
    grp = G{};
  }
}

// P: binning block b + 1 interleaved with counting block b's morsels, one 64-morsel vector counted after each
// vector binned, so that the binning's stores and the counting's vector work overlap. Each group has two buffers:
// block b's morsels are counted from one while block b + 1 is binned into the other.
struct PGroup {
  alignas(64) std::uint8_t planes[3][64]{};
  alignas(64) std::uint8_t eights[64]{};
  int column_adds = 0;
  int left = 0;
  alignas(64) std::uint8_t buf[2][64 + kBinBlock + 64];
};
struct PCounts {
  PGroup group[kGroups];
  int set = 0;                       // the buffers binned into next
  std::uint64_t whole[kGroups] = {};  // vectors of the other set not yet counted
};
void flush_eights(PGroup& g, int group, Bins& totals) {
  for (int m = 0; m < kMorsels; ++m) totals[group * kMorsels + m] += 8u * g.eights[m];
  std::memset(g.eights, 0, sizeof g.eights);
  g.column_adds = 0;
}
void flush_eights_p(PGroup& g, int group, Bins& totals) { flush_eights(g, group, totals); }
// Counting state of one group in registers.
struct Live {
  __m512i d0, d1, d2, eights;
};
HS_AVX512 inline void load_live(Live& l, const PGroup& g) {
  l.d0 = _mm512_load_si512(g.planes[0]), l.d1 = _mm512_load_si512(g.planes[1]);
  l.d2 = _mm512_load_si512(g.planes[2]), l.eights = _mm512_load_si512(g.eights);
}
HS_AVX512 inline void store_live(const Live& l, PGroup& g) {
  _mm512_store_si512(g.planes[0], l.d0), _mm512_store_si512(g.planes[1], l.d1);
  _mm512_store_si512(g.planes[2], l.d2), _mm512_store_si512(g.eights, l.eights);
}
HS_AVX512 inline void count_one(const std::uint8_t* q, Live& l, PGroup& g, int group, Bins& totals) {
  __m512i x[8], f0, f1;
  one_hots<true>(q, _mm512_set1_epi64(1), x), eight_into(x, l.d0, l.d1, f0, f1);
  l.eights = _mm512_add_epi8(l.eights, column_counts(add_into(l.d2, f0, f1)));
  if (++g.column_adds == kMaxColumnAdds) {
    _mm512_store_si512(g.eights, l.eights);
    flush_eights(g, group, totals);
    l.eights = _mm512_setzero_si512();
  }
}
// Walks the groups' uncounted vectors of one set in order: group 0's, then group 1's...
struct Cursor {
  int g = 0;
  std::uint64_t i = 0;  // next vector of group g
};
HS_AVX512 inline bool next_vector(PCounts& s, int set, Cursor& c, Live& l) {
  while (c.i == s.whole[c.g]) {
    store_live(l, s.group[c.g]);
    if (++c.g == kGroups) return false;
    c.i = 0;
    load_live(l, s.group[c.g]);
  }
  (void)set;
  return true;
}
HS_AVX512 void count_pipelined(const std::uint8_t* p, std::uint64_t n, PCounts& s, Bins& totals) {
  for (std::uint64_t done = 0; done < n;) {
    const std::uint64_t take = std::min(kBinBlock, n - done);
    const int in = s.set, out_set = in ^ 1;  // bin into `in`; count what the last block left in the other
    std::uint8_t* out[kGroups];
    for (int g = 0; g < kGroups; ++g) out[g] = s.group[g].buf[in] + s.group[g].left;
    Cursor c;
    Live l;
    load_live(l, s.group[0]);
    bool more = next_vector(s, out_set, c, l);
    std::uint64_t i = 0;
    for (; i + 64 <= take; i += 64) {
      bin_vector(_mm512_loadu_si512(p + done + i), ~0ull, out);
      if (more) {
        count_one(s.group[c.g].buf[out_set] + 64 * c.i, l, s.group[c.g], c.g, totals);
        ++c.i;
        more = next_vector(s, out_set, c, l);
      }
    }
    if (i < take) {
      const std::uint64_t valid = (1ull << (take - i)) - 1;
      bin_vector(_mm512_maskz_loadu_epi8(valid, p + done + i), valid, out);
    }
    while (more) {
      count_one(s.group[c.g].buf[out_set] + 64 * c.i, l, s.group[c.g], c.g, totals);
      ++c.i;
      more = next_vector(s, out_set, c, l);
    }
    for (int g = 0; g < kGroups; ++g) {  // this block's whole vectors wait; the rest go to the other set's front
      PGroup& grp = s.group[g];
      const std::uint64_t held = std::uint64_t(out[g] - grp.buf[in]);
      s.whole[g] = held / 64;
      _mm512_store_si512(grp.buf[out_set], _mm512_loadu_si512(grp.buf[in] + 64 * s.whole[g]));
      grp.left = int(held % 64);
    }
    s.set = out_set;
    done += take;
  }
}
HS_AVX512 void finish_pipelined(PCounts& s, Bins& totals) {
  const int last = s.set ^ 1;  // the set binned last, its whole vectors not yet counted
  for (int g = 0; g < kGroups; ++g) {
    PGroup& grp = s.group[g];
    Live l;
    load_live(l, grp);
    for (std::uint64_t i = 0; i < s.whole[g]; ++i) count_one(grp.buf[last] + 64 * i, l, grp, g, totals);
    store_live(l, grp);
    flush_eights_p(grp, g, totals);
    for (int w = 0; w < 3; ++w) {
      alignas(64) std::uint8_t counts[64];
      _mm512_store_si512(counts, column_counts(_mm512_load_si512(grp.planes[w])));
      for (int m = 0; m < kMorsels; ++m) totals[g * kMorsels + m] += std::uint64_t(counts[m]) << w;
    }
    for (int i = 0; i < grp.left; ++i) ++totals[g * kMorsels + grp.buf[s.set][i]];
    grp = PGroup{};
    s.whole[g] = 0;
  }
  s.set = 0;
}
struct Variant {
  const char* name;
  hs::Bins (*histogram)(const std::vector<std::uint8_t>&);
  void (*time)(const std::vector<std::uint8_t>&, int reps);
  void (*parallel)(const std::vector<std::uint8_t>&, int threads);  // as run_avx512: dynamic 524,280-byte chunks
};
template <class S, class Count, class Finish>
void in_chunks(const std::vector<std::uint8_t>& m, int threads, Count count, Finish finish) {
#pragma omp parallel num_threads(threads)
  {
    auto s = std::make_unique<S>(); hs::Bins mine{};
#pragma omp for schedule(dynamic, 1) nowait
    for (std::int64_t c = 0; c < chunks_of(m.size()); ++c) {
      const std::uint64_t lo = std::uint64_t(c) * kChunkBytes;
      count(m.data() + lo, std::min(kChunkBytes, m.size() - lo), *s, mine);
    }
    finish(*s, mine);
    asm volatile("" ::"r"(mine.data()) : "memory");
  }
}
template <int binning, bool unaligned, bool four_planes> Variant variant(const char* name) {
  using G = std::conditional_t<four_planes, Group4, Group>;
  return {name,
          [](const std::vector<std::uint8_t>& m) {
            auto s = std::make_unique<Counts<G>>(); hs::Bins t{};
            count_all<binning, unaligned, four_planes>(m.data(), m.size(), *s, t), finish(*s, t);
            return t;
          },
          [](const std::vector<std::uint8_t>& m, int reps) {
            auto s = std::make_unique<Counts<G>>(); hs::Bins t{};
            for (int r = 0; r < reps; ++r) count_all<binning, unaligned, four_planes>(m.data(), m.size(), *s, t);
          },
          [](const std::vector<std::uint8_t>& m, int threads) {
            in_chunks<Counts<G>>(m, threads, count_all<binning, unaligned, four_planes, G>, finish<G>);
          }};
}
Variant pipelined(const char* name) {
  return {name,
          [](const std::vector<std::uint8_t>& m) {
            auto s = std::make_unique<PCounts>(); hs::Bins t{};
            count_pipelined(m.data(), m.size(), *s, t), finish_pipelined(*s, t);
            return t;
          },
          [](const std::vector<std::uint8_t>& m, int reps) {
            auto s = std::make_unique<PCounts>(); hs::Bins t{};
            for (int r = 0; r < reps; ++r) count_pipelined(m.data(), m.size(), *s, t);
          },
          [](const std::vector<std::uint8_t>& m, int threads) {
            in_chunks<PCounts>(m, threads, count_pipelined, finish_pipelined);
          }};
}
}}  // namespace hs::cpu::(anonymous)
using namespace hs::cpu;
static double cpu_now() { timespec t{}; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static double wall_now() { timespec t{}; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
// kernels MiB THREADS INPUT... : THREADS 1 times one core by its CPU clock, more the team by the wall clock.
int main(int argc, char** argv) {
  if (argc < 4) { std::puts("usage: kernels MiB THREADS INPUT... (the study's input names)"); return 2; }
  const std::uint64_t n = std::strtoull(argv[1], nullptr, 10) << 20;
  const int threads = std::atoi(argv[2]);
  const Variant all[] = {variant<0, false, false>("committed"), variant<0, false, false>("committed again"),
                         variant<0, true, false>("C1"), variant<0, false, true>("C2"), variant<0, true, true>("C1+C2"),
                         variant<1, true, true>("B1+C1+C2"), variant<2, true, true>("B2+C1+C2"), pipelined("P"),
                         variant<3, false, false>("B3"), variant<3, true, true>("B3+C1+C2")};
  // VARIANTS=name,name,... picks some (the committed kernel and its repeat always run)
  std::vector<Variant> vs(all, all + 2);
  const std::string pick = std::getenv("VARIANTS") ? std::string(",") + std::getenv("VARIANTS") + "," : "";
  for (auto& v : all) if (&v >= all + 2 && (pick.empty() || pick.find("," + std::string(v.name) + ",") != std::string::npos)) vs.push_back(v);
  const int kv = int(vs.size());
  for (int a = 3; a < argc; ++a) {
    const std::vector<std::uint8_t> m = hs::make_input(hs::parse_input(argv[a]), n);
    hs::Bins want{}; for (auto b : m) ++want[b];
    for (auto& v : vs) if (v.histogram(m) != want) { std::printf("%s miscounts %s\n", v.name, argv[a]); return 1; }
    std::vector<std::vector<double>> t(kv);
    const int reps = std::max<int>(1, int((32ull << 20) / n));
    for (int round = 0; round < 15; ++round)
      for (int j = 0; j < kv; ++j) {
        const int e = (round + j) % kv;
        const double t0 = threads == 1 ? cpu_now() : wall_now();
        for (int r = 0; r < reps; ++r) threads == 1 ? vs[e].time(m, 1) : vs[e].parallel(m, threads);
        t[e].push_back(((threads == 1 ? cpu_now() : wall_now()) - t0) / reps);
      }
    std::printf("%-14s %4llu MiB %d thread(s):", argv[a], (unsigned long long)(n >> 20), threads);
    for (int e = 0; e < kv; ++e) {
      std::sort(t[e].begin(), t[e].end());
      std::printf("  %s %.2f (%.2f-%.2f)", vs[e].name, n / t[e][7] / 1e9, n / t[e][12] / 1e9, n / t[e][2] / 1e9);
    }
    std::printf(" GB/s\n");
  }
}
