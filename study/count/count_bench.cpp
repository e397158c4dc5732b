#include "count/count_bench.hpp"

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include "cpu_openmp/openmp_fast.hpp"
#include "cpu_openmp/openmp_histogram.hpp"
#include "count/count.hpp"
#include "platform/env.hpp"
#include "platform/error.hpp"
#include "driver/executor.hpp"
#include "platform/files.hpp"
#include "platform/host_load.hpp"
#include "platform/printable.hpp"
#include "platform/progress.hpp"
#include "driver/results.hpp"
#include "driver/session.hpp"
#include "driver/sizes.hpp"
#include "driver/stats.hpp"

namespace hs {
namespace {

// A path that names nothing is an error, as count says it; anything but a
// non-empty regular file a usage error (stat, not open: opening a FIFO would
// wait for its writer).
FileVersion bench_file(const std::string& path) {
  if (path == "-") throw UsageError("count-bench times a regular file named by its path, not standard input");
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) throw Error(os_error(path, "cannot open"));
  if (!S_ISREG(st.st_mode) || st.st_size == 0)
    throw UsageError(path + ": count-bench times a non-empty regular file (page-cached), not a stream");
  return version_of(st);
}

// A count whose bins differ from the reference's: the file is not the one the
// bench began with, to the file system's time resolution (a pass that opened
// it after it changed counts the new bytes whole, and the reference counted
// the old), or `impl` miscounted.
[[noreturn]] void count_differs(const std::string& impl, const std::string& path, const FileVersion& began) {
  bool same = false;
  try {
    same = bench_file(path) == began;
  } catch (const Error&) {  // gone, or no longer a regular file: changed too
  }
  if (!same) throw Error(path + ": changed while timed");
  throw Error(impl + " miscounted " + path + " (bins differ from the reference's)");
}

// Fraction of the file's pages in the page cache (mincore on a mapping that
// is never touched, so asking reads nothing).
double page_cached_fraction(const std::string& path, std::uint64_t size) {
  Fd fd(open_for_reading(path));
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd.get(), 0);
  if (map == MAP_FAILED) return -1;
  const std::uint64_t page = std::uint64_t(::sysconf(_SC_PAGESIZE)), pages = (size + page - 1) / page;
  std::vector<unsigned char> resident(pages);
  std::uint64_t in = 0;
  if (::mincore(map, size, resident.data()) == 0)
    for (unsigned char r : resident) in += r & 1;
  ::munmap(map, size);
  return double(in) / double(pages);
}

// The floor: read(2) into one buffer of count's chunk size, on one thread,
// the bytes discarded (what `dd bs=CHUNK of=/dev/null` does).
std::uint64_t read_and_discard(const std::string& path, std::size_t chunk) {
  Fd fd(open_for_reading(path));
  std::vector<std::uint8_t> buf(chunk);
  std::uint64_t total = 0;
  while (const std::size_t n = read_some(fd.get(), buf.data(), buf.size(), path)) total += n;
  return total;
}

