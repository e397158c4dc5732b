// Scratch behind README.md: two instructions interleaved, 4 chains each: 0.5 cycles an instruction where they
// issue to different pipes, 1.0 where they share one (see throughput.cpp for each alone).
//   g++ -O2 -std=c++20 pairs.cpp -o pairs && ./pairs
#include <immintrin.h>
#include <cstdio>
#include <ctime>
static double cpu_now() { timespec t{}; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
#define T __attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512bitalg,gfni,avx512vl"), noinline))
// 4 chains of A and 4 of B, interleaved: cycles per pair
#define BODY(A, B) \
  __m512i a0 = _mm512_set1_epi64(1), a1 = _mm512_set1_epi64(2), a2 = _mm512_set1_epi64(3), a3 = _mm512_set1_epi64(4); \
  __m512i a4 = _mm512_set1_epi64(5), a5 = _mm512_set1_epi64(6), a6 = _mm512_set1_epi64(7), a7 = _mm512_set1_epi64(8); \
  const __m512i c = _mm512_set1_epi64(0x0102030405060708ll); const __mmask64 k = 0x5555555555555555ull; (void)k; (void)c; \
  for (long i = 0; i < n; ++i) { a0 = A(a0); a1 = B(a1); a2 = A(a2); a3 = B(a3); a4 = A(a4); a5 = B(a5); a6 = A(a6); a7 = B(a7); } \
  __m512i s = _mm512_xor_si512(_mm512_xor_si512(_mm512_xor_si512(a0, a1), _mm512_xor_si512(a2, a3)), _mm512_xor_si512(_mm512_xor_si512(a4, a5), _mm512_xor_si512(a6, a7))); \
  return _mm512_reduce_add_epi64(s);
#define F(name, A, B) T long name(long n) { BODY(A, B) }
#define ROLV(x) _mm512_rolv_epi64(x, c)
#define SRL(x) _mm512_srli_epi64(x, 8)
#define COMP(x) _mm512_maskz_compress_epi8(k, x)
#define PERMB(x) _mm512_permutexvar_epi8(c, x)
#define AFF(x) _mm512_gf2p8affine_epi64_epi8(x, c, 0)
#define POP(x) _mm512_popcnt_epi8(x)
#define MSH(x) _mm512_multishift_epi64_epi8(c, x)
#define SHUFB(x) _mm512_shuffle_epi8(x, c)
#define MULLO(x) _mm512_mullo_epi16(x, c)
F(rolv_srl, ROLV, SRL) F(rolv_comp, ROLV, COMP) F(rolv_permb, ROLV, PERMB) F(rolv_aff, ROLV, AFF) F(rolv_pop, ROLV, POP) F(rolv_msh, ROLV, MSH) F(rolv_shufb, ROLV, SHUFB) F(rolv_mullo, ROLV, MULLO) F(mullo_mullo, MULLO, MULLO) F(comp_permb, COMP, PERMB) F(comp_aff, COMP, AFF) F(comp_pop, COMP, POP) F(aff_pop, AFF, POP) F(permb_aff, PERMB, AFF)
int main() {
  struct { const char* name; long (*f)(long); } fs[] = {{"rolv+srl", rolv_srl}, {"rolv+compress", rolv_comp}, {"rolv+permb", rolv_permb}, {"rolv+affine", rolv_aff}, {"rolv+popcnt", rolv_pop}, {"rolv+multishift", rolv_msh}, {"rolv+shufb", rolv_shufb}, {"rolv+mullo16", rolv_mullo}, {"mullo16 alone", mullo_mullo}, {"compress+permb", comp_permb}, {"compress+affine", comp_aff}, {"compress+popcnt", comp_pop}, {"affine+popcnt", aff_pop}, {"permb+affine", permb_aff}};
  const long n = 50000000; const double ghz = 3.55;
  for (auto& f : fs) { double t0 = cpu_now(); long r = f.f(n); double t = cpu_now() - t0; std::printf("%-20s %.2f cycles an instruction [%ld]\n", f.name, t * ghz * 1e9 / (8.0 * n), r & 1); }
}
