// The programs whose effects on files and the network the shell analysis
// maps, and how each one's arguments map to operations. A program not in
// the table is unknown: its default is ask, and only a Bash rule can
// allow it.
#pragma once

#include <string_view>

namespace holdfast::gatekeeper::shell::detail {

// How a program's arguments map to operations.
enum class Family {
  none,              // no file or network effect: echo, printf, pwd, ...
  read_all,          // every operand is read: cat, head, ls, ...
  read_after_first,  // the first operand is a pattern or program: grep, sed, awk, jq
  write_all,         // touch, mkdir, tee
  edit_all,          // rm, rmdir, unlink, shred, truncate
  edit_after_first,  // chmod MODE, chown OWNER, chgrp GROUP
  copy,              // cp, ln, install: sources read, destination written
  move,              // mv: sources edited, destination written
  read_then_write,   // uniq IN OUT, xxd IN OUT
  dd,                // if= read, of= written
  find,              // find PATHS EXPR
  curl,
  wget,
};

struct Program {
  std::string_view name;
  Family family;
  std::string_view short_values;  // short options that take a value
  std::string_view long_values;   // " name name " long options that take a value
};

// The row for a program's name (a basename), or nullptr: unknown.
const Program* find_program(std::string_view name);

// bash, sh, dash, ...: their -c string is analysed as a command line.
bool is_shell(std::string_view name);

}  // namespace holdfast::gatekeeper::shell::detail
