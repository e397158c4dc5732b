#include "cuda/gpu_executor.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "cuda/check.hpp"
#include "cuda/device_record.hpp"
#include "study/error.hpp"

namespace hs::gpu {
namespace {

constexpr std::size_t kBinsBufferBytes = kBins * sizeof(std::uint64_t);  // room for 64-bit counters

// cudaMalloc for a typed pointer (the typed overloads live in cuda_runtime.h,
// which plain C++ does not include).
template <typename T>
cudaError_t device_alloc(T** pointer, std::size_t bytes) {
  void* raw = nullptr;
  const cudaError_t result = cudaMalloc(&raw, bytes);
  *pointer = static_cast<T*>(raw);
  return result;
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  HS_CUDA(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

}  // namespace

GpuExecutor::GpuExecutor(int device) : device_(device) {
  int count = 0;
  const cudaError_t found = cudaGetDeviceCount(&count);
  if (found != cudaSuccess) {
    (void)cudaGetLastError();  // clear it: this is an answer, not a fault
    throw Unavailable(std::string("no CUDA GPU: ") + cudaGetErrorString(found) + " (" + cudaGetErrorName(found) +
                      ")");
  }
  if (count == 0) throw Unavailable("no CUDA GPU: cudaGetDeviceCount found no device");
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
    cudaDeviceProp prop{};
    HS_CUDA(cudaGetDeviceProperties(&prop, device));
    name_ = prop.name;
    HS_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    HS_CUDA(cudaMalloc(&bins_, kBinsBufferBytes));
    HS_CUDA(device_alloc(&sum_, sizeof(unsigned long long)));
  } catch (...) {
    release();
    throw;
  }
}

GpuExecutor::~GpuExecutor() { release(); }

// Frees what the executor holds. Errors are ignored: a destructor must not
// throw, and a failed free leaves nothing to recover.
void GpuExecutor::release() noexcept {
  (void)cudaSetDevice(device_);
  for (auto& [start, stop] : events_) {
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
  }
  events_.clear();
  if (data_) (void)cudaFree(data_);
  if (bins_) (void)cudaFree(bins_);
  if (sum_) (void)cudaFree(sum_);
  if (scratch_) (void)cudaFree(scratch_);
  if (stream_) (void)cudaStreamDestroy(stream_);
  data_ = nullptr;
  bins_ = nullptr;
  sum_ = nullptr;
  scratch_ = nullptr;
  scratch_capacity_ = 0;
  stream_ = nullptr;
}

void GpuExecutor::activate() const { HS_CUDA(cudaSetDevice(device_)); }

std::string GpuExecutor::compute_capability() const {
  return std::to_string(limits_.cc_major) + "." + std::to_string(limits_.cc_minor);
}

nlohmann::json GpuExecutor::device_json() const {
  int driver = 0, runtime = 0;
  HS_CUDA(cudaDriverGetVersion(&driver));
  HS_CUDA(cudaRuntimeGetVersion(&runtime));
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  nlohmann::json record = {{"index", device_},
                           {"name", name_},
                           {"compute_capability", compute_capability()},
                           {"sm_count", limits_.sm_count},
                           {"max_threads_per_block", limits_.max_threads_per_block},
                           {"shared_per_block", limits_.shared_per_block},
                           {"shared_per_block_optin", limits_.shared_per_block_optin},
                           {"shared_per_sm", limits_.shared_per_sm},
                           {"driver_cuda_version", version(driver)},
                           {"runtime_version", version(runtime)}};
  record.update(device_record(device_));
  return record;
}

bool GpuExecutor::supports(const Implementation& impl) const { return impl.gpu != nullptr; }

LaunchPolicy GpuExecutor::resolve(const Implementation& impl, LaunchPolicy requested, std::uint64_t n,
                                  int runs) const {
  if (!impl.gpu) throw UsageError(std::string(impl.name) + " is not a GPU implementation");
  return impl.gpu->resolve(requested, n, runs, limits_);
}

void GpuExecutor::load(std::span<const std::uint8_t> data) {
  activate();
  loaded_ = false;
  if (data.size() > capacity_ || !data_) {
    if (data_) HS_CUDA(cudaFree(data_));
    data_ = nullptr;
    capacity_ = 0;
    const std::size_t bytes = std::max<std::size_t>(data.size(), 16);  // never a null buffer, even for n = 0
    HS_CUDA(device_alloc(&data_, bytes));
    capacity_ = bytes;
  }
  if (!data.empty()) HS_CUDA(cudaMemcpyAsync(data_, data.data(), data.size(), cudaMemcpyHostToDevice, stream_));
  HS_CUDA(cudaStreamSynchronize(stream_));
  n_ = data.size();
  loaded_ = true;
}

GpuExecutor::Prepared GpuExecutor::prepare(const Implementation& impl, const LaunchPolicy& policy) {
  if (!impl.gpu) throw UsageError(std::string(impl.name) + " is not a GPU implementation");
  if (!loaded_) throw Error("GPU executor: " + std::string(impl.name) + " run before any input was loaded");
  Prepared run;
  run.library = impl.gpu->library;
  run.counter_bits = policy.counter_bits;
  run.out = impl.counts ? bins_ : static_cast<void*>(sum_);
  if (impl.counts && run.counter_bits != 32 && run.counter_bits != 64)
    throw Error(std::string(impl.name) + ": counter width " + std::to_string(run.counter_bits) +
                " is not 32 or 64 (resolve the policy first)");
  if (run.library) {
    cub_.prepare(data_, n_, stream_);
    return run;
  }
  run.plan = impl.gpu->plan(policy, n_);
  std::size_t scratch_bytes = 0;
  for (const auto& l : run.plan) {
    if (l.grid == 0 || l.block == 0)
      throw Error(std::string(impl.name) + ": launch of " + l.kernel + " with grid " + std::to_string(l.grid) +
                  " x block " + std::to_string(l.block) + " (resolve the policy first)");
    scratch_bytes = std::max(scratch_bytes, l.scratch_bytes);
  }
  ensure_scratch(scratch_bytes);
  return run;
}

// Sized here, outside any timed region (KernelLaunch::scratch_bytes).
void GpuExecutor::ensure_scratch(std::size_t bytes) {
  if (bytes <= scratch_capacity_) return;
  if (scratch_) HS_CUDA(cudaFree(scratch_));
  scratch_ = nullptr;
  scratch_capacity_ = 0;
  HS_CUDA(cudaMalloc(&scratch_, bytes));
  scratch_capacity_ = bytes;
}

void GpuExecutor::enqueue(const Prepared& run) {
  if (run.library) {
    cub_.enqueue(data_, n_, run.out, run.counter_bits, stream_);
    return;
  }
  const unsigned char* data = data_;
  unsigned long long n = n_;
  void* out = run.out;
  void* scratch = scratch_;
  for (const auto& l : run.plan) {
    unsigned slice = l.slice;
    void* args[] = {&data, &n, &out, &slice, &scratch};
    launch(l, args);
  }
}

void GpuExecutor::zero_outputs() {
  HS_CUDA(cudaMemsetAsync(bins_, 0, kBinsBufferBytes, stream_));
  HS_CUDA(cudaMemsetAsync(sum_, 0, sizeof(unsigned long long), stream_));
}

void GpuExecutor::ensure_events(std::size_t pairs) {
  while (events_.size() < pairs) {
    cudaEvent_t start = nullptr, stop = nullptr;
    HS_CUDA(cudaEventCreate(&start));
    const cudaError_t made = cudaEventCreate(&stop);
    if (made != cudaSuccess) (void)cudaEventDestroy(start);
    HS_CUDA(made);
    events_.emplace_back(start, stop);
  }
}

RunOutput GpuExecutor::run_once(const Implementation& impl, const LaunchPolicy& policy) {
  activate();
  const Prepared run = prepare(impl, policy);
  zero_outputs();
  enqueue(run);
  RunOutput result;
  if (!impl.counts) {
    unsigned long long sum = 0;
    HS_CUDA(cudaMemcpyAsync(&sum, sum_, sizeof sum, cudaMemcpyDeviceToHost, stream_));
    HS_CUDA(cudaStreamSynchronize(stream_));
    result.byte_sum = sum;
    return result;
  }
  if (run.counter_bits == 64) {
    std::array<unsigned long long, kBins> wide{};
    HS_CUDA(cudaMemcpyAsync(wide.data(), bins_, sizeof wide, cudaMemcpyDeviceToHost, stream_));
    HS_CUDA(cudaStreamSynchronize(stream_));
    std::copy(wide.begin(), wide.end(), result.bins.begin());
  } else {
    std::array<unsigned, kBins> narrow{};
    HS_CUDA(cudaMemcpyAsync(narrow.data(), bins_, sizeof narrow, cudaMemcpyDeviceToHost, stream_));
    HS_CUDA(cudaStreamSynchronize(stream_));
    std::copy(narrow.begin(), narrow.end(), result.bins.begin());
  }
  result.byte_sum = byte_sum(result.bins);
  return result;
}

std::vector<double> GpuExecutor::time_each(const Implementation& impl, const LaunchPolicy& policy, int warmups,
                                           int reps) {
  if (warmups < 0 || reps < 0)
    throw UsageError("warm-up and timed run counts must be >= 0 (got " + std::to_string(warmups) + " and " +
                     std::to_string(reps) + ")");
  activate();
  const Prepared run = prepare(impl, policy);
  ensure_events(std::size_t(reps));
  zero_outputs();
  for (int w = 0; w < warmups; ++w) enqueue(run);
  for (int r = 0; r < reps; ++r) {
    HS_CUDA(cudaEventRecord(events_[std::size_t(r)].first, stream_));
    enqueue(run);
    HS_CUDA(cudaEventRecord(events_[std::size_t(r)].second, stream_));
  }
  HS_CUDA(cudaStreamSynchronize(stream_));
  std::vector<double> ms(static_cast<std::size_t>(reps));
  for (int r = 0; r < reps; ++r) {
    float elapsed = 0;
    HS_CUDA(cudaEventElapsedTime(&elapsed, events_[std::size_t(r)].first, events_[std::size_t(r)].second));
    ms[std::size_t(r)] = elapsed;
  }
  return ms;
}

double GpuExecutor::time_back_to_back(const Implementation& impl, const LaunchPolicy& policy, int warmups,
                                      int reps) {
  if (warmups < 0 || reps < 1)
    throw UsageError("back-to-back timing needs >= 0 warm-ups and >= 1 timed run (got " + std::to_string(warmups) +
                     " and " + std::to_string(reps) + ")");
  activate();
  const Prepared run = prepare(impl, policy);
  ensure_events(1);
  zero_outputs();
  for (int w = 0; w < warmups; ++w) enqueue(run);
  HS_CUDA(cudaEventRecord(events_[0].first, stream_));
  for (int r = 0; r < reps; ++r) enqueue(run);
  HS_CUDA(cudaEventRecord(events_[0].second, stream_));
  HS_CUDA(cudaStreamSynchronize(stream_));
  float elapsed = 0;
  HS_CUDA(cudaEventElapsedTime(&elapsed, events_[0].first, events_[0].second));
  return double(elapsed) / reps;
}

}  // namespace hs::gpu
