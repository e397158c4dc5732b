// The `cpu` suite: inputs, the CPU implementations, the harness's check and
// result files. Published figures are read from data/published, never typed.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <thread>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build_config.hpp"
#include "cpu_openmp/openmp_fast.hpp"
#include "cpu_openmp/openmp_histogram.hpp"
#include "tests/stream_fixtures.hpp"
#include "driver/case_range.hpp"
#include "count/count.hpp"
#include "platform/error.hpp"
#include "driver/executor.hpp"
#include "platform/files.hpp"
#include "driver/harness.hpp"
#include "driver/inputs.hpp"
#include "driver/registry.hpp"
#include "driver/results.hpp"
#include "driver/sizes.hpp"
#include "driver/stats.hpp"

namespace {

hs::Bins reference_of(std::span<const std::uint8_t> data) {
  hs::Bins bins{};
  hs::cpu::reference(data, bins);
  return bins;
}

// metric value for one input of the lesson's published T4 table.
double published(const std::string& input, const std::string& metric) {
  std::ifstream in(std::string(HISTOSTUDY_SOURCE_DIR) + "/data/published/lesson_t4.csv");
  REQUIRE(in);
  std::string line;
  std::getline(in, line);  // header: source,gpu,compute_capability,driver,cuda,build,input,metric,value,unit
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
    if (fields.size() >= 9 && fields[0] == "lesson-day29" && fields[6] == input && fields[7] == metric)
      return std::stod(fields[8]);
  }
  FAIL("no published " << metric << " for " << input);
  return 0;
}

const std::vector<std::string> kNamedInputs = {"uniform", "lesson_english", "prose", "one_byte",
                                               "distinct_1", "distinct_2", "distinct_3", "distinct_64",
                                               "distinct_255"};

}  // namespace

TEST_CASE("openmp_private equals reference on every input, size and thread count") {
  const std::vector<std::uint64_t> sizes = {0, 1, 611, 65536 + 611, hs::kLessonSize};
  for (const auto& name : kNamedInputs)
    for (auto size : sizes) {
      const auto data = hs::make_input(hs::parse_input(name), size);
      const auto want = reference_of(data);
      CHECK(hs::stats_of(want).total == size);
      for (int threads = 1; threads <= 4; ++threads) {
        hs::Bins got{};
        hs::cpu::openmp_private(data, got, threads);
        INFO(name << " size " << size << " threads " << threads);
        CHECK(hs::first_mismatch(want, got) == std::nullopt);
      }
    }
}

TEST_CASE("openmp_private adds into the bins rather than replacing them") {
  const auto data = hs::make_input(hs::parse_input("prose"), 5000);
  hs::Bins twice{};
  hs::cpu::openmp_private(data, twice, 3);
  hs::cpu::openmp_private(data, twice, 2);
  auto once = reference_of(data);
  for (auto& c : once) c *= 2;
  CHECK(hs::first_mismatch(once, twice) == std::nullopt);
}

// Every path of openmp_fast this CPU can run: the one openmp_fast chooses
// and the others, so the fallback stays tested where AVX-512 is present.
static std::vector<hs::cpu::FastPath> runnable_fast_paths() {
  std::vector<hs::cpu::FastPath> paths;
  for (auto path : {hs::cpu::FastPath::scalar_8x16, hs::cpu::FastPath::avx512})
    if (hs::cpu::fast_path_supported(path))
      paths.push_back(path);
    else
      MESSAGE("openmp_fast's " << hs::cpu::fast_path_name(path) << " path cannot run on this CPU: not tested");
  return paths;
}

TEST_CASE("openmp_fast runs the AVX-512 path exactly where the CPU has it, and names its path") {
  using hs::cpu::FastPath;
  CHECK(hs::cpu::fast_path_supported(FastPath::scalar_8x16));
  const FastPath chosen = hs::cpu::openmp_fast_chosen_path();
  CHECK(chosen == (hs::cpu::fast_path_supported(FastPath::avx512) ? FastPath::avx512 : FastPath::scalar_8x16));
  CHECK(hs::cpu::openmp_fast_path() == hs::cpu::fast_path_name(chosen));
  CHECK(hs::cpu::fast_path_name(FastPath::avx512) == "avx512");
  CHECK(hs::cpu::fast_path_name(FastPath::scalar_8x16) == "scalar-8x16");
  const std::vector<std::uint8_t> data(100, 7);
  hs::Bins bins{};
  if (!hs::cpu::fast_path_supported(FastPath::avx512))
    CHECK_THROWS_AS(hs::cpu::openmp_fast_via(FastPath::avx512, data, bins, 1), hs::Unavailable);
}

