// SHA-256 of bytes, as lowercase hex (OpenSSL's libcrypto does the work).
#pragma once

#include <string>
#include <string_view>

namespace holdfast::base {

std::string sha256_hex(std::string_view bytes);

}  // namespace holdfast::base
