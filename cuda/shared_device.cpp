#include "cuda/shared_device.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>

#include "cuda/check.hpp"
#include "cuda/clock_probe.hpp"
#include "platform/error.hpp"

namespace hs::gpu {
namespace {

constexpr std::size_t kBinsBytes = kBins * sizeof(std::uint64_t);  // room for 64-bit counters
constexpr std::size_t k2MiB = std::size_t(2) << 20;
// The arena: a 2 MiB boundary within it, then the largest offset and the bins.
constexpr std::size_t kArenaBytes = k2MiB + Placement::kMaxOffset + kBinsBytes;
constexpr std::size_t kProbeSlots = 4096;  // a ring; a slot is read before the ring comes round

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  HS_CUDA(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

std::uint64_t mod_2mib(const void* p) { return std::uint64_t(reinterpret_cast<std::uintptr_t>(p) % k2MiB); }

}  // namespace

int SharedDevice::count() {
  int count = 0;
  const cudaError_t found = cudaGetDeviceCount(&count);
  if (found != cudaSuccess) {
    (void)cudaGetLastError();  // clear it: this is an answer, not a fault
    // The runtime says "driver version is insufficient" when there is no driver at all.
    void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!driver) throw Unavailable(std::string("no CUDA driver: libcuda.so.1 cannot be loaded (") + ::dlerror() + ")");
    ::dlclose(driver);
    throw Unavailable(std::string("no CUDA GPU: ") + cudaGetErrorString(found) + " (" + cudaGetErrorName(found) +
                      ")");
  }
  if (count == 0) throw Unavailable("no CUDA GPU: cudaGetDeviceCount found no device");
  return count;
}

SharedDevice::SharedDevice(int device) : device_(device) {
  const int count = SharedDevice::count();
  if (device < 0 || device >= count)
    throw UsageError("no CUDA device " + std::to_string(device) + ": this machine has " + std::to_string(count) +
                     " (0.." + std::to_string(count - 1) + ")");
  try {
    HS_CUDA(cudaSetDevice(device));
    limits_.cc_major = attribute(cudaDevAttrComputeCapabilityMajor, device);
    limits_.cc_minor = attribute(cudaDevAttrComputeCapabilityMinor, device);
    limits_.sm_count = attribute(cudaDevAttrMultiProcessorCount, device);
    limits_.max_threads_per_block = attribute(cudaDevAttrMaxThreadsPerBlock, device);
    limits_.max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, device);
    limits_.shared_per_block = std::size_t(attribute(cudaDevAttrMaxSharedMemoryPerBlock, device));
    limits_.shared_per_block_optin = std::size_t(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    limits_.shared_per_sm = std::size_t(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    peak_clock_mhz_ = attribute(cudaDevAttrClockRate, device) / 1000.0;
    cudaDeviceProp prop{};
    HS_CUDA(cudaGetDeviceProperties(&prop, device));
    name_ = prop.name;
    HS_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    HS_CUDA(cudaMalloc(&arena_, kArenaBytes));
    const auto arena = reinterpret_cast<std::uintptr_t>(arena_);
    arena_base_ = static_cast<unsigned char*>(arena_) + (k2MiB - arena % k2MiB) % k2MiB;
    void* raw = nullptr;
    HS_CUDA(cudaMalloc(&raw, sizeof(unsigned long long)));
    sum_ = static_cast<unsigned long long*>(raw);
    HS_CUDA(cudaMalloc(&raw, kProbeSlots * 2 * sizeof(unsigned long long)));
    probes_ = static_cast<unsigned long long*>(raw);
    flush_bytes_ = std::max<std::size_t>(2 * std::size_t(attribute(cudaDevAttrL2CacheSize, device)), 1);
    HS_CUDA(cudaMalloc(&flush_, flush_bytes_));
  } catch (...) {
    release();
    throw;
  }
}

SharedDevice::~SharedDevice() { release(); }

// Errors are ignored: a destructor must not throw, and a failed free leaves
// nothing to recover.
void SharedDevice::release() noexcept {
  (void)cudaSetDevice(device_);
  for (void* p : {static_cast<void*>(input_), arena_, static_cast<void*>(sum_), scratch_, flush_,
                  static_cast<void*>(probes_)})
    if (p) (void)cudaFree(p);
  if (stream_) (void)cudaStreamDestroy(stream_);
  input_ = nullptr, arena_ = nullptr, sum_ = nullptr, scratch_ = nullptr, flush_ = nullptr, probes_ = nullptr;
  stream_ = nullptr;
}

void SharedDevice::activate() const { HS_CUDA(cudaSetDevice(device_)); }

void SharedDevice::load(std::span<const std::uint8_t> data) {
  activate();
  loaded_ = false;
  if (data.size() > capacity_ || !input_) {
    if (input_) HS_CUDA(cudaFree(input_));
    input_ = nullptr;
    capacity_ = 0;
    const std::size_t bytes = std::max<std::size_t>(data.size(), 16);  // never a null buffer, even for n = 0
    void* raw = nullptr;
    HS_CUDA(cudaMalloc(&raw, bytes));
    input_ = static_cast<unsigned char*>(raw);
    capacity_ = bytes;
  }
  if (!data.empty()) HS_CUDA(cudaMemcpyAsync(input_, data.data(), data.size(), cudaMemcpyHostToDevice, stream_));
  HS_CUDA(cudaStreamSynchronize(stream_));
  n_ = data.size();
  loaded_ = true;
}

void* SharedDevice::bins(const Placement& placement) const {
  const Placement checked = Placement::checked(placement.bins_offset);
  return arena_base_ + checked.bins_offset;
}

void* SharedDevice::scratch(std::size_t bytes) {
  if (bytes <= scratch_capacity_) return scratch_;
  if (scratch_) HS_CUDA(cudaFree(scratch_));
  scratch_ = nullptr;
  scratch_capacity_ = 0;
  HS_CUDA(cudaMalloc(&scratch_, bytes));
  scratch_capacity_ = bytes;
  HS_CUDA(cudaMemsetAsync(scratch_, 0, bytes, stream_));  // the contract: zero whenever allocated
  return scratch_;
}

void SharedDevice::zero_outputs(const Placement& placement) {
  HS_CUDA(cudaMemsetAsync(bins(placement), 0, kBinsBytes, stream_));
  HS_CUDA(cudaMemsetAsync(sum_, 0, sizeof(unsigned long long), stream_));
}

void SharedDevice::flush_l2() { HS_CUDA(cudaMemsetAsync(flush_, int(next_probe_ & 0xff), flush_bytes_, stream_)); }

std::size_t SharedDevice::probe_clock() {
  const std::size_t slot = next_probe_++ % kProbeSlots;
  enqueue_clock_probe(probes_ + 2 * slot, stream_);
  return slot;
}

double SharedDevice::probe_mhz(std::size_t slot) const {
  unsigned long long pair[2] = {0, 0};
  HS_CUDA(cudaMemcpy(pair, probes_ + 2 * slot, sizeof pair, cudaMemcpyDeviceToHost));
  return pair[1] ? double(pair[0]) / double(pair[1]) * 1e3 : 0.0;
}

nlohmann::json SharedDevice::placement_record(const Placement& placement) const {
  return {{"bins_offset", placement.bins_offset},
          {"bins_mod_2mib", mod_2mib(bins(placement))},
          {"input_mod_2mib", mod_2mib(input_)},
          {"byte_sum_mod_2mib", mod_2mib(sum_)},
          {"scratch_mod_2mib", scratch_ ? nlohmann::json(mod_2mib(scratch_)) : nlohmann::json(nullptr)}};
}

}  // namespace hs::gpu
