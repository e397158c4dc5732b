#include "study/count_bench.hpp"

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>

#include "cpu_openmp/openmp_fast.hpp"
#include "cpu_openmp/openmp_histogram.hpp"
#include "study/count.hpp"
#include "study/env.hpp"
#include "study/error.hpp"
#include "study/executor.hpp"
#include "study/files.hpp"
#include "study/results.hpp"
#include "study/stats.hpp"

namespace hs {
namespace {

std::uint64_t regular_file_size(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
    throw UsageError(path + ": count-bench times a non-empty regular file (page-cached), not a stream");
  return std::uint64_t(st.st_size);
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
  std::atomic<bool> failed{false};
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
      failed = true;
    }
  }
  if (failed) throw Error(path + ": read error while timed");
  return total;
}

// "family 26 model 2 stepping 1" and the features openmp_fast's paths need,
// beside host_environment's model name, which names no generation.
nlohmann::json cpu_identity() {
  std::ifstream in("/proc/cpuinfo");
  std::map<std::string, std::string> fields;
  for (std::string line; std::getline(in, line) && !line.empty();) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    fields[key] = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
  }
  nlohmann::json features = nlohmann::json::array();
  const std::string flags = " " + fields["flags"] + " ";
  for (const char* f : {"avx2", "avx512f", "avx512bw", "avx512vbmi", "avx512_vbmi2", "avx512_bitalg", "gfni"})
    if (flags.find(std::string(" ") + f + " ") != std::string::npos) features.push_back(f);
  return {{"vendor", fields["vendor_id"]}, {"model_name", fields["model name"]}, {"family", fields["cpu family"]},
          {"model", fields["model"]},       {"stepping", fields["stepping"]},     {"features", features}};
}

// CPU seconds the whole machine spent busy (/proc/stat) and this process
// used (getrusage): their difference over a run is what other processes
// took from it.
struct CpuUse {
  double machine_busy_s = 0, this_process_s = 0;
};

CpuUse cpu_use_now() {
  CpuUse use;
  std::ifstream stat("/proc/stat");
  std::string cpu;
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal)
    use.machine_busy_s = double(user + nice + system + irq + softirq + steal) / double(::sysconf(_SC_CLK_TCK));
  rusage self{};
  ::getrusage(RUSAGE_SELF, &self);
  auto s = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
  use.this_process_s = s(self.ru_utime) + s(self.ru_stime);
  return use;
}

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

}  // namespace