TEST_CASE("openmp_fast equals reference on every study input, size and thread count, by every path") {
  // Eight whole flush blocks and a short one (with trailing bytes), shared
  // among the threads; on one_byte every 16-bit counter reaches exactly its
  // maximum before each flush.
  const std::uint64_t crosses_flush = 8 * 8 * hs::cpu::fast_flush_words + 611;
  const std::vector<std::uint64_t> sizes = {0, 1, 611, 65536 + 611, crosses_flush, hs::kLessonSize};
  std::vector<std::string> inputs = {"uniform", "lesson_english", "prose", "one_byte"};
  for (int k = 256; k >= 1; k /= 2) inputs.push_back("distinct_" + std::to_string(k));
  const auto paths = runnable_fast_paths();
  for (const auto& name : inputs)
    for (auto size : sizes) {
      const auto data = hs::make_input(hs::parse_input(name), size);
      const auto want = reference_of(data);
      for (auto path : paths)
        for (int threads = 1; threads <= 4; ++threads) {
          hs::Bins got{};
          hs::cpu::openmp_fast_via(path, data, got, threads);
          INFO(name << " size " << size << " threads " << threads << " path " << hs::cpu::fast_path_name(path));
          CHECK(hs::first_mismatch(want, got) == std::nullopt);
        }
    }
  // openmp_fast itself is its chosen path.
  const auto data = hs::make_input(hs::parse_input("prose"), 65536 + 611);
  hs::Bins got{};
  hs::cpu::openmp_fast(data, got, 2);
  CHECK(hs::first_mismatch(reference_of(data), got) == std::nullopt);
}

TEST_CASE("openmp_fast is exact where a narrow counter would wrap without its flush, by every path") {
  // One byte value: each sub-histogram counter gets one increment per word,
  // so it reaches 65,535 at the flush and would wrap one word later.
  for (auto path : runnable_fast_paths())
    for (std::uint64_t words : {hs::cpu::fast_flush_words, hs::cpu::fast_flush_words + 1,
                                3 * hs::cpu::fast_flush_words + 2}) {
      const std::vector<std::uint8_t> data(8 * words + 7, 0x65);
      hs::Bins got{};
      hs::cpu::openmp_fast_via(path, data, got, 1);
      INFO("words " << words << " path " << hs::cpu::fast_path_name(path));
      CHECK(got[0x65] == data.size());
      CHECK(hs::stats_of(got).total == data.size());
    }
  // Every value in long runs and interleaved, with counts far beyond 65,535
  // and 255 in every bin, in all four quarters of the byte range (the
  // study's low-K inputs use only the first).
  std::vector<std::uint8_t> data;
  for (int v = 0; v < hs::kBins; ++v) data.insert(data.end(), 65536 + 977 * std::size_t(v), std::uint8_t(v));
  for (int rep = 0; rep < 300; ++rep)
    for (int v = hs::kBins - 1; v >= 0; --v) data.push_back(std::uint8_t(v ^ rep));
  const auto want = reference_of(data);
  for (auto path : runnable_fast_paths())
    for (int threads : {1, 3}) {
      hs::Bins got{};
      hs::cpu::openmp_fast_via(path, data, got, threads);
      INFO("path " << hs::cpu::fast_path_name(path) << " threads " << threads);
      CHECK(hs::first_mismatch(want, got) == std::nullopt);
    }
}

TEST_CASE("openmp_fast adds into the bins rather than replacing them, at any offset and length, by every path") {
  const auto data = hs::make_input(hs::parse_input("uniform"), 70000);
  for (auto path : runnable_fast_paths()) {
    INFO("path " << hs::cpu::fast_path_name(path));
    hs::Bins twice{};
    hs::cpu::openmp_fast_via(path, data, twice, 3);
    hs::cpu::openmp_fast_via(path, data, twice, 0);  // 0: OpenMP's default
    auto once = reference_of(data);
    for (auto& c : once) c *= 2;
    CHECK(hs::first_mismatch(once, twice) == std::nullopt);
    // Unaligned starts and lengths around the word, the 64-byte vector and
    // the 2,048-byte binning block: every slice [off, off + len).
    std::vector<std::size_t> lengths;
    for (std::size_t len = 0; len <= 200; ++len) lengths.push_back(len);
    for (std::size_t len : {2047, 2048, 2049, 4095, 4097, 6000})
      lengths.push_back(len);
    for (std::size_t off = 0; off < 67; ++off)
      for (std::size_t len : lengths) {
        const std::span<const std::uint8_t> slice(data.data() + off, len);
        hs::Bins got{};
        got[0] = 5;
        hs::cpu::openmp_fast_via(path, slice, got, 1 + int(off % 2));
        auto want = reference_of(slice);
        want[0] += 5;
        INFO("offset " << off << " length " << len);
        REQUIRE(hs::first_mismatch(want, got) == std::nullopt);
      }
  }
}

