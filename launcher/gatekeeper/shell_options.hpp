// A program's options as the program parses them, and what each one does.
//
// An option table is written as one string of tokens, one per option:
//
//   -n            a short flag          --number        a long flag
//   -o=W          a short option with a required value, which it writes
//   --output=W    the same, long        --color=?       an optional value (attached only)
//   --rawfile=2R  two values, the second of which it reads
//   -#            the program takes -NUM (head -5)
//
// The letter after `=` is the value's effect: R read, W write, E edit, X a
// program it executes, C a shell command it executes, L a file whose lines
// name more files it reads, S special (the program's own mapper looks at
// it), U an effect holdfast does not map (ask); none: plain data. What a
// flag changes (sed -i, grep -r) is the program mapper's business.
//
// Parsing follows GNU getopt_long: clusters (-abc), attached and separate
// values, `--name=value`, a long option may be abbreviated to any unique
// prefix (an exact name wins), options may follow operands, `--` ends
// options. Exact style (jq) takes long names only in full. An option the
// table does not have, or an abbreviation that is ambiguous, is reported
// as unknown: the caller asks.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/gatekeeper/shell_words.hpp"

namespace holdfast::gatekeeper::shell::detail {

enum class ValueEffect : char {
  none = 0,
  read = 'R',
  write = 'W',
  edit = 'E',
  program = 'X',
  command = 'C',
  names_files = 'L',
  special = 'S',
  unknown = 'U',
};

enum class Arity : unsigned char { flag, required, optional, two };

struct OptionSpec {
  std::string_view name;  // "o" or "output"
  Arity arity = Arity::flag;
  ValueEffect effect = ValueEffect::none;
};

enum class ParseStyle : unsigned char {
  gnu,    // getopt_long: abbreviations, permutation
  exact,  // long names in full only; options anywhere (jq)
  first,  // options only before the first operand (shell builtins, POSIX)
};

struct OptionTable {
  std::vector<OptionSpec> shorts;
  std::vector<OptionSpec> longs;
  bool numeric = false;  // -NUM
  ParseStyle style = ParseStyle::gnu;
};

// Compiles the token string described above. Malformed tokens are a
// programming error (the tables are constants): they throw std::logic_error.
OptionTable compile_options(std::string_view spec, ParseStyle style = ParseStyle::gnu);

struct Option {
  std::string name;        // the canonical name: "o" or "output"
  std::string value;       // empty when the option takes none
  int word = -1;           // the word holding the value
  std::size_t offset = 0;  // where the value starts in that word's text
  const OptionSpec* spec = nullptr;
  std::string value2;  // the second value of a two-value option
  int word2 = -1;
};

struct Parsed {
  std::vector<Option> options;
  std::vector<std::size_t> operands;  // word indices
  std::size_t end = 0;                // first word not consumed (stop_at_operand)
  std::vector<std::string> unknown;   // options the table does not know, as typed
};

// With stop_at_operand, parsing stops at the first operand (wrappers:
// what follows is the wrapped command).
Parsed parse_args(const std::vector<Expanded>& words, std::size_t from, const OptionTable& table,
                  bool stop_at_operand);

// The first option given under any of `names`, or nullptr. Empty names
// match nothing, so a fixed-size list may leave entries empty.
const Option* find_option(const Parsed& parsed, std::span<const std::string_view> names);

inline const Option* find_option(const Parsed& parsed,
                                 std::initializer_list<std::string_view> names) {
  return find_option(parsed, std::span(names.begin(), names.size()));
}

}  // namespace holdfast::gatekeeper::shell::detail
