#include "service/http_message.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace holdfast::service {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int high = hex_value(text[i + 1]);
      const int low = hex_value(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out += static_cast<char>(high * 16 + low);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::optional<std::string> Request::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (iequals(key, name)) return value;
  }
  return std::nullopt;
}

std::optional<std::string> Request::repeated_header() const {
  static constexpr std::array<std::string_view, 5> kSingle = {"Host", "Origin", "Authorization",
                                                              "Content-Type", "If-Match"};
  for (const std::string_view name : kSingle) {
    const auto count = std::count_if(headers.begin(), headers.end(), [&](const auto& header) {
      return iequals(header.first, name);
    });
    if (count > 1) return std::string(name);
  }
  return std::nullopt;
}

std::string Request::param(std::string_view name) const {
  const auto it = query.find(std::string(name));
  return it == query.end() ? std::string() : it->second;
}

std::optional<std::multimap<std::string, std::string>> parse_query(std::string_view query) {
  std::multimap<std::string, std::string> out;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const std::size_t equals = pair.find('=');
    auto name = decode(pair.substr(0, equals));
    auto value =
        decode(equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1));
    if (!name || !value) return std::nullopt;
    out.emplace(std::move(*name), std::move(*value));
  }
  return out;
}

}  // namespace holdfast::service