TEST_CASE("openmp_fast reads no byte past the end of its input, by every path") {
  // The input ends at an inaccessible page: a read past its end would crash.
  const std::size_t page = std::size_t(::sysconf(_SC_PAGESIZE));
  void* mem = ::mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mem != MAP_FAILED);
  auto* base = static_cast<std::uint8_t*>(mem);
  REQUIRE(::mprotect(base + 2 * page, page, PROT_NONE) == 0);
  const auto fill = hs::make_input(hs::parse_input("uniform"), 2 * page);
  std::copy(fill.begin(), fill.end(), base);
  for (auto path : runnable_fast_paths())
    for (std::size_t len : {std::size_t(1), std::size_t(63), std::size_t(65), std::size_t(2049), page + 1, 2 * page}) {
      const std::span<const std::uint8_t> tail(base + 2 * page - len, len);
      hs::Bins got{};
      hs::cpu::openmp_fast_via(path, tail, got, 1);
      INFO("path " << hs::cpu::fast_path_name(path) << " length " << len);
      CHECK(hs::first_mismatch(reference_of(tail), got) == std::nullopt);
    }
  ::munmap(mem, 3 * page);
}

TEST_CASE("openmp_read_floor sums every byte once, at any offset, length and thread count") {
  const auto path = hs::cpu::openmp_read_floor_path();
  CHECK((path == "avx512bw" || path == "avx2" || path == "8-byte words"));
  const auto data = hs::make_input(hs::parse_input("uniform"), 3 * 65536 + 1000);
  for (std::size_t off : {0, 1, 7, 31, 63})
    for (std::size_t len : {0, 1, 31, 32, 63, 64, 127, 255, 256, 257, 1000, 65536 + 611, 3 * 65536})
      for (int threads : {1, 2, 3, 7}) {
        const std::span<const std::uint8_t> slice(data.data() + off, len);
        INFO("offset " << off << " length " << len << " threads " << threads);
        CHECK(hs::cpu::openmp_read_floor(slice, threads) == hs::byte_sum(reference_of(slice)));
      }
  // 255 in every byte: no lane of the sum wraps.
  const std::vector<std::uint8_t> full(5 * 65536 + 3, 0xFF);
  CHECK(hs::cpu::openmp_read_floor(full, 2) == 255ull * full.size());
}

TEST_CASE("the chunk reader gives a pipe's bytes in order, in full chunks but the last, whatever the writes") {
  for (std::size_t n : {0, 1, 999, 1000, 1001, 3000, 123457}) {
    std::vector<std::uint8_t> sent(n);
    for (std::size_t i = 0; i < n; ++i) sent[i] = std::uint8_t(i * 131 + i / 7);
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    std::thread writer([&] {  // writes of 1 to 700 bytes; a failed one shows as bytes missing below
      for (std::size_t at = 0, step = 1; at < n; at += step, step = step % 700 + 37)
        if (::write(fds[1], sent.data() + at, std::min(step, n - at)) != ssize_t(std::min(step, n - at))) break;
      ::close(fds[1]);
    });
    std::vector<std::uint8_t> got;
    std::vector<std::size_t> sizes;
    {
      hs::ChunkReader reader(fds[0], "pipe", {1000, 3});
      for (auto chunk = reader.next(); !chunk.bytes.empty(); chunk = reader.next()) {
        CHECK(chunk.seq == sizes.size());
        got.insert(got.end(), chunk.bytes.begin(), chunk.bytes.end());
        sizes.push_back(chunk.bytes.size());
        reader.release(chunk.seq);
      }
      CHECK(reader.next().bytes.empty());  // and stays ended
    }
    writer.join();
    ::close(fds[0]);
    INFO("bytes " << n);
    CHECK(got == sent);
    CHECK(sizes.size() == (n + 999) / 1000);
    for (std::size_t i = 0; i + 1 < sizes.size(); ++i) CHECK(sizes[i] == 1000);
  }
}

TEST_CASE("the chunk reader reports a read error from next(), and a reader left early stops") {
  const int dir = ::open(HISTOSTUDY_SOURCE_DIR, O_RDONLY | O_DIRECTORY);
  REQUIRE(dir >= 0);
  {
    hs::ChunkReader reader(dir, "a directory", {1000, 2});
    CHECK_THROWS_AS(reader.next(), hs::Error);
  }
  ::close(dir);
  // Destroyed with chunks unread: the reader thread ends without reading on.
  const auto data = hs::make_input(hs::parse_input("prose"), 100000);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  REQUIRE(::write(fds[1], data.data(), 60000) == 60000);
  {
    hs::ChunkReader reader(fds[0], "pipe", {1000, 2});
    CHECK(reader.next().bytes.size() == 1000);
  }
  ::close(fds[1]);
  ::close(fds[0]);
}

TEST_CASE("a chunk reader left early on a pipe whose writer stays open and silent is destroyed at once") {
  // As when the count fails mid-stream: the reader's thread waits for bytes
  // that only the writer can send, or its end.
  const auto data = hs::make_input(hs::parse_input("prose"), 1500);
  IdlePipe pipe(data);
  auto reader = std::make_unique<hs::ChunkReader>(pipe.read_end(), "pipe", hs::ReadPlan{1000, 2});
  CHECK(reader->next().bytes.size() == 1000);
  REQUIRE(pipe.drained());  // the second chunk's 500 bytes read: the reader waits for the other 500
  CHECK(pipe.returns_in_time([&] { reader.reset(); }));
}

