// What a shell command line does to files and the network.
//
// Each simple command (see shell_lexer.hpp) is unwrapped (sudo, env, time,
// nice, nohup, timeout, stdbuf, ...; bash -c / sh -c bodies; eval and
// command substitutions are analysed too) and mapped to the operations it
// performs: reads, writes, edits and fetches, with absolute targets. `cd`
// is followed: since a cd may fail or run in a subshell, the analysis keeps
// every directory the command might be in and maps relative paths against
// each of them.
//
// What cannot be analysed (computed program names, $VARIABLES other than
// $HOME and $PWD in paths, glob patterns, loops, substitutions, eval) is
// listed in `unanalysable`; the decision treats it as at least `ask`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace holdfast::gatekeeper::shell {

enum class OpKind { read, write, edit, fetch };

std::string_view op_kind_name(OpKind kind);

struct Operation {
  OpKind kind = OpKind::read;
  std::string target;  // normalized absolute path, or the host for a fetch
  std::string via;     // what performs it, for messages: "cat", "> redirect"
  // The absolute path before ".." is folded: symlink resolution must see
  // it, because the kernel resolves "link/.." physically.
  std::string unfolded;
};

struct CommandAnalysis {
  std::string source;                    // the simple command as typed
  std::vector<std::string> words;        // after wrappers are stripped; what Bash rules match
  std::vector<std::string> typed_words;  // before stripping (sudo rm ...)
  bool known = false;                    // the program is one whose effects are all mapped
  std::vector<Operation> ops;
  std::vector<std::string> unanalysable;  // reasons; non-empty means at least ask
};

struct Analysis {
  std::vector<CommandAnalysis> commands;
};

struct ShellContext {
  std::string cwd;   // absolute, normalized
  std::string home;  // absolute, normalized
};

Analysis analyse(std::string_view command_line, const ShellContext& context);

}  // namespace holdfast::gatekeeper::shell
