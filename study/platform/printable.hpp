// Names as the user gave them (file paths, toolchain specs, arguments) may
// hold any byte but NUL. Result files keep them exact (escaped losslessly
// where they are not UTF-8); every line printed shows them escaped, so that
// no name can end a line, start another or drive the terminal.
#pragma once
#include <string>
#include <string_view>

namespace hs {

// Whether `s` is well-formed UTF-8 (RFC 3629).
bool is_utf8(std::string_view s);

// `s` with each byte outside well-formed UTF-8 written \xNN and each
// backslash doubled: the original bytes can be recovered exactly.
std::string utf8_escaped(std::string_view s);

// utf8_escaped, and every control character too (C0, DEL, and C1 such as
// U+009B, a terminal's CSI) written byte by byte as \xNN: one line, shown as
// typed. What every printer shows a name, path or message with.
std::string printable(std::string_view s);

}  // namespace hs