namespace {

std::vector<std::span<std::uint8_t>> ring_of(std::vector<std::vector<std::uint8_t>>& buffers) {
  std::vector<std::span<std::uint8_t>> spans;
  for (auto& b : buffers) spans.emplace_back(b);
  return spans;
}

// Takes every chunk of `source` as the GPU stream does (cuda/stream_count.cpp):
// chunk k is given back only once k + 1 is taken, or (`at_once`) as soon as
// it is taken. Checks the order and that no chunk is empty or short but the last.
std::vector<std::uint8_t> take_all(hs::ChunkSource& source, std::size_t chunk, bool at_once) {
  std::vector<std::uint8_t> got;
  std::size_t seq = 0;
  bool short_seen = false;
  for (auto c = source.next(); !c.bytes.empty(); c = source.next(), ++seq) {
    CHECK(c.seq == seq);
    CHECK_FALSE(short_seen);
    short_seen = c.bytes.size() < chunk;
    CHECK(c.bytes.size() <= chunk);
    got.insert(got.end(), c.bytes.begin(), c.bytes.end());
    if (at_once) source.release(c.seq);
    if (!at_once && c.seq > 0) source.release(c.seq - 1);
  }
  CHECK(source.next().bytes.empty());  // and stays ended
  return got;
}

// A GpuStream that counts on the host, holding its chunks as the GPU's does
// (take_all): what count_on_gpu and the readers do is checked without a GPU.
class HostStream final : public hs::GpuStream {
 public:
  explicit HostStream(hs::ReadPlan plan) : ring_(std::size_t(plan.buffers), std::vector<std::uint8_t>(plan.chunk)) {}
  std::vector<std::span<std::uint8_t>> buffers() override { return ring_of(ring_); }
  hs::Bins count(hs::ChunkSource& source) override { return reference_of(take_all(source, ring_[0].size(), false)); }
  void copy(std::uint64_t) override {}
  const hs::LaunchPolicy& policy() const override { return policy_; }

 private:
  std::vector<std::vector<std::uint8_t>> ring_;
  hs::LaunchPolicy policy_;
};

}  // namespace

TEST_CASE("the file chunk reader gives a file's bytes in order, in whole chunks but the last, with any threads") {
  constexpr std::size_t kPiece = 1000, kChunk = 3 * kPiece;
  for (std::size_t n : {std::size_t(0), std::size_t(1), kPiece - 1, kPiece, kPiece + 1, kChunk, kChunk + 1,
                        2 * kChunk + 4099, 7 * kChunk, 7 * kChunk + kPiece + 7}) {
    const auto data = hs::make_input(hs::parse_input("uniform"), n);
    const TempFile file(data, "chunks");
    for (int buffers : {2, 3, 5})
      for (int threads : {1, 2, 7})
        for (bool at_once : {false, true}) {
          INFO("bytes " << n << ", buffers " << buffers << ", threads " << threads << ", at once " << at_once);
          std::vector<std::vector<std::uint8_t>> ring(static_cast<std::size_t>(buffers), std::vector<std::uint8_t>(kChunk));
          const hs::Fd fd(hs::open_for_reading(file.path.string()));
          hs::FileChunkReader reader(fd.get(), "file", version_of(fd), ring_of(ring), kPiece, threads);
          CHECK(take_all(reader, kChunk, at_once) == data);
        }
  }
}

TEST_CASE("the file chunk reader refuses a ring it cannot use, reports a read error, and stops when left early") {
  std::vector<std::vector<std::uint8_t>> one(1, std::vector<std::uint8_t>(2000)), odd(2, std::vector<std::uint8_t>(1500));
  CHECK_THROWS_AS(hs::FileChunkReader(0, "x", {}, ring_of(one), 1000, 1), hs::Error);
  CHECK_THROWS_AS(hs::FileChunkReader(0, "x", {}, ring_of(odd), 1000, 1), hs::Error);
  std::vector<std::vector<std::uint8_t>> ring(2, std::vector<std::uint8_t>(2000));
  const int dir = ::open(HISTOSTUDY_SOURCE_DIR, O_RDONLY | O_DIRECTORY);
  REQUIRE(dir >= 0);
  {
    hs::FileChunkReader reader(dir, "a directory", {}, ring_of(ring), 1000, 3);
    CHECK_THROWS_WITH_AS(reader.next(), doctest::Contains("a directory"), hs::Error);
  }
  ::close(dir);
  const auto data = hs::make_input(hs::parse_input("prose"), 100000);
  const TempFile file(data, "early");
  const hs::Fd fd(hs::open_for_reading(file.path.string()));
  {
    hs::FileChunkReader reader(fd.get(), "file", version_of(fd), ring_of(ring), 1000, 4);
    CHECK(reader.next().bytes.size() == 2000);  // destroyed with chunks unread: its threads end
  }
}

