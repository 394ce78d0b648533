#include "base/sha256.hpp"

// The low-level SHA-256 functions, not EVP: EVP_Digest makes OpenSSL 3 load
// its provider machinery and error strings on first use, which costs more
// than hashing every settings file of a launch. The low-level interface is
// deprecated in OpenSSL 3 but present and plain; say so explicitly.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <array>
#include <stdexcept>

namespace holdfast::base {

std::string sha256_hex(std::string_view bytes) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256_CTX context;
  if (SHA256_Init(&context) != 1 || SHA256_Update(&context, bytes.data(), bytes.size()) != 1 ||
      SHA256_Final(digest.data(), &context) != 1) {
    throw std::runtime_error("SHA-256 failed (OpenSSL SHA256_*)");
  }
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(digest.size() * 2);
  for (unsigned char byte : digest) {
    out += hex[byte >> 4];
    out += hex[byte & 0xf];
  }
  return out;
}

}  // namespace holdfast::base
