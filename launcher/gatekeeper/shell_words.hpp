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
  bool pattern = false;  // unquoted glob characters
  std::vector<std::string> substitutions;
  // Non-empty: arithmetic that evaluates a variable's value as an
  // expression (an array subscript in that value runs commands).
  std::string arithmetic;
};

// An empty `home` or `pwd`: the command line reassigned HOME or PWD, so ~
// and $HOME (or $PWD) are unknown.
Expanded expand(const Word& word, std::string_view pwd, std::string_view home);

// Arithmetic that holdfast can see through: numbers and operators only. A
// name, a subscript or an expansion is evaluated by bash as an expression
// of its own (`a[$(cmd)]` runs cmd).
bool is_plain_arithmetic(std::string_view expression);

// The bodies of the command substitutions written anywhere in `text`
// (quoted or not): what bash runs when it evaluates `text` as arithmetic.
std::vector<std::string> substitutions_in(std::string_view text);

// Brace expansion of a word as typed ({a,b}, {1..3}), quotes respected, as
// bash does it before any other expansion. At most `limit` words; more
// sets `over`. A word without a brace expression comes back unchanged.
std::vector<std::string> brace_expand(std::string_view source, std::size_t limit, bool& over);

// NAME=value in command position (not quoted, NAME a shell identifier).
bool is_assignment(const Word& word);

std::string_view basename_of(std::string_view path);

// /dev/null, /dev/stdin, /dev/fd/N, ...: no file is read or written.
bool is_device_without_effect(std::string_view path);

}  // namespace holdfast::gatekeeper::shell::detail