TEST_CASE("the file chunk reader refuses a file that grows, shrinks or is written while read") {
  constexpr std::size_t kPiece = 1000, kChunk = 3 * kPiece;
  const auto data = hs::make_input(hs::parse_input("uniform"), 10 * kChunk + 7);
  const auto written = [](const std::filesystem::path& path) {  // one byte rewritten in place
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(5 * kChunk);
    f.put('x');
    REQUIRE(f);
  };
  const auto resized_to = [](std::uintmax_t size) {
    return [size](const std::filesystem::path& path) { std::filesystem::resize_file(path, size); };
  };
  const std::vector<std::pair<std::string, std::function<void(const std::filesystem::path&)>>> changes = {
      {"grows", resized_to(2 * data.size())},
      {"shrinks into chunk 1", resized_to(kChunk + kPiece / 2)},
      {"shrinks to chunk 2", resized_to(2 * kChunk)},
      {"is written", written}};
  for (const auto& [what, change] : changes) {
    INFO("the file " << what);
    const TempFile file(data, "changes");
    // An hour old, so that a change within the clock's tick still moves it.
    std::filesystem::last_write_time(file.path, std::filesystem::last_write_time(file.path) - std::chrono::hours(1));
    std::vector<std::vector<std::uint8_t>> ring(2, std::vector<std::uint8_t>(kChunk));
    const hs::Fd fd(hs::open_for_reading(file.path.string()));
    hs::FileChunkReader reader(fd.get(), "file", version_of(fd), ring_of(ring), kPiece, 2);
    // Until chunk 0 is given back the readers read no further than chunk 1:
    // the bytes from chunk 2 on are read after the change.
    const auto first = reader.next();
    change(file.path);
    reader.release(first.seq);
    auto read_on = [&] {
      for (auto c = reader.next(); !c.bytes.empty(); c = reader.next()) reader.release(c.seq);
    };
    CHECK_THROWS_WITH_AS(read_on(), "file: changed while counted", hs::Error);
  }
}

TEST_CASE("a file changed between its open and its first read is refused, by the file reader and count_on_gpu") {
  constexpr std::size_t kPiece = 1000, kChunk = 3 * kPiece;
  const auto data = hs::make_input(hs::parse_input("uniform"), 4 * kChunk);
  const TempFile file(data, "changed-early");
  const hs::Fd fd(hs::open_for_reading(file.path.string()));
  const hs::FileVersion opened = version_of(fd);
  // What the GPU stream's setup leaves time for (tens of milliseconds on the
  // H200: stream_setup_s in data/runs/count-bench/20261201T1838*).
  std::filesystem::resize_file(file.path, 2 * kChunk);
  std::vector<std::vector<std::uint8_t>> ring(2, std::vector<std::uint8_t>(kChunk));
  hs::FileChunkReader reader(fd.get(), "file", opened, ring_of(ring), kPiece, 2);
  CHECK_THROWS_WITH_AS(take_all(reader, kChunk, false), "file: changed while counted", hs::Error);
  HostStream stream({kChunk, 2});
  CHECK_THROWS_WITH_AS(hs::count_on_gpu(fd.get(), "file", opened, stream, 2, kPiece), "file: changed while counted",
                       hs::Error);
}

// In a child with every standard stream closed: what holding them leaves.
// Each failed expectation exits with its own code, for the parent to check.
int held_standard_descriptors_in_a_child() {
  for (int fd = 0; fd <= 2; ++fd) ::close(fd);
  if (!hs::hold_closed_standard_descriptors()) return 10;
  for (int fd = 0; fd <= 2; ++fd)
    if (::fcntl(fd, F_GETFD) < 0) return 11 + fd;  // not held
  char byte = 'x';
  if (::read(0, &byte, 1) != -1 || errno != EBADF) return 14;
  if (::write(1, &byte, 1) != -1 || errno != EBADF) return 15;
  if (::write(2, &byte, 1) != -1 || errno != EBADF) return 16;
  if (::open("/dev/null", O_RDONLY | O_CLOEXEC) <= 2) return 17;  // a later file takes no stream's number
  try {
    hs::open_for_reading("-");
    return 18;
  } catch (const hs::Error& e) {
    if (std::string(e.what()) != "standard input: is closed") return 19;
  }
  try {
    hs::open_for_reading("/dev/stdin");  // reopened by name: refused, not what holds it
    return 20;
  } catch (const hs::Error& e) {
    if (std::string(e.what()) != "/dev/stdin: standard input, which is closed") return 21;
  }
  try {
    hs::check_writable_dir("/dev/stdout");
    return 22;
  } catch (const hs::Error&) {
  }
  return 0;
}