nlohmann::json count_bench(const CountBenchRequest& request, const std::vector<std::string>& argv) {
  const Implementation& impl = find_implementation(request.impl);
  if (impl.backend != Backend::cpu || !impl.counts)
    throw UsageError("count-bench measures the CPU implementations that count; '" + request.impl + "' is not one");
  if (request.rounds < 1) throw UsageError("--rounds must be at least 1");
  const std::uint64_t size = regular_file_size(request.path);
  if (!request.no_save) check_writable_dir(request.out_dir);
  const std::string started = utc_now();
  auto cpu = make_cpu_executor();
  const int threads = cpu::resolve_threads(impl.name == "reference" ? 1 : request.threads);

  // Correct before fast: the count checked against the reference first.
  const Bins want = count_stream(request.path, find_implementation("reference"), *cpu, 1);
  auto count_pass = [&] {
    if (count_stream(request.path, impl, *cpu, request.threads) != want)
      throw Error(request.impl + " miscounted " + request.path + " (bins differ from the reference's)");
  };
  auto checked = [&](std::uint64_t bytes) {
    if (bytes != size) throw Error(request.path + ": changed while timed");
  };
  auto read_pass = [&] { checked(read_and_discard(request.path, kCpuChunk)); };
  auto pread_pass = [&] { checked(pread_and_discard(request.path, threads)); };
  const std::string piece = std::to_string(kCpuPiece) + "-byte pieces";
  std::vector<Entry> entries = {
      {"count", "histostudy count --impl " + request.impl + ": " + std::to_string(threads) + " threads, each preading " +
                    piece + " into its own buffer and counting them",
       count_pass, {}},
      {"read_discard", "read(2) into one " + std::to_string(kCpuChunk) + "-byte buffer, one thread, discarded (as dd does)",
       read_pass, {}},
      {"read_discard_again", "read_discard again: the A/A control", read_pass, {}},
      {"pread_discard", "count's own reads without the count: " + std::to_string(threads) + " threads preading " + piece +
                            ", discarded",
       pread_pass, {}},
  };
  for (auto& e : entries) e.pass();  // warm: the page cache, the buffers, the threads
  const double cached_before = page_cached_fraction(request.path, size);
  const CpuUse use_before = cpu_use_now();
  const auto timed_from = std::chrono::steady_clock::now();
  for (int round = 0; round < request.rounds; ++round)
    for (std::size_t k = 0; k < entries.size(); ++k) {
      Entry& e = entries[(std::size_t(round) + k) % entries.size()];  // rotating order
      e.seconds.push_back(seconds_of(e.pass));
    }
  const double timed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - timed_from).count();
  const CpuUse use_after = cpu_use_now();
  const double others_s = (use_after.machine_busy_s - use_before.machine_busy_s) -
                          (use_after.this_process_s - use_before.this_process_s);
  const double cached_after = page_cached_fraction(request.path, size);

  nlohmann::json measured = nlohmann::json::array();
  std::map<std::string, double> median_gbps;
  for (const auto& e : entries) {
    std::vector<double> gbps;
    for (double s : e.seconds) gbps.push_back(double(size) / s / 1e9);
    const Summary summary = summarize(gbps);
    median_gbps[e.name] = summary.median;
    measured.push_back({{"name", e.name}, {"what", e.what}, {"samples_s", e.seconds}, {"gbps", summary.to_json()}});
  }
  nlohmann::json doc = {
      {"format", "histostudy-count-bench"},
      {"version", 1},
      {"started", started},
      {"finished", utc_now()},
      {"provenance", provenance(argv)},
      {"environment", {{"host", host_environment()}, {"cpu", cpu_identity()}, {"build", build_environment()}}},
      {"file", {{"path", request.path}, {"bytes", size}, {"page_cached_before", cached_before},
                {"page_cached_after", cached_after}}},
      {"machine", {{"timed_s", timed_s},
                   {"other_processes_cpu_s", others_s},
                   {"note", "CPU seconds other processes used while the samples were taken (/proc/stat busy "
                            "less this process's getrusage): near 0 on a quiet machine"}}},
      {"impl", request.impl},
      {"threads", threads},
      {"cpu_paths", {{"openmp_fast", cpu::openmp_fast_path()}, {"openmp_read_floor", cpu::openmp_read_floor_path()}}},
      {"piece_bytes", kCpuPiece},
      {"rounds", request.rounds},
      {"order", "rotating: round r starts at entry r mod 4"},
      {"entries", measured},
      {"count_pct_of_read", 100.0 * median_gbps["count"] / median_gbps["read_discard"]},
      {"control_pct_of_read", 100.0 * median_gbps["read_discard_again"] / median_gbps["read_discard"]},
      {"count_pct_of_pread", 100.0 * median_gbps["count"] / median_gbps["pread_discard"]},
  };
  if (!request.no_save) {
    const std::string stem = utc_now(true) + "_count-bench_" + slug(cpu_identity()["model_name"].get<std::string>());
    doc["result_file"] = write_result(doc, request.out_dir, stem).string();
  }
  return doc;
}

std::string describe_count_bench(const nlohmann::json& doc) {
  std::string out = doc["file"]["path"].get<std::string>() + ": " + std::to_string(doc["file"]["bytes"].get<std::uint64_t>()) +
                    " bytes, " + doc["environment"]["cpu"]["model_name"].get<std::string>() + ", " +
                    std::to_string(doc["threads"].get<int>()) + " threads, openmp_fast path " +
                    doc["cpu_paths"]["openmp_fast"].get<std::string>() + "\n";
  char line[256];
  for (const auto& e : doc["entries"]) {
    const auto& g = e["gbps"];
    std::snprintf(line, sizeof line, "  %-20s %7.2f GB/s median (p10 %.2f, p90 %.2f, %zu samples)\n",
                  e["name"].get<std::string>().c_str(), g["median"].get<double>(), g["p10"].get<double>(),
                  g["p90"].get<double>(), e["samples_s"].size());
    out += line;
  }
  std::snprintf(line, sizeof line,
                "count: %.0f%% of read-and-discard (A/A control: %.0f%%), %.0f%% of its own reads without counting\n",
                doc["count_pct_of_read"].get<double>(), doc["control_pct_of_read"].get<double>(),
                doc["count_pct_of_pread"].get<double>());
  out += line;
  std::snprintf(line, sizeof line, "other processes used %.2f CPU s of the %.2f s timed\n",
                doc["machine"]["other_processes_cpu_s"].get<double>(), doc["machine"]["timed_s"].get<double>());
  out += line;
  if (doc.contains("result_file")) out += "result file: " + doc["result_file"].get<std::string>() + "\n";
  return out;
}

}  // namespace hs
