// The GPU streaming count (see cuda/stream_count.hpp for the design).
#include "cuda/stream_count.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/gpu_executor.hpp"
#include "platform/error.hpp"

namespace hs::gpu {
namespace {

// The stream's bins: at the arena's first 2 MiB boundary, as a default run's.
const Placement kBinsAt{};

class StreamCount final : public GpuStream {
 public:
  StreamCount(GpuExecutor& executor, const Implementation& impl, ReadPlan plan);
  ~StreamCount() override { release(); }
  StreamCount(const StreamCount&) = delete;
  StreamCount& operator=(const StreamCount&) = delete;

  std::vector<std::span<std::uint8_t>> buffers() override;
  Bins count(ChunkSource& source) override;
  void copy(std::uint64_t bytes) override;
  const LaunchPolicy& policy() const override { return policy_; }

 private:
  void enqueue_chunk(std::size_t d, std::span<const std::uint8_t> bytes);
  const GpuExecutor::Prepared& prepared_for(std::uint64_t n);
  void release() noexcept;

  GpuExecutor& executor_;
  const Implementation& impl_;
  std::size_t chunk_;
  LaunchPolicy policy_;
  std::vector<std::uint8_t*> host_;  // the pinned ring
  // Per device buffer: its copy done (the count waits for it, and the host
  // before giving the host buffer back), the count of it done (the next
  // copy into it waits for that).
  std::array<unsigned char*, 2> device_{};
  std::array<cudaEvent_t, 2> copied_{}, counted_{};
  cudaStream_t copy_ = nullptr;
  GpuExecutor::Prepared run_;
  std::uint64_t run_bytes_ = 0;  // the chunk size run_ is prepared for; 0: none
};

StreamCount::StreamCount(GpuExecutor& executor, const Implementation& impl, ReadPlan plan)
    : executor_(executor), impl_(impl), chunk_(plan.chunk) {
  if (plan.chunk == 0 || plan.buffers < 2)
    throw Error("GPU stream: needs at least 2 buffers of at least 1 byte (got " + std::to_string(plan.buffers) +
                (plan.buffers == 1 ? " buffer" : " buffers") + " of " + std::to_string(plan.chunk) +
                (plan.chunk == 1 ? " byte)" : " bytes)"));
  LaunchPolicy requested;
  requested.counter_bits = 64;  // every chunk of a stream of any length adds into the same bins
  policy_ = executor.resolve(impl, requested, chunk_, 1);
  executor.shared().activate();
  host_.assign(std::size_t(plan.buffers), nullptr);
  try {
    HS_CUDA(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
    for (std::size_t d = 0; d < device_.size(); ++d) {
      void* raw = nullptr;
      HS_CUDA(cudaMalloc(&raw, chunk_));
      device_[d] = static_cast<unsigned char*>(raw);
      // The host waits on copied_: blocking, so it leaves the readers their cores.
      HS_CUDA(cudaEventCreateWithFlags(&copied_[d], cudaEventDisableTiming | cudaEventBlockingSync));
      HS_CUDA(cudaEventCreateWithFlags(&counted_[d], cudaEventDisableTiming));
    }
    for (auto& h : host_) {
      void* raw = nullptr;
      HS_CUDA(cudaHostAlloc(&raw, chunk_, cudaHostAllocDefault));
      h = static_cast<std::uint8_t*>(raw);
    }
  } catch (...) {
    release();
    throw;
  }
}

// Errors are ignored: a destructor must not throw, and a failed free leaves
// nothing to recover. Both streams are waited for first: no copy may still
// read a host buffer, nor a kernel a device buffer, once it is freed.
void StreamCount::release() noexcept {
  (void)cudaSetDevice(executor_.device());
  if (copy_) (void)cudaStreamSynchronize(copy_);
  (void)cudaStreamSynchronize(executor_.shared().stream());
  for (cudaEvent_t e : {copied_[0], copied_[1], counted_[0], counted_[1]})
    if (e) (void)cudaEventDestroy(e);
  for (unsigned char* d : device_)
    if (d) (void)cudaFree(d);
  for (std::uint8_t* h : host_)
    if (h) (void)cudaFreeHost(h);
  if (copy_) (void)cudaStreamDestroy(copy_);
  copied_ = counted_ = {};
  device_ = {};
  host_.clear();
  copy_ = nullptr;
}

std::vector<std::span<std::uint8_t>> StreamCount::buffers() {
  std::vector<std::span<std::uint8_t>> spans;
  for (std::uint8_t* h : host_) spans.emplace_back(h, chunk_);
  return spans;
}

// The run for chunks of n bytes: prepared for the full chunks and once more
// for a shorter last one (CUB sizes its temporary storage by n), after the
// counts before are done with what preparing may reallocate.
const GpuExecutor::Prepared& StreamCount::prepared_for(std::uint64_t n) {
  if (n != run_bytes_) {
    HS_CUDA(cudaStreamSynchronize(executor_.shared().stream()));
    run_ = executor_.prepare(impl_, policy_, kBinsAt, device_[0], n);
    run_bytes_ = n;
  }
  return run_;
}

// Copies a chunk into device buffer d once the count of the chunk before it
// there is done, and counts it there once the copy is done.
void StreamCount::enqueue_chunk(std::size_t d, std::span<const std::uint8_t> bytes) {
  const cudaStream_t compute = executor_.shared().stream();
  const GpuExecutor::Prepared& run = prepared_for(bytes.size());
  HS_CUDA(cudaStreamWaitEvent(copy_, counted_[d], 0));
  HS_CUDA(cudaMemcpyAsync(device_[d], bytes.data(), bytes.size(), cudaMemcpyHostToDevice, copy_));
  HS_CUDA(cudaEventRecord(copied_[d], copy_));
  HS_CUDA(cudaStreamWaitEvent(compute, copied_[d], 0));
  executor_.enqueue(run, device_[d], bytes.size());
  HS_CUDA(cudaEventRecord(counted_[d], compute));
}

Bins StreamCount::count(ChunkSource& source) {
  SharedDevice& device = executor_.shared();
  device.activate();
  device.zero_outputs(kBinsAt);
  run_bytes_ = 0;  // CUB keeps one size prepared, the last count's tail perhaps
  std::uint64_t streamed = 0;
  for (auto chunk = source.next(); !chunk.bytes.empty(); chunk = source.next()) {
    enqueue_chunk(chunk.seq % 2, chunk.bytes);
    streamed += chunk.bytes.size();
    // The chunk before was copied while this one was read: once its copy is
    // done, its host buffer goes back to the readers. Holding only this
    // chunk, the source can always read the next.
    if (chunk.seq > 0) {
      HS_CUDA(cudaEventSynchronize(copied_[(chunk.seq - 1) % 2]));
      source.release(chunk.seq - 1);
    }
  }
  std::array<unsigned long long, kBins> wide{};
  HS_CUDA(cudaMemcpyAsync(wide.data(), device.bins(kBinsAt), sizeof wide, cudaMemcpyDeviceToHost, device.stream()));
  HS_CUDA(cudaStreamSynchronize(device.stream()));
  Bins bins{};
  std::copy(wide.begin(), wide.end(), bins.begin());
  if (stats_of(bins).total != streamed)
    throw Error(std::string(impl_.name) + ": the bins hold " + std::to_string(stats_of(bins).total) + " bytes of the " +
                std::to_string(streamed) + " streamed");
  return bins;
}

void StreamCount::copy(std::uint64_t bytes) {
  executor_.shared().activate();
  std::uint64_t k = 0;
  for (std::uint64_t offset = 0; offset < bytes; offset += chunk_, ++k) {
    const std::size_t n = std::size_t(std::min<std::uint64_t>(chunk_, bytes - offset));
    HS_CUDA(cudaMemcpyAsync(device_[k % 2], host_[k % host_.size()], n, cudaMemcpyHostToDevice, copy_));
  }
  HS_CUDA(cudaStreamSynchronize(copy_));
}

}  // namespace

std::unique_ptr<GpuStream> make_stream_count(Executor& executor, const Implementation& impl, ReadPlan plan) {
  auto* gpu = dynamic_cast<GpuExecutor*>(&executor);
  if (!gpu || !impl.gpu || !impl.counts)
    throw UsageError(std::string(impl.name) + ": a GPU stream counts with a GPU implementation on a GPU executor");
  return std::make_unique<StreamCount>(*gpu, impl, plan);
}

}  // namespace hs::gpu