TEST_CASE("closed standard streams are held: no later descriptor takes their numbers, and they read and write nothing") {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) ::_exit(held_standard_descriptors_in_a_child());
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("count_on_gpu's readers give a GPU stream every byte of a file or a pipe, as the stream holds them") {
  const std::uint64_t chunk = 2 * hs::kGpuPiece;
  for (std::uint64_t n : {std::uint64_t(0), std::uint64_t(4099), chunk - 1, 2 * chunk + 4099}) {
    const auto data = hs::make_input(hs::parse_input("lesson_english"), n);
    const TempFile file(data, "gpu-stream");
    const auto want = reference_of(data);
    for (int threads : {1, 3}) {
      INFO("bytes " << n << ", threads " << threads);
      HostStream stream({std::size_t(chunk), 2});
      const hs::Fd fd(hs::open_for_reading(file.path.string()));
      CHECK(hs::count_on_gpu(fd.get(), "file", version_of(fd), stream, threads) == want);
    }
    const FedPipe pipe(data, 65536);
    HostStream stream({std::size_t(chunk), 2});
    CHECK(hs::count_on_gpu(pipe.read_end(), "pipe", std::nullopt, stream, 0) == want);
  }
}

namespace {

// A GPU stream whose count fails once it has taken a chunk, as StreamCount's
// does on a CUDA error, after `pipe` is drained (its reader waits for more).
class FailingStream final : public hs::GpuStream {
 public:
  explicit FailingStream(const IdlePipe& pipe) : pipe_(pipe), ring_(2, std::vector<std::uint8_t>(1000)) {}
  std::vector<std::span<std::uint8_t>> buffers() override { return ring_of(ring_); }
  hs::Bins count(hs::ChunkSource& source) override {
    source.next();
    drained = pipe_.drained();
    throw hs::Error("the stream failed");
  }
  void copy(std::uint64_t) override {}
  const hs::LaunchPolicy& policy() const override { return policy_; }
  bool drained = false;

 private:
  const IdlePipe& pipe_;
  std::vector<std::vector<std::uint8_t>> ring_;
  hs::LaunchPolicy policy_;
};

}  // namespace

TEST_CASE("count_on_gpu throws its stream's error at once on a pipe whose writer stays open and silent") {
  const auto data = hs::make_input(hs::parse_input("prose"), 1500);
  IdlePipe pipe(data);
  FailingStream stream(pipe);
  std::string error;
  CHECK(pipe.returns_in_time([&] {
    try {
      hs::count_on_gpu(pipe.read_end(), "pipe", std::nullopt, stream, 0);
    } catch (const hs::Error& e) {
      error = e.what();
    }
  }));
  CHECK(stream.drained);
  CHECK(error == "the stream failed");
}

TEST_CASE("a GPU implementation's plan for a file: whole pieces, no more than the file needs") {
  CHECK(hs::gpu_file_plan(0).chunk == hs::kGpuPiece);
  CHECK(hs::gpu_file_plan(1).chunk == hs::kGpuPiece);
  CHECK(hs::gpu_file_plan(hs::kGpuPiece + 1).chunk == 2 * hs::kGpuPiece);
  CHECK(hs::gpu_file_plan(std::uint64_t(1) << 40).chunk == hs::kGpuChunk);
  CHECK(hs::gpu_file_plan(std::uint64_t(1) << 40, {4 * hs::kGpuPiece, 8, hs::kGpuPiece}).chunk == 4 * hs::kGpuPiece);
  CHECK(hs::gpu_file_plan(std::uint64_t(1) << 40, {4 * hs::kGpuPiece, 8, hs::kGpuPiece}).buffers == 8);
  // A 3-byte file in 2 MiB pieces: one piece's chunk.
  CHECK(hs::gpu_file_plan(3, {8 * hs::kGpuPiece, 4, 2 * hs::kGpuPiece}).chunk == 2 * hs::kGpuPiece);
  CHECK(hs::gpu_file_plan(5).buffers == hs::kGpuBuffers);
  CHECK(hs::kGpuChunk % hs::kGpuPiece == 0);
}

TEST_CASE("count_stream equals reference on a file of many chunks with any thread count") {
  const auto data = hs::make_input(hs::parse_input("lesson_english"), 3 * hs::kCpuChunk + hs::kCpuPiece + 611);
  const auto path = std::filesystem::temp_directory_path() / ("histostudy-count-" + std::to_string(::getpid()));
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
    REQUIRE(out);
  }
  const auto want = reference_of(data);
  auto cpu = hs::make_cpu_executor();
  for (const char* impl : {"reference", "openmp_private", "openmp_fast"})
    for (int threads : {0, 1, 2, 3, 5}) {
      INFO(impl << " threads " << threads);
      CHECK(hs::first_mismatch(want, hs::count_stream(path.string(), hs::find_implementation(impl), *cpu, threads)) ==
            std::nullopt);
    }
  std::filesystem::remove(path);
}

TEST_CASE("the lesson's inputs reproduce its hardware-independent figures exactly") {
  const std::map<std::string, std::string> lesson_name = {
      {"uniform", "uniform bytes"}, {"lesson_english", "english text"}, {"one_byte", "all one byte"}};
  for (const auto& [ours, theirs] : lesson_name) {
    const auto size = std::uint64_t(published("-", "input_bytes"));
    CHECK(size == hs::kLessonSize);
    const auto stats = hs::stats_of(reference_of(hs::make_input(hs::parse_input(ours), size)));
    INFO(ours);
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.2f", stats.busiest_pct());
    char want[32];
    std::snprintf(want, sizeof want, "%.2f", published(theirs, "max_bin_pct"));
    CHECK(std::string(pct) == std::string(want));
    CHECK(stats.bins_used == int(published(theirs, "bins_used")));
  }
}