// The reads count makes, discarded: `threads` threads pread kCpuPiece
// bytes at a time into their own buffers.
std::uint64_t pread_and_discard(const std::string& path, int threads) {
  Fd fd(open_for_reading(path));
  std::atomic<std::uint64_t> next{0}, total{0};
  std::mutex mutex;
  std::exception_ptr error;  // the first read error, as pread_some said it
#pragma omp parallel num_threads(threads)
  {
    std::vector<std::uint8_t> buf(kCpuPiece);
    try {
      for (;;) {
        const std::size_t n = pread_some(fd.get(), buf.data(), buf.size(), next.fetch_add(buf.size()), path);
        total += n;
        if (n < buf.size()) break;
      }
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  return total;
}

// An entry's A/A repeat, as count-bench names it.
std::string again(const std::string& entry) { return entry + "_again"; }

// What the timed passes alone took, and what others took from the machine
// while they ran: the idle between passes, and the untimed first passes,
// left out.
struct PassUse {
  double seconds = 0, others_cpu_s = 0, steal_s = 0;
};

double seconds_of(const std::function<void()>& body) {
  const auto start = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Entry {
  std::string name, what;
  std::function<void()> pass;  // one whole pass over the file, checked
  std::vector<double> seconds;
};

// One backend's bench: four entries, in this order, whose ratios the result
// states (count to the floor, the floor's A/A control, count to its own
// reads alone), a fifth for CPU implementations (count's counting alone,
// its bound), and what the result document records of this backend;
// count_bench adds count's own A/A repeat after the floor's.
struct Bench {
  std::vector<Entry> entries;  // count, the floor, the floor again, count's reads alone[, its counting alone]
  std::string floor;           // the floor's ratios: count_pct_of_<floor>, control_pct_of_<floor>
  std::string floor_what;      // the floor and count's reads alone, as the summary names them
  std::string reads_what;
  nlohmann::json record;       // merged into the result document
  std::string stem;            // what the result file's name says after the date
  std::function<nlohmann::json()> device_state = [] { return nlohmann::json(nullptr); };
};

void check_bytes(const std::string& path, std::uint64_t bytes, std::uint64_t size) {
  if (bytes != size) throw Error(path + ": changed while timed");
}

// The version of the bench's file as a pass opened it: what count_on_gpu and
// FileChunkReader check it against at the end.
FileVersion opened_version(const Fd& fd, const std::string& path) {
  const auto version = regular_file_version(fd.get());
  if (!version) throw Error(path + ": changed while timed (no longer a regular file)");
  return *version;
}

// count's counting without its reads: count's team (count_in_pieces) taking
// its pieces of the file's bytes already in memory instead of preading them.
Bins count_in_memory(std::span<const std::uint8_t> bytes, const Implementation& impl, const LaunchPolicy& policy) {
  return count_in_pieces(
             [bytes](std::span<std::uint8_t>, std::uint64_t offset) {
               const std::size_t from = std::size_t(std::min<std::uint64_t>(offset, bytes.size()));
               return bytes.subspan(from, std::min(kCpuPiece, bytes.size() - from));
             },
             impl, policy)
      .bins;
}

// Refused before anything is read unless a copy of the file fits beside its
// own cached pages: else the copy would push them out and the floor would
// time the disk.
void check_copy_fits(const std::string& path, std::uint64_t size) {
  const std::uint64_t available = available_memory_bytes();
  if (available != UINT64_MAX && 2 * size > available)
    throw UsageError(path + ": count-bench keeps a copy of it in memory beside its cached pages, and " +
                     with_commas(size) + " bytes twice is more than the " + with_commas(available) + " available");
}

// The file's bytes in memory (read once, untimed).
std::shared_ptr<std::vector<std::uint8_t>> file_bytes(const std::string& path, std::uint64_t size) {
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(size);
  Fd fd(open_for_reading(path));
  check_bytes(path, read_some(fd.get(), bytes->data(), bytes->size(), path), size);
  return bytes;
}

Bench cpu_bench(const CountBenchRequest& request, const Implementation& impl, const FileVersion& file) {
  const std::uint64_t size = file.size;
  auto cpu = std::shared_ptr<Executor>(make_cpu_executor());
  const int threads = cpu::resolve_threads(impl.name == "reference" ? 1 : request.threads);
  check_copy_fits(request.path, size);
  const Bins want = count_stream(request.path, find_implementation("reference"), *cpu, 1);
  auto count_pass = [=, &impl] {
    if (count_stream(request.path, impl, *cpu, request.threads) != want) count_differs(request.impl, request.path, file);
  };
  const std::string path = request.path;
  auto read_pass = [=] { check_bytes(path, read_and_discard(path, kCpuChunk), size); };
  auto pread_pass = [=] { check_bytes(path, pread_and_discard(path, threads), size); };
  LaunchPolicy requested;
  requested.threads = request.threads;
  const LaunchPolicy policy = cpu->resolve(impl, requested, kCpuChunk, 1);
  const auto bytes = file_bytes(path, size);
  auto memory_pass = [=, &impl] {
    if (count_in_memory(*bytes, impl, policy) != want)
      throw Error(request.impl + " miscounted the file's bytes in memory (bins differ from the reference's)");
  };
  const std::string piece = std::to_string(kCpuPiece) + "-byte pieces";
  Bench bench;
  bench.entries = {
      {"count", "histostudy count --impl " + request.impl + ": " + std::to_string(threads) + " threads, each preading " +
                    piece + " into its own buffer and counting them",
       count_pass, {}},
      {"read_discard", "read(2) into one " + std::to_string(kCpuChunk) + "-byte buffer, one thread, discarded (as dd does)",
       read_pass, {}},
      {again("read_discard"), "read_discard again: the A/A control", read_pass, {}},
      {"pread_discard", "count's own reads without the count: " + std::to_string(threads) + " threads preading " + piece +
                            ", discarded",
       pread_pass, {}},
      {"count_in_memory", "count's counting without its reads: " + std::to_string(threads) + " threads counting " +
                              piece + " of the file's bytes already in memory (a copy), as count would if reading "
                              "cost nothing",
       memory_pass, {}},
  };
  bench.floor = "read";
  bench.floor_what = "read-and-discard";
  bench.reads_what = "its own reads without counting";
  bench.record = {
      {"environment", {{"host", host_environment()}, {"build", build_environment()}}},
      {"threads", threads},
      {"cpu_paths", {{"openmp_fast", cpu::openmp_fast_path()}, {"openmp_read_floor", cpu::openmp_read_floor_path()}}},
      {"piece_bytes", kCpuPiece},
  };
  bench.stem = slug(cpu_identity()["model_name"].get<std::string>());
  return bench;
}

// A chunk's bounds: whole pieces, at most 1 GiB, and the ring with the
// floor's buffers at most 4 GiB of pinned host memory (more would crowd out
// the page cache the bench times); a piece: whole 64 KiB (smaller preads would time the system call,
// not the copy).
constexpr std::uint64_t kMaxGpuChunk = 1ull << 30;
constexpr std::uint64_t kMaxGpuRing = 4ull << 30;
constexpr std::uint64_t kMinGpuPiece = 64u << 10;

// Every chunk of `source`, given back as soon as it is read: its bytes.
std::uint64_t drain(ChunkSource& source) {
  std::uint64_t bytes = 0;
  for (auto chunk = source.next(); !chunk.bytes.empty(); chunk = source.next()) {
    bytes += chunk.bytes.size();
    source.release(chunk.seq);
  }
  return bytes;
}

// What the GPU entries share: the executors (the GPU's), count's stream and
// the floor's (their pinned and device buffers, made once), the reference's
// bins.
struct GpuBench {
  Executors ex;
  Executor* gpu = nullptr;
  std::unique_ptr<GpuStream> stream, floor;
  Bins want{};
};

Bench gpu_bench(const CountBenchRequest& request, const Implementation& impl, const FileVersion& file) {
  const std::uint64_t size = file.size;
  auto g = std::make_shared<GpuBench>();
  g->ex = make_executors({}, "none", request.device);
  g->gpu = &executor_for(g->ex, impl);
  const int threads = gpu_reading_threads(request.threads);
  g->want = count_stream(request.path, find_implementation("reference"), *g->ex.owned.front(), 0);
  const ReadPlan plan = gpu_file_plan(size, {request.chunk ? std::size_t(request.chunk) : kGpuChunk,
                                             request.buffers ? request.buffers : kGpuBuffers,
                                             request.piece ? std::size_t(request.piece) : kGpuPiece});
  const double setup_s = seconds_of([&] { g->stream = make_gpu_stream(*g->gpu, impl, plan); });
  const ReadPlan floor_plan = gpu_file_plan(size, {kH2dFloorCopy, kH2dFloorBuffers, kGpuPiece});
  const double floor_setup_s = seconds_of([&] { g->floor = make_gpu_stream(*g->gpu, impl, floor_plan); });
  const std::string path = request.path, name = request.impl;
  auto count_pass = [=] {
    Fd fd(open_for_reading(path));
    if (count_on_gpu(fd.get(), path, opened_version(fd, path), *g->stream, threads, plan.piece) != g->want)
      count_differs(name, path, file);
  };
  auto h2d_pass = [=] { g->floor->copy(size); };
  auto pread_pass = [=] {
    Fd fd(open_for_reading(path));
    FileChunkReader reader(fd.get(), path, opened_version(fd, path), g->stream->buffers(), plan.piece, threads);
    check_bytes(path, drain(reader), size);
  };
  const std::string ring = std::to_string(plan.buffers) + " pinned " + with_commas(plan.chunk) + "-byte buffers";
  const std::string reads = std::to_string(threads) + " threads preading " + with_commas(plan.piece) + "-byte pieces";
  Bench bench;
  bench.entries = {
      {"count", "histostudy count --impl " + name + ": " + reads + " into a ring of " + ring +
                    ", each chunk copied to the GPU on a copy stream and counted there on another as the next are "
                    "read; the buffers made once (stream_setup_s), as count makes them once a file",
       count_pass, {}},
      {"h2d_pinned", "the file's bytes copied host to device (cudaMemcpyAsync, one stream) in " +
                         with_commas(floor_plan.chunk) + "-byte copies from " + std::to_string(floor_plan.buffers) +
                         " pinned buffers of their own"
                         " into two device buffers, nothing read or counted: the floor, whatever count's plan",
       h2d_pass, {}},
      {again("h2d_pinned"), "h2d_pinned again: the A/A control", h2d_pass, {}},
      {"pread_pinned", "count's reads alone: " + reads + " into the " + ring + ", each chunk given back once read",
       pread_pass, {}},
  };
  bench.floor = "h2d";
  bench.floor_what = "pinned host-to-device copies";
  bench.reads_what = "its own reads into pinned buffers alone";
  nlohmann::json environment = environment_record(g->ex);
  environment["gpu_state_before"] = gpu_state(g->ex);
  const nlohmann::json gpu = g->gpu->describe();
  bench.record = {
      {"environment", environment},
      {"threads", threads},
      {"device", gpu["device"]},
      {"toolchain", g->gpu->toolchain()},
      {"policy", g->stream->policy().to_json()},
      {"chunk_bytes", plan.chunk},
      {"buffers", plan.buffers},
      {"piece_bytes", plan.piece},
      {"stream_setup_s", setup_s},
      {"floor_copy_bytes", floor_plan.chunk},
      {"floor_buffers", floor_plan.buffers},
      {"floor_setup_s", floor_setup_s},
  };
  bench.stem = slug(gpu["device"]["name"].get<std::string>()) + "_" + name;
  bench.device_state = [g] { return gpu_state(g->ex); };
  return bench;
}

// Every entry once, untimed (the page cache, the buffers, the threads), then
// `rounds` rotations of whole timed passes, each after `settle` of idle, so
// that no pass inherits what the one before it left (count-bench.hpp).
// Correct before fast: every count pass, the untimed first among them,
// checks its bins against the reference's, which were counted before.
void time_rotations(std::vector<Entry>& entries, int rounds, std::chrono::milliseconds settle, PassUse& use) {
  StatusLine status;
  status.say("histostudy count-bench: every entry once, untimed");
  for (auto& e : entries) e.pass();
  for (int round = 0; round < rounds; ++round) {
    status.say("histostudy count-bench: round " + std::to_string(round + 1) + " of " + std::to_string(rounds));
    for (std::size_t k = 0; k < entries.size(); ++k) {
      Entry& e = entries[(std::size_t(round) + k) % entries.size()];  // rotating order
      std::this_thread::sleep_for(settle);
      const CpuUse before = cpu_use_now();
      e.seconds.push_back(seconds_of(e.pass));
      const CpuUse after = cpu_use_now();
      use.seconds += e.seconds.back();
      use.others_cpu_s += others_cpu_s(before, after);
      use.steal_s += after.steal_s - before.steal_s;
    }
  }
}

// Each entry's name, what it does, every sample and (where it has any) its
// GB/s summary.
nlohmann::json measured_entries(const std::vector<Entry>& entries, std::uint64_t size) {
  nlohmann::json measured = nlohmann::json::array();
  for (const auto& e : entries) {
    nlohmann::json entry = {{"name", e.name}, {"what", e.what}, {"samples_s", e.seconds}};
    if (!e.seconds.empty()) {
      std::vector<double> gbps;
      for (double s : e.seconds) gbps.push_back(double(size) / s / 1e9);
      entry["gbps"] = summarize(gbps).to_json();
    }
    measured.push_back(entry);
  }
  return measured;
}

// The same run's ratios of medians, of the entries the document names.
void add_ratios(nlohmann::json& doc, const std::string& floor) {
  auto median = [&](const nlohmann::json& name) {
    for (const auto& e : doc["entries"])
      if (e["name"] == name) return e["gbps"]["median"].get<double>();
    throw Error("count-bench: no entry " + name.get<std::string>());  // a defect here, not the user's
  };
  const double count = median("count"), of_floor = median(doc["floor"]["entry"]);
  doc["count_pct_of_" + floor] = 100.0 * count / of_floor;
  doc["control_pct_of_" + floor] = 100.0 * median(again(doc["floor"]["entry"])) / of_floor;
  doc["count_pct_of_pread"] = 100.0 * count / median(doc["reads_alone"]["entry"]);
  doc["count_control_pct"] = 100.0 * median(again("count")) / count;
  if (doc.contains("counting_alone")) {
    const double alone = median(doc["counting_alone"]["entry"]);
    doc["counting_alone"]["pct_of_" + floor] = 100.0 * alone / of_floor;
    doc["counting_alone"]["count_pct_of_it"] = 100.0 * count / alone;
  }
}

}  // namespace

nlohmann::json count_bench(const CountBenchRequest& request, const std::vector<std::string>& argv) {
  const Implementation& impl = find_implementation(request.impl);
  if (!impl.counts)
    throw UsageError("count-bench measures the implementations that count; '" + request.impl + "' is not one");
  if (request.rounds < 1) throw UsageError("--rounds must be at least 1");
  if (request.settle_ms < 0 || request.settle_ms > kMaxSettleMs)
    throw UsageError("--settle " + std::to_string(request.settle_ms) + ": name 0 to " + std::to_string(kMaxSettleMs) +
                     " ms");
  const bool on_gpu = impl.backend != Backend::cpu;
  if (!on_gpu && (request.chunk || request.buffers || request.piece || !request.device.empty()))
    throw UsageError("--chunk, --buffers, --piece and --device are for GPU implementations; '" + request.impl +
                     "' is a CPU one");
  const std::uint64_t piece = request.piece ? request.piece : kGpuPiece;
  if (piece % kMinGpuPiece || piece > kMaxGpuChunk)
    throw UsageError("--piece " + with_commas(piece) + ": name whole 64 KiB up to 1 GiB");
  if (request.chunk % piece || request.chunk > kMaxGpuChunk)
    throw UsageError("--chunk " + with_commas(request.chunk) + ": name whole pieces (" + with_commas(piece) +
                     " bytes) up to 1 GiB");
  const std::uint64_t ring = (request.chunk ? request.chunk : kGpuChunk) *
                             std::uint64_t(request.buffers ? request.buffers : kGpuBuffers);
  if (ring > kMaxGpuRing - kH2dFloorBuffers * kH2dFloorCopy)
    throw UsageError("--chunk x --buffers: " + with_commas(ring) + " bytes of pinned buffers, and the floor's " +
                     with_commas(kH2dFloorBuffers * kH2dFloorCopy) + " beside them; at most " +
                     with_commas(kMaxGpuRing) + " in all");
  if (!request.chunk && kGpuChunk % piece)
    throw UsageError("--piece " + with_commas(piece) + " does not divide count's chunk (" + with_commas(kGpuChunk) +
                     " bytes): name a --chunk too");
  const FileVersion file = bench_file(request.path);
  const std::uint64_t size = file.size;
  if (!request.no_save) check_writable_dir(request.out_dir);
  const std::string started = utc_now();
  Bench bench = on_gpu ? gpu_bench(request, impl, file) : cpu_bench(request, impl, file);
  // count's own A/A pair, after the floor's pair: in the rotation it follows
  // a copy, count follows a read (GPU: its reads alone) or a count (CPU: its
  // counting alone), so an order effect on count shows as the two apart,
  // which the floor's pair cannot see.
  const std::string floor_entry = bench.entries[1].name, reads_entry = bench.entries[3].name;
  const std::string counting_entry = bench.entries.size() > 4 ? bench.entries[4].name : "";
  bench.entries.insert(bench.entries.begin() + 3,
                       Entry{again("count"), "count again: its own A/A control", bench.entries[0].pass, {}});

  auto& entries = bench.entries;
  const double cached_before = page_cached_fraction(request.path, size);
  const CpuUse use_before = cpu_use_now();
  const auto timed_from = std::chrono::steady_clock::now();
  std::string stopped;  // the error that ended the timing early: what was measured before it is still saved
  PassUse passes;
  try {
    time_rotations(entries, request.rounds, std::chrono::milliseconds(request.settle_ms), passes);
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    if (std::none_of(entries.begin(), entries.end(), [](const Entry& x) { return !x.seconds.empty(); })) throw;
    stopped = message_of(e);
  }
  const double timed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - timed_from).count();
  const CpuUse use_after = cpu_use_now();
  double cached_after = -1;  // not measured: the file may be gone once a pass failed
  try {
    cached_after = page_cached_fraction(request.path, size);
  } catch (const Error&) {
    if (stopped.empty()) throw;
  }

  nlohmann::json doc = {
      {"format", "histostudy-count-bench"},
      // 3: the key named schema_version, as in every output; 2: the CPU in environment.host.cpu; 1: environment.cpu
      {"schema_version", 3},
      {"started", started},
      {"finished", utc_now()},
      {"provenance", provenance(argv)},
      {"file", {{"path", request.path}, {"bytes", size}, {"page_cached_before", cached_before},
                {"page_cached_after", cached_after}}},
      {"machine", {{"timed_s", timed_s},
                   {"other_processes_cpu_s", others_cpu_s(use_before, use_after)},
                   {"steal_s", use_after.steal_s - use_before.steal_s},
                   {"passes", {{"seconds", passes.seconds}, {"other_processes_cpu_s", passes.others_cpu_s},
                               {"steal_s", passes.steal_s}}},
                   {"note", "CPU seconds other processes used while the samples were taken (/proc/stat busy "
                            "less this process's getrusage): near 0 on a quiet machine; steal_s: the seconds the "
                            "hypervisor gave other guests while this machine's CPUs had work, which the first can "
                            "miss (this process's CPU time may include them); both over timed_s, which includes "
                            "the settle_s of idle before each timed pass; passes: the same over the timed passes "
                            "alone"}}},
      {"impl", request.impl},
      {"backend", std::string(backend_name(impl.backend))},
      {"rounds", request.rounds},
      {"order", "rotating: round r starts at entry r mod " + std::to_string(entries.size()) + "; each timed pass after " +
                    std::to_string(request.settle_ms) + " ms idle"},
      {"settle_s", request.settle_ms / 1000.0},
      {"entries", measured_entries(entries, size)},
      {"floor", {{"name", bench.floor}, {"entry", floor_entry}, {"what", bench.floor_what}}},
      {"reads_alone", {{"entry", reads_entry}, {"what", bench.reads_what}}},
  };
  if (!counting_entry.empty()) doc["counting_alone"] = {{"entry", counting_entry}};
  if (stopped.empty())
    add_ratios(doc, bench.floor);
  else
    doc["incomplete"] = {{"error", stopped}};
  doc.update(bench.record);
  if (on_gpu) doc["environment"]["gpu_state_after"] = bench.device_state();
  if (!request.no_save) doc["result_file"] = write_result(doc, request.out_dir, utc_now(true) + "_count-bench_" + bench.stem).string();
  if (!stopped.empty())
    throw Error(stopped + (request.no_save ? "" : " (what was measured before it is in " +
                                                      doc["result_file"].get<std::string>() + ")"));
  return doc;
}

// Below this, describe_count_bench says the rates are not those of large files.
constexpr std::uint64_t kSmallFileBytes = std::uint64_t(1) << 20;

std::string describe_count_bench(const nlohmann::json& doc) {
  const bool on_gpu = doc["backend"] != "cpu";
  std::string out = printable(doc["file"]["path"].get<std::string>()) + ": " + with_commas(doc["file"]["bytes"].get<std::uint64_t>()) +
                    " bytes, ";
  if (on_gpu)
    out += doc["impl"].get<std::string>() + " on " +
           doc["device"]["name"].get<std::string>() + ", " +
           std::to_string(doc["threads"].get<int>()) + " reading threads, " + std::to_string(doc["buffers"].get<int>()) +
           " pinned buffers of " + with_commas(doc["chunk_bytes"].get<std::uint64_t>()) + " bytes\n";
  else
    out += doc["environment"]["host"]["cpu_model"].get<std::string>() + ", " +
           std::to_string(doc["threads"].get<int>()) + " threads, openmp_fast path " + doc["cpu_paths"]["openmp_fast"].get<std::string>() + "\n";
  if (doc["file"]["bytes"].get<std::uint64_t>() < kSmallFileBytes)
    out += "  (a file under 1 MiB: a pass this short times mostly its calls' own costs, so these rates say little of "
           "large files; count's target is judged on files of 1 GiB and more)\n";
  char line[256];
  out += "  each timed pass after " + with_commas(std::uint64_t(std::llround(doc["settle_s"].get<double>() * 1000))) +
         " ms idle (--settle)\n";
  for (const auto& e : doc["entries"]) {
    const auto& g = e["gbps"];
    std::snprintf(line, sizeof line, "  %-20s %7.2f GB/s median (p10 %.2f, p90 %.2f, %zu samples)\n",
                  e["name"].get<std::string>().c_str(), g["median"].get<double>(), g["p10"].get<double>(),
                  g["p90"].get<double>(), e["samples_s"].size());
    out += line;
  }
  const std::string floor = doc["floor"]["name"].get<std::string>();
  std::snprintf(line, sizeof line, "count: %.0f%% of %s (A/A control: %.0f%%; count's own: %.0f%%), %.0f%% of %s\n",
                doc["count_pct_of_" + floor].get<double>(), doc["floor"]["what"].get<std::string>().c_str(),
                doc["control_pct_of_" + floor].get<double>(), doc["count_control_pct"].get<double>(),
                doc["count_pct_of_pread"].get<double>(), doc["reads_alone"]["what"].get<std::string>().c_str());
  out += line;
  if (doc.contains("counting_alone")) {
    std::snprintf(line, sizeof line, "counting alone, the file's bytes in memory: %.0f%% of %s (count: %.0f%% of it)\n",
                  doc["counting_alone"]["pct_of_" + floor].get<double>(), doc["floor"]["what"].get<std::string>().c_str(),
                  doc["counting_alone"]["count_pct_of_it"].get<double>());
    out += line;
  }
  if (on_gpu) {
    std::snprintf(line, sizeof line, "the stream's buffers made in %.3f s, once\n", doc["stream_setup_s"].get<double>());
    out += line;
  }
  const auto& passes = doc["machine"]["passes"];
  std::snprintf(line, sizeof line,
                "while the timed passes ran (%.2f s), other processes used %.2f CPU s; the hypervisor stole %.2f s\n",
                passes["seconds"].get<double>(),
                // /proc/stat and getrusage tick apart, so an idle machine can come out a little under 0
                std::max(0.0, passes["other_processes_cpu_s"].get<double>()), passes["steal_s"].get<double>());
  out += line;
  if (doc.contains("result_file")) out += "result file: " + printable(doc["result_file"].get<std::string>()) + "\n";
  return out;
}

}  // namespace hs
