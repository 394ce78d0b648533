// Bytes as lower-case hex and back, for the captured client messages the
// network tests hold and for readable failure messages.
#pragma once

#include <string>
#include <string_view>

namespace holdfast::network::testing {

// "16030100" -> the 4 bytes; lower-case hex digits, two per byte.
inline std::string bytes_from_hex(std::string_view hex) {
  const auto digit = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes += static_cast<char>(digit(hex[i]) * 16 + digit(hex[i + 1]));
  }
  return bytes;
}

inline std::string hex_of(std::string_view bytes) {
  constexpr char digits[] = "0123456789abcdef";
  std::string text;
  for (const char c : bytes) {
    text += digits[static_cast<unsigned char>(c) >> 4];
    text += digits[static_cast<unsigned char>(c) & 0xf];
  }
  return text;
}

}  // namespace holdfast::network::testing