TEST_CASE("lesson_english is a 677-byte arrangement of the published profile") {
  const auto unit = hs::lesson_english_unit();
  std::ifstream in(std::string(HISTOSTUDY_SOURCE_DIR) + "/data/published/lesson_english_byte_profile.csv");
  std::string line;
  std::getline(in, line);
  hs::Bins want{};
  std::uint64_t total = 0;
  while (std::getline(in, line)) {
    auto comma = line.find(',');
    want[std::stoi(line.substr(0, comma))] = std::stoull(line.substr(comma + 1));
    total += std::stoull(line.substr(comma + 1));
  }
  CHECK(unit.size() == total);
  CHECK(hs::first_mismatch(want, reference_of(unit)) == std::nullopt);
}

TEST_CASE("distinct_K uses exactly K bins and distinct_256 is uniform") {
  for (unsigned k = 1; k <= 256; ++k) {
    const auto stats = hs::stats_of(reference_of(hs::make_input(hs::parse_input("distinct_" + std::to_string(k)), 1 << 20)));
    INFO("k = " << k);
    CHECK(stats.bins_used == int(k));
  }
  CHECK(hs::make_input(hs::parse_input("distinct_256"), hs::kLessonSize) ==
        hs::make_input(hs::parse_input("uniform"), hs::kLessonSize));
}

TEST_CASE("uniform is the lesson's LCG, high byte of each new state") {
  const auto data = hs::make_input(hs::parse_input("uniform"), 1000);
  std::uint32_t state = 12345;
  for (std::size_t i = 0; i < data.size(); ++i) {
    state = state * 1664525u + 1013904223u;
    REQUIRE(data[i] == std::uint8_t(state >> 24));
  }
}

TEST_CASE("any slice of a generated input equals the same bytes of the whole") {
  for (const auto& name : kNamedInputs) {
    const auto spec = hs::parse_input(name);
    const auto whole = hs::make_input(spec, 4 << 20);
    for (std::uint64_t offset : {0ull, 1ull, 676ull, 677ull, 1000003ull, (2ull << 20) + 5}) {
      std::vector<std::uint8_t> part(1 << 20);
      hs::fill_synthetic(spec, offset, part);
      INFO(name << " offset " << offset);
      CHECK(std::equal(part.begin(), part.end(), whole.begin() + std::ptrdiff_t(offset)));
    }
  }
}

TEST_CASE("input names: unknown names and bad K are usage errors") {
  CHECK_THROWS_AS(hs::parse_input("unifrom"), hs::UsageError);
  CHECK_THROWS_AS(hs::parse_input("distinct_0"), hs::UsageError);
  CHECK_THROWS_AS(hs::parse_input("distinct_257"), hs::UsageError);
  CHECK_THROWS_AS(hs::parse_input("distinct_x"), hs::UsageError);
  CHECK_THROWS_AS(hs::parse_input("distinct_01"), hs::UsageError);  // one spelling per input: distinct_1
  CHECK_THROWS_AS(hs::parse_input("distinct_+1"), hs::UsageError);
  CHECK(hs::parse_input("distinct_17").name() == "distinct_17");
  CHECK_THROWS_AS(hs::make_input(hs::parse_input("/nonexistent/file"), 0), hs::Error);
  CHECK_THROWS_AS(hs::make_input(hs::parse_input("uniform"), hs::kMaxSize), hs::Error);
}

TEST_CASE("sizes: numbers, binary and decimal units, sums; nonsense is refused") {
  CHECK(hs::parse_size("611") == 611);
  CHECK(hs::parse_size("64MiB") == 64ull << 20);
  CHECK(hs::parse_size("1GiB") == 1ull << 30);
  CHECK(hs::parse_size("64MiB+611") == hs::kLessonSize);
  CHECK(hs::parse_size("2KB") == 2000);
  CHECK(hs::parse_size("0") == 0);
  for (const char* bad : {"", "-1", "abc", "12XB", "1.5GiB", "2TiB", "99999999999999999999", "1GiB+", "+5"})
    CHECK_THROWS_AS(hs::parse_size(bad), hs::UsageError);
  CHECK(hs::with_commas(67109475) == "67,109,475");
}

TEST_CASE("the registry knows every name once and declares bytes and atomics") {
  for (const auto& impl : hs::implementations()) {
    CHECK(&hs::find_implementation(impl.name) == &impl);
    hs::LaunchPolicy p;
    p.grid = 1024;
    p.passes = 4;
    CHECK(impl.bytes_read(p, 1000) >= 1000);
  }
  CHECK_THROWS_AS(hs::find_implementation("per_blok"), hs::UsageError);
  hs::LaunchPolicy lesson;
  lesson.grid = 1024;
  lesson.block = 256;
  const auto& per_block = hs::find_implementation("per_block");
  const auto& global = hs::find_implementation("global");
  CHECK(*per_block.global_atomics(lesson, hs::kLessonSize) == 262144);
  CHECK(*global.global_atomics(lesson, hs::kLessonSize) == hs::kLessonSize);
}

