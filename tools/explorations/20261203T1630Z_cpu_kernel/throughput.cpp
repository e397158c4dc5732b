// Scratch behind README.md: cycles per zmm instruction on this core, 8 independent chains of one instruction in
// registers, thread CPU clock, at the 3.55 GHz tools/explorations/cpu-avx512/clock.cpp measured.
//   g++ -O2 -std=c++20 throughput.cpp -o throughput && ./throughput
#include <immintrin.h>
#include <cstdio>
#include <ctime>
static double cpu_now() { timespec t{}; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
#define T __attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,avx512bitalg,gfni,avx512vl"), noinline))
#define BODY(OP) \
  __m512i a0 = _mm512_set1_epi64(1), a1 = _mm512_set1_epi64(2), a2 = _mm512_set1_epi64(3), a3 = _mm512_set1_epi64(4); \
  __m512i a4 = _mm512_set1_epi64(5), a5 = _mm512_set1_epi64(6), a6 = _mm512_set1_epi64(7), a7 = _mm512_set1_epi64(8); \
  const __m512i c = _mm512_set1_epi64(0x0102030405060708ll); const __mmask64 k = 0x5555555555555555ull; (void)k; (void)c; \
  for (long i = 0; i < n; ++i) { a0 = OP(a0); a1 = OP(a1); a2 = OP(a2); a3 = OP(a3); a4 = OP(a4); a5 = OP(a5); a6 = OP(a6); a7 = OP(a7); } \
  __m512i s = _mm512_xor_si512(_mm512_xor_si512(_mm512_xor_si512(a0, a1), _mm512_xor_si512(a2, a3)), _mm512_xor_si512(_mm512_xor_si512(a4, a5), _mm512_xor_si512(a6, a7))); \
  return _mm512_reduce_add_epi64(s);
#define F(name, OP) T long name(long n) { BODY(OP) }
#define ROLV(x) _mm512_rolv_epi64(x, c)
#define SRL(x) _mm512_srli_epi64(x, 8)
#define TERN(x) _mm512_ternarylogic_epi64(x, c, x, 0x96)
#define COMP(x) _mm512_maskz_compress_epi8(k, x)
#define COMPY(x) _mm512_castsi256_si512(_mm256_maskz_compress_epi8((__mmask32)k, _mm512_castsi512_si256(x)))
#define PERMB(x) _mm512_permutexvar_epi8(c, x)
#define AFF(x) _mm512_gf2p8affine_epi64_epi8(x, c, 0)
#define POP(x) _mm512_popcnt_epi8(x)
#define MSH(x) _mm512_multishift_epi64_epi8(c, x)
#define ADD(x) _mm512_add_epi8(x, c)
#define SHUFB(x) _mm512_shuffle_epi8(x, c)
#define MB2M(x) _mm512_movm_epi8(_mm512_movepi8_mask(x))
F(f_rolv, ROLV) F(f_srl, SRL) F(f_tern, TERN) F(f_comp, COMP) F(f_compy, COMPY) F(f_permb, PERMB) F(f_aff, AFF) F(f_pop, POP) F(f_msh, MSH) F(f_add, ADD) F(f_shufb, SHUFB) F(f_mb2m, MB2M)
int main() {
  struct { const char* name; long (*f)(long); } fs[] = {{"vprolvq", f_rolv}, {"vpsrlq", f_srl}, {"vpternlogq", f_tern}, {"vpcompressb zmm", f_comp}, {"vpcompressb ymm", f_compy}, {"vpermb", f_permb}, {"vgf2p8affineqb", f_aff}, {"vpopcntb", f_pop}, {"vpmultishiftqb", f_msh}, {"vpaddb", f_add}, {"vpshufb", f_shufb}, {"vpmovb2m+vpmovm2b", f_mb2m}};
  const long n = 50000000; const double ghz = 3.55;
  for (auto& f : fs) { double t0 = cpu_now(); long r = f.f(n); double t = cpu_now() - t0; std::printf("%-20s %.2f cycles an instruction (8 chains) [%ld]\n", f.name, t * ghz * 1e9 / (8.0 * n), r & 1); }
}
