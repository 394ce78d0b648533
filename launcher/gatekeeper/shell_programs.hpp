// The programs whose effects on files, the network and other programs the
// shell analysis maps: for each, every option it accepts (parsed the way it
// parses them, see shell_options.hpp) with what the option's value does,
// and how its operands map to operations. A program not in the table is
// unknown: its default is ask, and only a Bash rule can allow it. An option
// not in a program's row is unknown too: ask.
#pragma once

#include <string_view>

#include "launcher/gatekeeper/shell_options.hpp"

namespace holdfast::gatekeeper::shell::detail {

// How a program's operands map to operations.
enum class Family {
  literal,           // no options, no effect: echo, true, expr
  none,              // no file or network effect through operands: date, uname, printenv
  no_operands,       // no effect, and an operand would change that: hostname, whoami
  read_all,          // every operand is read: cat, head, wc, ls, ...
  grep,              // PATTERN FILE..., recursive with -r/-R
  rg,                // ripgrep: recursive by default, --pre runs a program
  sed,               // the script is analysed (e, r, w, s///e, s///w)
  awk,               // the program is analysed (system, |, >, getline <)
  jq,                // the filter is analysed (import, include)
  write_all,         // touch, mkdir, tee
  edit_all,          // rm, rmdir, unlink, shred, truncate
  chmod,             // MODE FILE... (or -x FILE...: the mode as an option)
  edit_after_first,  // chown OWNER, chgrp GROUP
  copy,              // cp, ln, install: sources read, destination written
  move,              // mv: sources edited, destination written
  read_then_write,   // uniq IN OUT, xxd IN OUT
  dd,                // if= read, of= written
  find,              // find PATHS EXPR
  curl,
  wget,
  git,
  test,     // test, [, [[: -v NAME evaluates an array subscript
  names,    // unset, export, declare, local, readonly, typeset: NAME[=VALUE]
  printf_,  // printf [-v NAME] FORMAT ARGS
};

struct Program {
  std::string_view name;
  Family family;
  OptionTable options;
};

// The row for a program's name (a basename), or nullptr: unknown.
const Program* find_program(std::string_view name);

// bash, sh, dash, ...: their -c string is analysed as a command line.
bool is_shell(std::string_view name);

}  // namespace holdfast::gatekeeper::shell::detail
