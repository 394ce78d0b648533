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
// Every program the analysis knows has a row saying which of its options
// and operands it reads, writes, edits and EXECUTES (shell_programs.hpp);
// scripts given to sed, awk, jq and find are read for the commands they
// run and the files they touch (shell_scripts.hpp); commands run by
// options (sort --compress-program, rg --pre, git -c core.sshCommand,
// find -exec, awk's system()) are analysed as commands of their own.
//
// What cannot be analysed (computed program names, $VARIABLES other than
// $HOME and $PWD in paths, glob patterns, loops, substitutions, eval,
// environment that changes what runs, unknown options) is listed in
// `unanalysable`; the decision treats it as at least `ask`. A path that
// may be anything (a glob, a $VARIABLE, what xargs or find hand over) is
// an operation with a wider scope, and a command the analysis cannot see
// is listed in `runs_unknown`: the decision lets no approval mode allow
// either when a deny rule could match it. Code the analysis cannot see at
// all (an unmapped program, a script, LD_PRELOAD=...) is listed in
// `hidden`: with any deny rule it could meet, no mode approves it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace holdfast::gatekeeper::shell {

enum class OpKind { read, write, edit, fetch };

std::string_view op_kind_name(OpKind kind);

// Which paths an operation may touch.
enum class Scope {
  exact,     // the target
  subtree,   // the target and everything below it (rm -r, grep -r), no symlink followed
  pattern,   // the target is a glob pattern, or a tree walked through symlinks
  anywhere,  // any path at all ($VARIABLE, a name from input); target is "/"
};

struct Operation {
  OpKind kind = OpKind::read;
  std::string target;  // normalized absolute path, or the host for a fetch
  std::string via;     // what performs it, for messages: "cat", "> redirect"
  // The absolute path before ".." is folded: symlink resolution must see
  // it, because the kernel resolves "link/.." physically.
  std::string unfolded;
  Scope scope = Scope::exact;
};

struct CommandAnalysis {
  std::string source;                    // the simple command as typed
  std::vector<std::string> words;        // after wrappers are stripped; what Bash rules match
  std::vector<bool> dynamic;             // per word of `words`: computed, may be any words
  std::vector<std::string> typed_words;  // before stripping (sudo rm ...)
  bool known = false;                    // the program is one whose effects are all mapped
  // Not all its effects are mapped, but its arguments are (git): what they
  // run, read and write is among the operations.
  bool arguments_mapped = false;
  std::vector<Operation> ops;
  std::vector<std::string> unanalysable;  // reasons; non-empty means at least ask
  std::vector<std::string> runs_unknown;  // it runs commands the analysis cannot see
  // It runs code whose effects the analysis cannot see: a program whose
  // effects are not all mapped, a script, a shell reading its input, a
  // variable that changes what runs or loads, an option holdfast does not
  // know. No approval mode approves it when a deny rule could meet that
  // code; an allow rule for the command still can (the operator named it).
  std::vector<std::string> hidden;
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
