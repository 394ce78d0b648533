// GNU-style option parsing over expanded words, given which options take a
// value: enough to tell a program's operands from its options' values, and
// to find the options that name files.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/gatekeeper/shell_words.hpp"

namespace holdfast::gatekeeper::shell::detail {

struct Option {
  std::string name;        // "o" or "output"
  std::string value;       // empty when the option takes none
  int word = -1;           // the word holding the value
  std::size_t offset = 0;  // where the value starts in that word's text
};

struct Parsed {
  std::vector<Option> options;
  std::vector<std::size_t> operands;  // word indices
  std::size_t end = 0;                // first word not consumed (stop_at_operand)
};

// GNU-style options: -abc clusters, -ovalue, -o value, --name=value,
// --name value, -- ends options. `short_values` lists the short options
// that take a value, `long_values` the long ones (" name name "). With
// stop_at_operand, parsing stops at the first operand (wrappers: what
// follows is the wrapped command).
Parsed parse_args(const std::vector<Expanded>& words, std::size_t from,
                  std::string_view short_values, std::string_view long_values,
                  bool stop_at_operand);

// The first option given under any of `names`, or nullptr. Empty names
// match nothing, so a fixed-size list may leave entries empty.
const Option* find_option(const Parsed& parsed, std::span<const std::string_view> names);

inline const Option* find_option(const Parsed& parsed,
                                 std::initializer_list<std::string_view> names) {
  return find_option(parsed, std::span(names.begin(), names.size()));
}

}  // namespace holdfast::gatekeeper::shell::detail
