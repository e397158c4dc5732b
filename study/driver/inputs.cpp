#include "driver/inputs.hpp"

#include <omp.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <array>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "driver/lesson_english_profile.hpp"
#include "platform/error.hpp"
#include "platform/files.hpp"
#include "driver/sizes.hpp"

namespace hs {
namespace {

// The lesson's generator (docs/study-spec.md section 1): x' = a x + c mod 2^32.
constexpr std::uint32_t kSeed = 12345, kMul = 1664525, kAdd = 1013904223;

struct Affine {  // x -> mul * x + add (mod 2^32)
  std::uint32_t mul = 1, add = 0;
  Affine then(Affine next) const { return {next.mul * mul, next.mul * add + next.add}; }
};

// LCG state after `steps` steps from the seed, by squaring the affine map.
std::uint32_t lcg_state_after(std::uint64_t steps) {
  Affine result, power{kMul, kAdd};
  for (; steps; steps >>= 1, power = power.then(power))
    if (steps & 1) result = result.then(power);
  return result.mul * kSeed + result.add;
}

// Byte i is the high byte of the state after i + 1 steps.
void fill_lcg(std::uint64_t offset, std::span<std::uint8_t> out, unsigned k) {
  const std::int64_t n = std::int64_t(out.size());
  constexpr std::int64_t kChunk = 1 << 20;
#pragma omp parallel for schedule(static)
  for (std::int64_t start = 0; start < n; start += kChunk) {
    std::uint32_t state = lcg_state_after(offset + std::uint64_t(start));
    const std::int64_t end = std::min(n, start + kChunk);
    for (std::int64_t i = start; i < end; ++i) {
      state = state * kMul + kAdd;
      out[std::size_t(i)] = std::uint8_t((state >> 24) % k);
    }
  }
}

void fill_repeating(std::span<const std::uint8_t> unit, std::uint64_t offset, std::span<std::uint8_t> out) {
  std::size_t pos = std::size_t(offset % unit.size());
  for (std::size_t i = 0; i < out.size();) {
    std::size_t take = std::min(unit.size() - pos, out.size() - i);
    std::copy_n(unit.begin() + std::ptrdiff_t(pos), take, out.begin() + std::ptrdiff_t(i));
    i += take;
    pos = 0;
  }
}

// A fixed arrangement of the published profile: the multiset in ascending
// byte order, then a Fisher-Yates shuffle driven by the lesson's LCG, so the
// bytes are spread like text rather than sorted runs.
std::vector<std::uint8_t> build_lesson_english() {
  std::vector<std::uint8_t> unit;
  for (const auto& entry : kLessonEnglishProfile) unit.insert(unit.end(), entry.count, entry.value);
  std::uint32_t state = kSeed;
  for (std::size_t i = unit.size() - 1; i > 0; --i) {
    state = state * kMul + kAdd;
    std::swap(unit[i], unit[(state >> 8) % (i + 1)]);
  }
  return unit;
}

constexpr std::string_view kProse =
    "A histogram counts how often each value occurs. To count the bytes of a "
    "file, a program reads every byte once and adds one to the counter for "
    "that byte's value. On a graphics processor thousands of threads do this "
    "at the same time, and when two of them add to the same counter at once "
    "the hardware must order their updates. That waiting is called "
    "contention, and it is why the shape of the data matters as much as its "
    "size: text uses only a few dozen distinct values, most of them letters "
    "and spaces, so many threads queue on the same few counters, while random "
    "bytes spread the work evenly across all two hundred and fifty-six.\n";

}  // namespace

std::uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return UINT64_MAX;  // unknown: let the allocation decide
}

std::string InputSpec::name() const {
  switch (kind) {
    case Kind::uniform: return "uniform";
    case Kind::lesson_english: return "lesson_english";
    case Kind::prose: return "prose";
    case Kind::one_byte: return "one_byte";
    case Kind::distinct: return "distinct_" + std::to_string(k);
    case Kind::file: return path;
  }
  return "?";
}

