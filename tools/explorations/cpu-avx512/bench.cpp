// Scratch benchmark behind data/explorations/cpu-avx512/README.md: each
// openmp_fast path and the parallel read floor on the same buffer, in
// rotating order, checked against the reference first. Build and run with
// explore.sh beside it.
//
//   bench SIZE THREADS ROUNDS INPUT...
// prints, per input and path, the median GB/s with p10..p90 and the best
// over ROUNDS rotations, and the path's median as a percent of the floor's.
// With THREADS 1 it times by the thread's CPU clock (bytes per second on a
// core), so that other work on a shared machine stretches the samples less;
// otherwise by the wall clock.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cpu_openmp/openmp_fast.hpp"
#include "cpu_openmp/openmp_histogram.hpp"
#include "driver/inputs.hpp"
#include "driver/sizes.hpp"

namespace {

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * double(v.size() - 1);
  const std::size_t lo = std::size_t(pos);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

bool g_cpu_clock = false;

double now() {
  if (!g_cpu_clock)
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

template <typename F>
double seconds(F&& f) {
  const double t0 = now();
  f();
  return now() - t0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: bench SIZE THREADS ROUNDS INPUT...\n");
    return 2;
  }
  const std::uint64_t size = hs::parse_size(argv[1]);
  const int threads = std::atoi(argv[2]), rounds = std::atoi(argv[3]);
  g_cpu_clock = threads == 1;
  using hs::cpu::FastPath;
  std::vector<FastPath> paths = {FastPath::scalar_8x16};
  if (hs::cpu::fast_path_supported(FastPath::avx512)) paths.push_back(FastPath::avx512);
  const int entries = int(paths.size()) + 1;  // the floor last
  std::printf("size %llu threads %d rounds %d clock %s chosen %s\n", (unsigned long long)size, threads, rounds,
              g_cpu_clock ? "thread-cpu" : "wall", std::string(hs::cpu::openmp_fast_path()).c_str());
  for (int a = 4; a < argc; ++a) {
    const auto data = hs::make_input(hs::parse_input(argv[a]), size);
    hs::Bins want{};
    hs::cpu::reference(data, want);
    for (FastPath p : paths) {
      hs::Bins got{};
      hs::cpu::openmp_fast_via(p, data, got, threads);
      if (got != want) {
        std::printf("%s: %s is WRONG\n", argv[a], std::string(hs::cpu::fast_path_name(p)).c_str());
        return 1;
      }
    }
    // Repetitions per sample so one sample lasts about 20 ms.
    hs::Bins sink{};
    const double one = seconds([&] { hs::cpu::openmp_fast_via(paths[0], data, sink, threads); });
    const int reps = std::max(1, int(0.02 / std::max(one, 1e-9)));
    std::vector<std::vector<double>> gbps(entries);
    volatile std::uint64_t floor_sink = 0;
    for (int r = 0; r < rounds; ++r)
      for (int k = 0; k < entries; ++k) {
        const int e = (r + k) % entries;  // rotating order
        const double s = seconds([&] {
          for (int i = 0; i < reps; ++i) {
            if (e < int(paths.size()))
              hs::cpu::openmp_fast_via(paths[e], data, sink, threads);
            else
              floor_sink = floor_sink + hs::cpu::openmp_read_floor(data, threads);
          }
        });
        gbps[e].push_back(double(size) * reps / s / 1e9);
      }
    const double floor_median = percentile(gbps.back(), 0.5);
    for (int e = 0; e < entries; ++e) {
      const std::string name = e < int(paths.size()) ? std::string(hs::cpu::fast_path_name(paths[e])) : "read_floor";
      const double med = percentile(gbps[e], 0.5);
      std::printf("%-16s %-12s %7.2f GB/s (p10 %6.2f p90 %6.2f best %6.2f) %5.0f%% of floor\n", argv[a],
                  name.c_str(), med, percentile(gbps[e], 0.1), percentile(gbps[e], 0.9), percentile(gbps[e], 1.0),
                  100 * med / floor_median);
    }
    std::fflush(stdout);
  }
}
