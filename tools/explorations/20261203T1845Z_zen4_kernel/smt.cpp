// Whether the guest's two vCPUs share one physical core: a vector-bound loop (8 independent vpternlogq zmm chains)
// and a scalar latency-bound loop (a chain of dependent adds), each timed on vCPU 0 alone, then on vCPUs 0 and 1 at
// once. Siblings of one core halve the vector loop's rate per thread when both run; separate cores do not.
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>
static void pin(int cpu) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); pthread_setaffinity_np(pthread_self(), sizeof s, &s); }
__attribute__((target("avx512f"))) static double vector_loop(long n) {
  __m512i a0 = _mm512_set1_epi64(0), a1 = _mm512_set1_epi64(1), a2 = _mm512_set1_epi64(2), a3 = _mm512_set1_epi64(3);
  __m512i a4 = _mm512_set1_epi64(4), a5 = _mm512_set1_epi64(5), a6 = _mm512_set1_epi64(6), a7 = _mm512_set1_epi64(7);
  const __m512i b = _mm512_set1_epi64(3), c = _mm512_set1_epi64(5);
  auto t0 = std::chrono::steady_clock::now();
  for (long k = 0; k < n; ++k) {
    asm volatile("vpternlogq $0x96, %[c], %[b], %[a0]\n\tvpternlogq $0x96, %[c], %[b], %[a1]\n\t"
                 "vpternlogq $0x96, %[c], %[b], %[a2]\n\tvpternlogq $0x96, %[c], %[b], %[a3]\n\t"
                 "vpternlogq $0x96, %[c], %[b], %[a4]\n\tvpternlogq $0x96, %[c], %[b], %[a5]\n\t"
                 "vpternlogq $0x96, %[c], %[b], %[a6]\n\tvpternlogq $0x96, %[c], %[b], %[a7]"
                 : [a0] "+v"(a0), [a1] "+v"(a1), [a2] "+v"(a2), [a3] "+v"(a3), [a4] "+v"(a4), [a5] "+v"(a5),
                   [a6] "+v"(a6), [a7] "+v"(a7)
                 : [b] "v"(b), [c] "v"(c));
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  long long sink = _mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3)),
                                                            _mm512_add_epi64(_mm512_add_epi64(a4, a5), _mm512_add_epi64(a6, a7))));
  asm volatile("" ::"r"(sink));
  return 8.0 * n / s / 1e9;  // zmm instructions per ns
}
static double scalar_loop(long n) {
  unsigned long x = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (long k = 0; k < n; ++k) asm volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return 4.0 * n / s / 1e9;  // dependent adds per ns: the clock in GHz
}
template <class F> static void both(const char* what, F f, long n) {
  double alone; { std::thread t([&] { pin(0); alone = f(n); }); t.join(); }
  double r[2]; std::vector<std::thread> ts;
  for (int c = 0; c < 2; ++c) ts.emplace_back([&, c] { pin(c); r[c] = f(n); });
  for (auto& t : ts) t.join();
  std::printf("%-28s alone on vCPU 0: %.2f /ns; vCPUs 0 and 1 at once: %.2f and %.2f /ns\n", what, alone, r[0], r[1]);
}
int main() {
  for (int round = 0; round < 3; ++round) {
    both("vpternlogq zmm, 8 chains", vector_loop, 200'000'000);
    both("dependent adds (clock)", scalar_loop, 400'000'000);
  }
}
