// histostudy count-bench FILE: how close `histostudy count` comes to the
// speed of its input, each implementation against its own floor in the same
// run. After checking the count bin for bin against the reference, it times
// whole passes over a page-cached regular file in rotating order, each
// after a short idle (--settle), five entries (CPU: six), among them count
// again, right after the floor's A/A pair (count's own A/A control):
//
//   CPU implementations: count_stream (reading overlapping counting),
//   reading the file and discarding it (one thread, as dd does: the floor),
//   that again (the A/A control), count's own parallel reads alone, and its
//   counting alone on a copy of the file's bytes in memory (count counting
//   in place, as from a mapping, is no faster than that; reading by copying
//   costs the copy too). Refused where the copy would not fit beside the
//   file's cached pages.
//
//   GPU implementations: count's GPU stream (cuda/stream_count.hpp), the
//   same bytes copied host to device in kH2dFloorCopy copies from pinned
//   buffers of their own with no read and no count (the floor, the same
//   whatever plan count is timed with), that again (the A/A control), and
//   its parallel reads into count's pinned buffers alone.
//
// Every timed pass starts after --settle of idle, as a count run on its own
// does: a read after idle runs slower than one right after another, so back
// to back each entry would be timed in the state its predecessor left
// (docs/decisions/count-plan.md, "count-bench: why every pass settles first").
//
// Medians with spread and every raw sample go to a JSON result file.
//
//   build/histostudy count-bench FILE [--impl openmp_fast] [--rounds 9] [--settle 50] [-o runs/count-bench]
//   build/histostudy count-bench FILE --impl lane_shared [--chunk 4MiB] [--buffers 8] [--piece 1MiB] [--device 0]
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hs {

// The idle before each timed pass: more than the 40 ms after which every
// state measured left a pass equally cold (docs/decisions/count-plan.md).
inline constexpr int kSettleMs = 50;
inline constexpr int kMaxSettleMs = 10000;

// The GPU floor's copies: 16 MiB whatever count's plan, since smaller copies
// run slower and would flatter a plan of small chunks (docs/decisions/count-plan.md).
inline constexpr std::uint64_t kH2dFloorCopy = std::uint64_t(16) << 20;
inline constexpr int kH2dFloorBuffers = 2;  // one filled while the other copies

struct CountBenchRequest {
  std::string path;
  std::string impl = "openmp_fast";
  int threads = 0;  // 0: OpenMP's default (the CPU's counting threads, or the GPU stream's reading threads)
  int rounds = 9;
  int settle_ms = kSettleMs;  // idle before each timed pass; 0: back to back
  std::uint64_t chunk = 0;  // GPU: bytes per chunk; 0: count's own (kGpuChunk)
  int buffers = 0;          // GPU: pinned buffers in the ring; 0: count's own (kGpuBuffers)
  std::uint64_t piece = 0;  // GPU: bytes a reading thread preads at a time; 0: count's own (kGpuPiece)
  std::string device;       // GPU: index or UUID; "" the first
  std::string out_dir = "runs/count-bench";
  bool no_save = false;
};

// Measures, saves (unless no_save) and returns the result document, with
// "result_file" set to where it was saved. Throws Error for a path that
// names nothing, UsageError for a file that is not regular, an
// implementation that does not count or a GPU option for a CPU
// implementation, Unavailable for a GPU implementation without a GPU, Error
// for a count that disagrees with the reference. A failure once a pass
// has been timed (the file changed, a read error) still saves the samples
// taken, in a document marked "incomplete" with the error and without the
// ratios, and then throws Error naming the file.
nlohmann::json count_bench(const CountBenchRequest& request, const std::vector<std::string>& argv);

// The lines `histostudy count-bench` prints for a result document.
std::string describe_count_bench(const nlohmann::json& doc);

}  // namespace hs
