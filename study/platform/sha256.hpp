// SHA-256 of bytes, by OpenSSL's libcrypto loaded at run time (present on
// every Debian and Ubuntu system, the GPU machine's included, where no
// headers may be): how prebuilt modules are checked against their manifest
// before any of their code runs.
#pragma once
#include <string>
#include <string_view>

namespace hs {

// 64 lowercase hex digits. Throws Unavailable when libcrypto cannot be loaded.
std::string sha256_hex(std::string_view bytes);

}  // namespace hs