TEST_CASE("statistics: numpy-style percentiles") {
  CHECK(hs::percentile({1, 2, 3, 4}, 50) == doctest::Approx(2.5));
  CHECK(hs::percentile({5}, 90) == 5);
  CHECK(hs::percentile({0, 10}, 10) == doctest::Approx(1.0));
  const auto s = hs::summarize({3, 1, 2});
  CHECK(s.median == 2);
  CHECK(s.min == 1);
  CHECK(s.max == 3);
  CHECK(s.mean == doctest::Approx(2.0));
  CHECK_THROWS_AS(hs::summarize({}), hs::Error);
}

namespace {
// A planted bug: merges with a store instead of an add, as the lesson warns.
void merge_by_store(std::span<const std::uint8_t> data, hs::Bins& bins, const hs::LaunchPolicy&) {
  hs::Bins mine{};
  for (auto b : data) ++mine[b];
  for (int v = 0; v < hs::kBins; ++v)
    if (mine[v]) bins[v] = mine[v] / 2 + 1;
}
}  // namespace

TEST_CASE("a case's profiler range names it in fields a profiler keeps intact") {
  auto cpu = hs::make_cpu_executor();
  hs::Case c{"lesson", "dir:a|b=c%.bin", 611, &hs::find_implementation("partitioned"), {}, {256}};
  c.policy.passes = 4;
  CHECK(hs::case_range_name(c, {cpu.get(), cpu.get()}) ==
        "hs-case|experiment=lesson|impl=partitioned|input=dir%3Aa%7Cb%3Dc%25.bin|size=611|grid=0|block=0|passes=4|"
        "bins_offset=256|toolchains=cpu,cpu|");
  CHECK(hs::range_value("caf\xc3\xa9 \"x\"\n") == "caf%C3%A9 %22x%22%0A");
}

TEST_CASE("the harness checks before it times, and a wrong answer is never timed") {
  const auto data = hs::make_input(hs::parse_input("lesson_english"), hs::kMinFloorBytes);
  const auto ref = reference_of(data);
  const hs::Subject subject{"lesson_english", data, ref};
  auto cpu = hs::make_cpu_executor();
  cpu->load(data);
  hs::TimingPlan quick;
  quick.warmups = 0;
  quick.stop = {3, 3, 0.0, 60.0};
  quick.lesson_reps = 0;
  const std::vector<hs::Executor*> members = {cpu.get()};
  auto measure = [&](const hs::Implementation& impl) {
    auto rows = hs::measure(members, impl, {}, {}, subject, quick, "test");
    REQUIRE(rows.size() == 1);
    return rows.front();
  };
  const auto row = measure(hs::find_implementation("openmp_private"));
  CHECK(row.check_passed);
  CHECK(row.samples_ms.size() == 3);
  CHECK(row.gbps > 0);
  CHECK(row.cache_mode == "hot");  // the CPU's caches are not flushed, and its rows say so
  CHECK(row.placement.is_null());

  hs::Implementation broken = hs::find_implementation("openmp_private");
  broken.cpu_histogram = merge_by_store;
  const auto bad = measure(broken);
  CHECK_FALSE(bad.check_passed);
  CHECK(bad.check_detail.find("bin ") != std::string::npos);
  CHECK(bad.samples_ms.empty());
  CHECK(bad.sample_log.empty());

  const auto floor = measure(hs::find_implementation("openmp_read_floor"));
  CHECK(floor.check_passed);
  std::vector<hs::Row> rows = {row, floor};
  hs::attach_floors(rows);
  REQUIRE(rows[0].pct_of_floor.has_value());
  CHECK(*rows[0].pct_of_floor == doctest::Approx(100.0 * row.gbps / floor.gbps));

  // Below 1 MiB a percent of the floor is not given (it read 2,500% at 1 byte).
  for (auto& r : rows) r.size = hs::kMinFloorBytes - 1;
  for (auto& r : rows) r.pct_of_floor.reset();
  hs::attach_floors(rows);
  CHECK_FALSE(rows[0].pct_of_floor.has_value());
}

TEST_CASE("result files are written whole and never replace an earlier run") {
  const auto dir = std::filesystem::temp_directory_path() / ("hs_results_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const auto first = hs::write_result({{"n", 1}}, dir, "run");
  const auto second = hs::write_result({{"n", 2}}, dir, "run");
  CHECK(first != second);
  std::ifstream a(first), b(second);
  CHECK(nlohmann::json::parse(a)["n"] == 1);
  CHECK(nlohmann::json::parse(b)["n"] == 2);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  CHECK(files == 2);  // no temporary left behind
  std::filesystem::remove_all(dir);
  CHECK(hs::slug("NVIDIA H200") == "nvidia-h200");
}
