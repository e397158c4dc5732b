// The study's inputs: deterministic byte streams, the same on every machine
// (docs/experiments.md, "Inputs", documents each), or a user's file.
//
//   uniform         the lesson's LCG (seed 12345), high byte of each new state
//   lesson_english  a fixed 677-byte arrangement of the lesson's published
//                   English byte profile, repeated
//   prose           this project's own English paragraph, repeated
//   one_byte        every byte 'e' (0x65)
//   distinct_K      the same LCG's high byte mod K, K in 1..256 (K=256 is uniform)
//   FILE            any path (a name containing '/' or an existing file)
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hs {

struct InputSpec {
  enum class Kind { uniform, lesson_english, prose, one_byte, distinct, file };
  Kind kind = Kind::uniform;
  unsigned k = 256;   // distinct values, for Kind::distinct
  std::string path;   // for Kind::file
  std::string name() const;
  bool synthetic() const { return kind != Kind::file; }
};

// Throws UsageError for an unknown name, or a distinct_K with K outside 1..256
// or not in its one spelling (distinct_01 is distinct_1's).
InputSpec parse_input(std::string_view name);

// Throws UsageError for a file named a second time under another spelling
// (in.bin, ./in.bin, its absolute path, a link to it: one device and inode),
// which would be measured again under its own name, as distinct_01 would
// beside distinct_1. The same spelling twice is one input.
void check_one_spelling_per_file(const std::vector<std::string>& names);

// The inputs as `histostudy list` names them: each kind's name as --input
// takes it (distinct_K stands for distinct_1 ... distinct_256, FILE for a
// path) and what it is, in one line.
struct InputKind {
  std::string_view name, description;
};
const std::vector<InputKind>& input_kinds();

// The bytes at positions [offset, offset + out.size()) of a synthetic input.
// Any offset is cheap: the LCG jumps ahead in O(log offset).
void fill_synthetic(const InputSpec& spec, std::uint64_t offset, std::span<std::uint8_t> out);

// A whole input in memory: `size` bytes of a synthetic input, or the file's
// bytes (size ignored), read with one sized read. Throws Error for
// unreadable, non-regular or empty files and sizes that do not fit in memory.
std::vector<std::uint8_t> make_input(const InputSpec& spec, std::uint64_t size);

// The bytes a run of `spec` at `size` will measure (a file's own size),
// checked before any work is done: throws UsageError for size 0 or one that
// does not fit in memory, Error for a file make_input could not read.
std::uint64_t checked_input_size(const InputSpec& spec, std::uint64_t size);

// MemAvailable from /proc/meminfo; UINT64_MAX where unknown.
std::uint64_t available_memory_bytes();

// The 677-byte lesson_english unit, for tests.
std::span<const std::uint8_t> lesson_english_unit();

}  // namespace hs
