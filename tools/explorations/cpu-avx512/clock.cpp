// Scratch behind README.md ("Cycles a byte"): this core's clock, from chains of 8 dependent 64-bit adds (one
// cycle each; the loop's own counter and branch run beside them).  g++ -O2 tools/explorations/cpu-avx512/clock.cpp -o clock && tools/explorations/cpu-avx512/when_quiet.sh ./clock
#include <chrono>
#include <cstdio>
#include <cstdint>
int main() {
  for (int r = 0; r < 5; ++r) {
    std::uint64_t x = r;
    const std::uint64_t n = 2'000'000'000;
    auto t0 = std::chrono::steady_clock::now();
    for (std::uint64_t i = 0; i < n / 8; ++i) {
      asm volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%.2f GHz (x=%llu)\n", n / s / 1e9, (unsigned long long)x);
  }
}
