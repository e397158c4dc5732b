#include "driver/sizes.hpp"

#include <cctype>
#include <charconv>

#include "platform/error.hpp"

namespace hs {
namespace {

std::uint64_t unit_of(std::string_view suffix, std::string_view whole) {
  struct Unit { std::string_view name; std::uint64_t bytes; };
  static constexpr Unit units[] = {
      {"", 1},          {"B", 1},
      {"k", 1000},      {"K", 1000},        {"KB", 1000},       {"KiB", 1ull << 10},
      {"M", 1000000},   {"MB", 1000000},    {"MiB", 1ull << 20},
      {"G", 1000000000}, {"GB", 1000000000}, {"GiB", 1ull << 30},
      {"TiB", 1ull << 40}};
  for (const auto& u : units)
    if (u.name == suffix) return u.bytes;
  std::string known;
  for (const auto& u : units)
    if (!u.name.empty()) known += (known.empty() ? "" : ", ") + std::string(u.name);
  throw UsageError("bad size '" + std::string(whole) + "': unknown unit '" + std::string(suffix) + "' (use " +
                   known + ")");
}

std::uint64_t parse_term(std::string_view term, std::string_view whole) {
  std::uint64_t number = 0;
  auto [end, ec] = std::from_chars(term.data(), term.data() + term.size(), number);
  if (ec == std::errc::result_out_of_range)
    throw UsageError("size '" + std::string(whole) + "' is larger than 1 TiB");
  if (ec != std::errc() || end == term.data())
    throw UsageError("bad size '" + std::string(whole) + "': expected a number like 611, 64MiB or 1GiB");
  std::uint64_t unit = unit_of(term.substr(std::size_t(end - term.data())), whole);
  if (number > kMaxSize / unit)
    throw UsageError("size '" + std::string(whole) + "' is larger than 1 TiB");
  return number * unit;
}

}  // namespace

std::uint64_t parse_size(std::string_view text) {
  if (text.empty()) throw UsageError("empty size");
  std::uint64_t total = 0;
  std::size_t start = 0;
  while (true) {
    std::size_t plus = text.find('+', start);
    total += parse_term(text.substr(start, plus - start), text);
    if (total > kMaxSize) throw UsageError("size '" + std::string(text) + "' is larger than 1 TiB");
    if (plus == std::string_view::npos) return total;
    start = plus + 1;
  }
}

std::string with_commas(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace hs
