#include "platform/printable.hpp"

#include <cstdio>

namespace hs {
namespace {

// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong
// forms, no surrogates, nothing past U+10FFFF); 0 if there is none.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const unsigned c = byte(i);
  const auto continuation = [&](std::size_t k) { return (byte(k) & 0xC0u) == 0x80u; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return continuation(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return byte(i + 1) >= lo && byte(i + 1) <= hi && continuation(i + 2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return byte(i + 1) >= lo && byte(i + 1) <= hi && continuation(i + 2) && continuation(i + 3) ? 4 : 0;
  }
  return 0;
}

// A control character's sequence: C0 and DEL (one byte), C1 (U+0080..U+009F: 0xC2 0x80..0x9F).
bool is_control(std::string_view sequence) {
  const auto first = static_cast<unsigned char>(sequence[0]);
  if (sequence.size() == 1) return first < 0x20 || first == 0x7F;
  return sequence.size() == 2 && first == 0xC2 && static_cast<unsigned char>(sequence[1]) <= 0x9F;
}

void append_hex(std::string& out, std::string_view bytes) {
  for (const char c : bytes) {
    char hex[5];
    std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned char>(c));
    out += hex;
  }
}

// Each backslash doubled; bytes outside well-formed UTF-8, and control
// characters where `controls` says so, as \xNN.
std::string escape(std::string_view s, bool controls) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence(s, i);
    const std::string_view sequence = s.substr(i, n ? n : 1);
    if (sequence == "\\")
      out += "\\\\";
    else if (!n || (controls && is_control(sequence)))
      append_hex(out, sequence);
    else
      out += sequence;
    i += sequence.size();
  }
  return out;
}

}  // namespace

bool is_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence(s, i);
    if (!n) return false;
    i += n;
  }
  return true;
}

std::string utf8_escaped(std::string_view s) { return escape(s, false); }

std::string printable(std::string_view s) { return escape(s, true); }

}  // namespace hs
