// `histostudy count` for GPU implementations at the speed of its input:
// the GPU side of study/count/count.hpp's GpuStream.
//
// The readers (study/count/count.hpp: FileChunkReader's threads for a regular
// file, ChunkReader for a pipe) fill a ring of pinned host buffers; each
// chunk is copied with cudaMemcpyAsync on a copy stream into one of two
// device buffers, and the implementation's kernels (or CUB) count it on the
// shared device's stream as soon as its copy is done (an event between the
// streams), adding into one set of 64-bit bins for the whole stream, read
// back once at the end. A host buffer goes back to the readers only once
// its copy is done, a device buffer is copied into again only once the
// count of the chunk before in it is done. So reading (the host's cores),
// copying (the copy engine) and counting (the SMs) overlap. The plan's
// sizes: docs/decisions/count-plan.md.
//
//   build/histostudy count --impl lane_shared FILE     build/histostudy count-bench FILE --impl lane_shared
#pragma once
#include <memory>

#include "count/count.hpp"
#include "driver/executor.hpp"
#include "driver/registry.hpp"

namespace hs::gpu {

// The stream of `impl` (a GPU implementation that counts) on `executor` (a
// GPU executor; UsageError otherwise): plan.buffers pinned host buffers and
// two device buffers of plan.chunk bytes, allocated here, once.
std::unique_ptr<GpuStream> make_stream_count(Executor& executor, const Implementation& impl, ReadPlan plan);

}  // namespace hs::gpu
