// What bounds GPU count's readers on the H200 host: the kernel's page-cache
// read path, or the memory system? Each entry moves the file's bytes into a
// ring of four pinned 16 MiB buffers (cudaHostAlloc), as count's readers do,
// T threads each taking the next 1 MiB piece; nothing is copied to the GPU.
//   pread         pread(2) of each piece into the ring: count's readers today
//   map_memcpy    a fresh read-only mapping of the file (MAP_SHARED), each
//                 piece memcpy'd (glibc) from it into the ring
//   map_populate  the same, each piece first faulted in by
//                 madvise(MADV_POPULATE_READ)
//   map_stream    the same as map_populate, copied with AVX-512 loads and
//                 non-temporal stores (no read of the destination)
//   anon_memcpy   memcpy from 1 GiB of anonymous memory, faulted in before:
//                 what the memory system gives with no file at all
// T = 14 (count's readers on 16 cores) for every entry, and anon_memcpy and
// pread with 8 and 16 as well. Rotating order, ROUNDS rounds; medians,
// p10..p90, samples.
//   nvcc -O2 -std=c++17 -arch=sm_90 -Xcompiler -mavx512f -o read_probe read_probe.cu -lpthread
//   ./read_probe FILE [ROUNDS]
#include <cuda_runtime.h>
#include <fcntl.h>
#include <immintrin.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

#define CK(call)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace {

constexpr std::size_t kPiece = std::size_t(1) << 20;
constexpr std::size_t kRing = std::size_t(64) << 20;  // 4 x 16 MiB

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void stream_copy(unsigned char* dst, const unsigned char* src, std::size_t n) {
  std::size_t i = 0;
  for (; i + 256 <= n; i += 256) {
    const __m512i a = _mm512_loadu_si512(src + i), b = _mm512_loadu_si512(src + i + 64);
    const __m512i c = _mm512_loadu_si512(src + i + 128), d = _mm512_loadu_si512(src + i + 192);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i), a);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i + 64), b);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i + 128), c);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i + 192), d);
  }
  std::memcpy(dst + i, src + i, n - i);
  _mm_sfence();
}

enum class Way { pread, map_memcpy, map_populate, map_stream, anon_memcpy };

struct Setup {
  int fd;
  std::size_t size;
  unsigned char* ring;  // pinned
  unsigned char* anon;  // 1 GiB, faulted in
};

double pass(const Setup& s, Way way, int threads) {
  const double t = now();
  const unsigned char* src = s.anon;
  void* map = nullptr;
  if (way != Way::pread && way != Way::anon_memcpy) {
    map = mmap(nullptr, s.size, PROT_READ, MAP_SHARED, s.fd, 0);
    if (map == MAP_FAILED) std::perror("mmap"), std::exit(1);
    src = static_cast<const unsigned char*>(map);
  }
  std::atomic<std::size_t> next{0};
  const std::size_t pieces = (s.size + kPiece - 1) / kPiece;
  std::vector<std::thread> team;
  for (int i = 0; i < threads; ++i)
    team.emplace_back([&] {
      for (std::size_t k; (k = next++) < pieces;) {
        const std::size_t off = k * kPiece, n = std::min(kPiece, s.size - off);
        unsigned char* dst = s.ring + off % kRing;
        switch (way) {
          case Way::pread:
            if (pread(s.fd, dst, n, off_t(off)) != ssize_t(n)) std::perror("pread"), std::exit(1);
            break;
          case Way::map_populate:
            if (madvise(const_cast<unsigned char*>(src) + off, n, MADV_POPULATE_READ) != 0)
              std::perror("madvise"), std::exit(1);
            std::memcpy(dst, src + off, n);
            break;
          case Way::map_stream:
            if (madvise(const_cast<unsigned char*>(src) + off, n, MADV_POPULATE_READ) != 0)
              std::perror("madvise"), std::exit(1);
            stream_copy(dst, src + off, n);
            break;
          case Way::map_memcpy:
          case Way::anon_memcpy:
            std::memcpy(dst, src + (way == Way::anon_memcpy ? off % (std::size_t(1) << 30) : off), n);
            break;
        }
      }
    });
  for (auto& th : team) th.join();
  if (map) munmap(map, s.size);
  return now() - t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) return std::fprintf(stderr, "usage: read_probe FILE [ROUNDS]\n"), 2;
  const int rounds = argc == 3 ? std::atoi(argv[2]) : 9;
  Setup s{};
  s.fd = open(argv[1], O_RDONLY);
  struct stat st{};
  if (s.fd < 0 || fstat(s.fd, &st) != 0) return std::perror(argv[1]), 1;
  s.size = std::size_t(st.st_size);
  if (cudaHostAlloc(&s.ring, kRing, cudaHostAllocDefault) != cudaSuccess) {  // no GPU: a trial run of the probe
    std::printf("no GPU: the ring is not pinned\n");
    s.ring = static_cast<unsigned char*>(std::aligned_alloc(4096, kRing));
  }
  std::memset(s.ring, 0, kRing);
  s.anon = static_cast<unsigned char*>(std::aligned_alloc(4096, std::size_t(1) << 30));
  std::memset(s.anon, 1, std::size_t(1) << 30);

  struct Entry {
    std::string name;
    Way way;
    int threads;
    std::vector<double> gbps;
  };
  std::vector<Entry> entries;
  for (int t : {8, 14, 16}) entries.push_back({"pread" + std::to_string(t), Way::pread, t, {}});
  entries.push_back({"pread14_again", Way::pread, 14, {}});
  entries.push_back({"map_memcpy14", Way::map_memcpy, 14, {}});
  entries.push_back({"map_populate14", Way::map_populate, 14, {}});
  entries.push_back({"map_stream14", Way::map_stream, 14, {}});
  for (int t : {8, 14, 16}) entries.push_back({"anon_memcpy" + std::to_string(t), Way::anon_memcpy, t, {}});
  for (auto& e : entries) pass(s, e.way, e.threads);  // warm every path once
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < entries.size(); ++i) {
      Entry& e = entries[(i + std::size_t(r)) % entries.size()];
      e.gbps.push_back(double(s.size) / pass(s, e.way, e.threads) / 1e9);
    }
  std::printf("file %s, %zu bytes, %d rounds, %d-thread host\n", argv[1], s.size, rounds,
              int(std::thread::hardware_concurrency()));
  for (auto& e : entries) {
    std::vector<double> g = e.gbps;
    std::sort(g.begin(), g.end());
    auto at = [&](double q) { return g[std::size_t(q * double(g.size() - 1) + 0.5)]; };
    std::printf("%-16s median %6.1f GB/s  p10 %6.1f  p90 %6.1f  samples", e.name.c_str(), at(0.5), at(0.1), at(0.9));
    for (double x : e.gbps) std::printf(" %.1f", x);
    std::printf("\n");
  }
  return 0;
}
