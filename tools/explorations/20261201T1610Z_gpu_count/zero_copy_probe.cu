// Can the GPU count copy a page-cached file without the CPU's copy into
// pinned buffers? Times, on a file mapped read-only (MAP_SHARED):
//   register    cudaHostRegister(ReadOnly) of the mapping in R-byte regions,
//               then cudaHostUnregister of each (GB/s of each, separately)
//   h2d_mapped  the whole mapping registered, copied to the GPU in 16 MiB
//               cudaMemcpyAsync chunks on one stream
//   h2d_pinned  the same copies from one cudaHostAlloc'd 16 MiB buffer (the floor)
//   serial      register every region, copy, unregister, in turn: what a
//               zero-copy count's reads would cost at worst (no overlap)
// Each timed 5 times, medians printed. Build: nvcc -O2 -std=c++17 -o probe zero_copy_probe.cu
//   ./probe FILE
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CK(call)                                                                            \
  do {                                                                                      \
    cudaError_t e_ = (call);                                                                \
    if (e_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

static double seconds(const std::function<void()>& f) {
  auto t = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

static double median_gbps(std::size_t bytes, const std::function<void()>& f) {
  std::vector<double> g;
  for (int i = 0; i < 5; ++i) g.push_back(double(bytes) / seconds(f) / 1e9);
  std::sort(g.begin(), g.end());
  return g[2];
}

int main(int argc, char** argv) {
  if (argc != 2) return std::fprintf(stderr, "usage: probe FILE\n"), 2;
  int fd = open(argv[1], O_RDONLY);
  struct stat st{};
  if (fd < 0 || fstat(fd, &st) != 0) return std::perror(argv[1]), 1;
  const std::size_t size = std::size_t(st.st_size) & ~((std::size_t(16) << 20) - 1);
  auto* map = static_cast<unsigned char*>(mmap(nullptr, size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0));
  if (map == MAP_FAILED) return std::perror("mmap"), 1;
  const std::size_t chunk = std::size_t(16) << 20;
  unsigned char *dev = nullptr, *pinned = nullptr;
  CK(cudaMalloc(&dev, 2 * chunk));
  CK(cudaHostAlloc(&pinned, chunk, cudaHostAllocDefault));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  auto copy_all = [&](const unsigned char* base, bool same_buffer) {
    for (std::size_t off = 0, k = 0; off < size; off += chunk, ++k)
      CK(cudaMemcpyAsync(dev + (k % 2) * chunk, same_buffer ? base : base + off, chunk, cudaMemcpyHostToDevice, s));
    CK(cudaStreamSynchronize(s));
  };
  std::printf("file %s: %zu bytes mapped\n", argv[1], size);
  std::printf("h2d_pinned: %.1f GB/s\n", median_gbps(size, [&] { copy_all(pinned, true); }));
  for (std::size_t region : {std::size_t(16) << 20, std::size_t(64) << 20, std::size_t(256) << 20, size}) {
    if (region > size) continue;
    std::vector<double> reg, unreg;
    for (int i = 0; i < 5; ++i) {
      double r = 0, u = 0;
      for (std::size_t off = 0; off + region <= size; off += region) {
        r += seconds([&] { CK(cudaHostRegister(map + off, region, cudaHostRegisterReadOnly)); });
        u += seconds([&] { CK(cudaHostUnregister(map + off)); });
      }
      reg.push_back(double(size) / r / 1e9), unreg.push_back(double(size) / u / 1e9);
    }
    std::sort(reg.begin(), reg.end()), std::sort(unreg.begin(), unreg.end());
    std::printf("region %4zu MiB: register %.1f GB/s, unregister %.1f GB/s\n", region >> 20, reg[2], unreg[2]);
  }
  CK(cudaHostRegister(map, size, cudaHostRegisterReadOnly));
  std::printf("h2d_mapped (registered once): %.1f GB/s\n", median_gbps(size, [&] { copy_all(map, false); }));
  CK(cudaHostUnregister(map));
  for (std::size_t region : {std::size_t(64) << 20, std::size_t(256) << 20}) {
    auto serial = [&] {
      const std::size_t regions = size / region;
      for (std::size_t k = 0; k < regions; ++k) CK(cudaHostRegister(map + k * region, region, cudaHostRegisterReadOnly));
      for (std::size_t k = 0; k < regions; ++k)
        for (std::size_t off = 0; off < region; off += chunk)
          CK(cudaMemcpyAsync(dev + (off / chunk % 2) * chunk, map + k * region + off, chunk, cudaMemcpyHostToDevice, s));
      CK(cudaStreamSynchronize(s));
      for (std::size_t k = 0; k < regions; ++k) CK(cudaHostUnregister(map + k * region));
    };
    std::printf("serial register+copy+unregister, %zu MiB regions: %.1f GB/s\n", region >> 20,
                median_gbps(size, serial));
  }
  return 0;
}
