#include "platform/sha256.hpp"

#include <cstdio>

#include "platform/dynamic_library.hpp"
#include "platform/error.hpp"

namespace hs {
namespace {

// The two libcrypto calls, declared here since the headers may be absent.
using EvpSha256 = const void* (*)();
using EvpDigest = int (*)(const void* data, std::size_t count, unsigned char* md, unsigned* size, const void* type,
                          void* engine);

struct Crypto {
  DynamicLibrary library;
  EvpSha256 sha256;
  EvpDigest digest;
};

const Crypto& crypto() {
  static const Crypto c = [] {
    DynamicLibrary lib = [] {
      try {
        return DynamicLibrary("libcrypto.so.3");
      } catch (const Unavailable&) {
        return DynamicLibrary("libcrypto.so");
      }
    }();
    auto sha = lib.function<EvpSha256>("EVP_sha256");
    auto digest = lib.function<EvpDigest>("EVP_Digest");
    return Crypto{std::move(lib), sha, digest};
  }();
  return c;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  const Crypto& c = crypto();
  unsigned char md[32];
  unsigned size = 0;
  if (!c.digest(bytes.data(), bytes.size(), md, &size, c.sha256(), nullptr) || size != sizeof md)
    throw Error("libcrypto: EVP_Digest(SHA-256) failed");
  std::string hex;
  char two[3];
  for (unsigned char b : md) {
    std::snprintf(two, sizeof two, "%02x", b);
    hex += two;
  }
  return hex;
}

}  // namespace hs
