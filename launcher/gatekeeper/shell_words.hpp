// Words of a simple command after the expansions the analysis can
// perform: ~ and $HOME, $PWD. Anything else ($OTHER, $(...), ~user) is
// kept as typed and marks the word dynamic; unquoted glob and brace
// characters mark it a pattern.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "launcher/gatekeeper/shell_lexer.hpp"

namespace holdfast::gatekeeper::shell::detail {

// A word after the expansions we can perform.
struct Expanded {
  std::string text;
  bool dynamic = false;  // depends on something unknown
  bool splits = false;   // an unquoted unknown expansion: may become several words
  std::string why;       // the first unknown part
  bool pattern = false;  // unquoted glob or brace characters
  std::vector<std::string> substitutions;
};

Expanded expand(const Word& word, std::string_view pwd, std::string_view home);

// NAME=value in command position (not quoted, NAME a shell identifier).
bool is_assignment(const Word& word);

std::string_view basename_of(std::string_view path);

// /dev/null, /dev/stdin, /dev/fd/N, ...: no file is read or written.
bool is_device_without_effect(std::string_view path);

}  // namespace holdfast::gatekeeper::shell::detail
