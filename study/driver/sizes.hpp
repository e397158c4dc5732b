// Byte sizes as users write them: "611", "64MiB", "1GiB", "64MiB+611".
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace hs {

inline constexpr std::uint64_t kLessonSize = (64ull << 20) + 611;  // 67,109,475: see docs/study-spec.md section 1
inline constexpr std::uint64_t kMaxSize = 1ull << 40;              // 1 TiB: anything larger is a typo

// Parses a size; throws UsageError naming the text when it is malformed,
// negative, or larger than kMaxSize.
std::uint64_t parse_size(std::string_view text);

// "67,109,475" style, for tables and messages.
std::string with_commas(std::uint64_t n);

}  // namespace hs
