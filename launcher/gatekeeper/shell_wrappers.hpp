// Command wrappers: programs that run the rest of their arguments as a
// command (sudo, env, time, nice, nohup, timeout, stdbuf, xargs, ...). The
// analysis skips a wrapper's own options and maps the wrapped command; each
// row says which options take a value and what else the wrapper does that
// the analysis must account for.
#pragma once

#include <array>
#include <string_view>

namespace holdfast::gatekeeper::shell::detail {

// Option names, short and long ("D", "chdir"); unused entries stay empty.
using OptionNames = std::array<std::string_view, 2>;

struct Wrapper {
  std::array<std::string_view, 3> names;  // the wrapper's program names; unused entries empty
  std::string_view short_values;          // short options that take a value
  std::string_view long_values;           // " name name " long options that take a value
  // Options that run the command in another directory (sudo -D, env -C):
  // relative paths in it cannot be mapped.
  OptionNames chdir = {};
  // Options that turn a string into the command (env -S), and why that is
  // unanalysable.
  OptionNames splits = {};
  std::string_view splits_because = {};
  // Options that only look the command up and run nothing (command -v):
  // the analysis ends there.
  OptionNames lookup_only = {};
  // Why the wrapped command can never be analysed exactly (xargs), and
  // options that name a file the wrapper reads (xargs -a).
  std::string_view unanalysable = {};
  OptionNames reads = {};
  // NAME=value words after the options set the command's environment (env).
  bool assignments_follow = false;
  // One operand before the command that is not a path (timeout's duration).
  bool skips_operand = false;
};

// The row for a program's name (a basename), or nullptr: not a wrapper.
const Wrapper* find_wrapper(std::string_view name);

}  // namespace holdfast::gatekeeper::shell::detail