InputSpec parse_input(std::string_view name) {
  using K = InputSpec::Kind;
  if (name == "uniform") return {K::uniform, 256, ""};
  if (name == "lesson_english") return {K::lesson_english, 256, ""};
  if (name == "prose") return {K::prose, 256, ""};
  if (name == "one_byte") return {K::one_byte, 256, ""};
  constexpr std::string_view prefix = "distinct_";
  if (name.starts_with(prefix)) {
    auto digits = name.substr(prefix.size());
    unsigned k = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
    if (ec != std::errc() || end != digits.data() + digits.size() || k < 1 || k > 256)
      throw UsageError("bad input '" + std::string(name) + "': distinct_K needs K in 1..256");
    // One spelling per input: distinct_01 would be measured again beside distinct_1, under its own name.
    if (digits != std::to_string(k))
      throw UsageError("bad input '" + std::string(name) + "': write it distinct_" + std::to_string(k));
    return {K::distinct, k, ""};
  }
  // Any entry of that name is a file input, a symlink to nothing or a loop
  // included: opening it says what is wrong with it (ELOOP, ENOENT).
  std::error_code ec;
  if (name.find('/') != std::string_view::npos || std::filesystem::exists(std::filesystem::symlink_status(name, ec)))
    return {K::file, 256, std::string(name)};
  throw UsageError("unknown input '" + std::string(name) +
                   "' (known: uniform, lesson_english, prose, one_byte, distinct_1..distinct_256, "
                   "or a file path)");
}

void check_one_spelling_per_file(const std::vector<std::string>& names) {
  struct Named {
    dev_t device;
    ino_t inode;
    std::string name;
  };
  std::vector<Named> seen;
  for (const auto& name : names) {
    struct stat st{};
    if (parse_input(name).synthetic() || ::stat(name.c_str(), &st) != 0) continue;  // an open says why it fails
    for (const auto& earlier : seen)
      if (earlier.device == st.st_dev && earlier.inode == st.st_ino && earlier.name != name)
        throw UsageError("bad input '" + name + "': the file '" + earlier.name + "' again; name it once");
    seen.push_back({st.st_dev, st.st_ino, name});
  }
}

const std::vector<InputKind>& input_kinds() {
  static const std::vector<InputKind> kinds = {
      {"uniform", "the lesson's LCG (seed 12345), high byte of each new state"},
      {"lesson_english", "a fixed 677-byte arrangement of the lesson's published English byte profile, repeated"},
      {"prose", "this project's own English paragraph, repeated"},
      {"one_byte", "every byte 'e' (0x65)"},
      {"distinct_K", "the same LCG's high byte mod K, K in 1..256 (distinct_256 is uniform)"},
      {"FILE", "any path (a name containing '/' or an existing file), read whole"},
  };
  return kinds;
}

std::span<const std::uint8_t> lesson_english_unit() {
  static const std::vector<std::uint8_t> unit = build_lesson_english();
  return unit;
}

void fill_synthetic(const InputSpec& spec, std::uint64_t offset, std::span<std::uint8_t> out) {
  using K = InputSpec::Kind;
  switch (spec.kind) {
    case K::uniform: return fill_lcg(offset, out, 256);
    case K::distinct: return fill_lcg(offset, out, spec.k);
    case K::lesson_english: return fill_repeating(lesson_english_unit(), offset, out);
    case K::prose:
      return fill_repeating({reinterpret_cast<const std::uint8_t*>(kProse.data()), kProse.size()}, offset, out);
    case K::one_byte: std::fill(out.begin(), out.end(), std::uint8_t('e')); return;
    case K::file: break;
  }
  throw Error("input '" + spec.name() + "' is a file, not a generated input");
}

std::uint64_t checked_input_size(const InputSpec& spec, std::uint64_t size) {
  if (!spec.synthetic()) return whole_file_size(spec.path);
  if (size == 0) throw UsageError("size 0: nothing to measure");
  if (size > available_memory_bytes())
    throw UsageError("size " + with_commas(size) + " bytes does not fit in this machine's available memory (" +
                     with_commas(available_memory_bytes()) + " bytes)");
  return size;
}

std::vector<std::uint8_t> make_input(const InputSpec& spec, std::uint64_t size) {
  if (!spec.synthetic()) return read_whole_file(spec.path);
  if (size > available_memory_bytes())
    throw Error("size " + with_commas(size) + " bytes does not fit in this machine's available memory (" +
                with_commas(available_memory_bytes()) + " bytes)");
  std::vector<std::uint8_t> bytes(size);
  fill_synthetic(spec, 0, bytes);
  return bytes;
}

}  // namespace hs
