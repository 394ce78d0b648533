// One table of an enum's names, read both ways: printing a value and
// parsing a name look in the same rows, so they cannot drift apart.
//
//   constexpr NameRow<Network> kNetworkNames[] = {{Network::open, "open"},
//                                                 {Network::closed, "closed"}};
//   name_in(kNetworkNames, Network::open)     -> "open"
//   parse_in(kNetworkNames, "closed")         -> Network::closed
//   alternatives(kNetworkNames)               -> "\"open\" or \"closed\""
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace holdfast {

template <typename Enum>
struct NameRow {
  Enum value;
  std::string_view name;
};

// The name of `value`; "?" for a value the table lacks (a programming error
// that a test of the table catches).
template <typename Enum, std::size_t N>
constexpr std::string_view name_in(const NameRow<Enum> (&table)[N], Enum value) {
  for (const auto& row : table) {
    if (row.value == value) return row.name;
  }
  return "?";
}

template <typename Enum, std::size_t N>
constexpr std::optional<Enum> parse_in(const NameRow<Enum> (&table)[N], std::string_view name) {
  for (const auto& row : table) {
    if (row.name == name) return row.value;
  }
  return std::nullopt;
}

// The names quoted, for a message: "\"a\", \"b\" or \"c\"".
template <typename Enum, std::size_t N>
std::string alternatives(const NameRow<Enum> (&table)[N]) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? " or " : ", ";
    out += "\"" + std::string(table[i].name) + "\"";
  }
  return out;
}

}  // namespace holdfast
