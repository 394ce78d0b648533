// Command wrappers: programs that run the rest of their arguments as a
// command (sudo, env, time, nice, nohup, timeout, stdbuf, xargs, busybox,
// watch, strace, ltrace, taskset, flock, xvfb-run, fakeroot, ...). The analysis skips a wrapper's
// own options and maps the wrapped command; each row says which options the wrapper takes (see
// shell_options.hpp) and what else it does that the analysis must account
// for.
#pragma once

#include <array>
#include <string_view>

#include "launcher/gatekeeper/shell_options.hpp"

namespace holdfast::gatekeeper::shell::detail {

// Option names, short and long ("D", "chdir"); unused entries stay empty.
using OptionNames = std::array<std::string_view, 2>;

// How the wrapped command is formed from the words after the options.
enum class Wraps {
  words,   // the words are the command (sudo rm x)
  joined,  // the words are joined with spaces and run by sh -c (watch)
  input,   // the words are the command, and more arguments come from stdin (xargs)
};

// What the one operand before the wrapped command is.
enum class Operand {
  none,          // there is none
  data,          // not a path (timeout's duration, taskset's mask)
  created_file,  // a file the wrapper opens and creates (flock's lock file)
};

struct Wrapper {
  std::array<std::string_view, 3> names;  // the wrapper's program names; unused entries empty
  std::string_view options;               // the option table, see shell_options.hpp
  // Options that run the command in another directory (sudo -D, env -C):
  // relative paths in it cannot be mapped.
  OptionNames chdir = {};
  // Options whose value is split into the command (env -S).
  OptionNames splits = {};
  // Options that only look the command up and run nothing (command -v):
  // the analysis ends there.
  OptionNames lookup_only = {};
  // Options that make the words run directly instead of joined (watch -x).
  OptionNames unjoined = {};
  // NAME=value words after the options set the command's environment (env).
  bool assignments_follow = false;
  // One operand before the command (timeout's duration, taskset's mask,
  // flock's lock file).
  Operand operand = Operand::none;
  // Words right after that operand which make the next word a command
  // string run by sh -c (flock FILE -c STRING).
  OptionNames string_after_operand = {};
  Wraps wraps = Wraps::words;
  ParseStyle style = ParseStyle::gnu;
};

struct WrapperRow {
  const Wrapper* wrapper;
  const OptionTable* options;
};

// The row for a program's name (a basename), or {nullptr, nullptr}: not a
// wrapper.
WrapperRow find_wrapper(std::string_view name);

}  // namespace holdfast::gatekeeper::shell::detail
