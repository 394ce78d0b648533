// The gatekeeper's decision: may this tool call run at all?
//
//   Context context;
//   context.workspace = "/home/me/project"; context.cwd = context.workspace;
//   context.home = "/home/me";
//   context.persistent = rules_from_settings(take_snapshot(paths).effective.value);
//   context.resolve = resolve_symlinks;   // or any function, for tests
//   prepare(context);                      // optional: compiles the rules once
//   Verdict v = decide({"Bash", "cat ~/.ssh/id_rsa"}, context);
//
// Order: deny rules > ask rules > allow rules > the tool's default by
// path (inside the workspace or the private tmp allow, elsewhere ask),
// then the approval mode. Within each tier session rules come before
// persistent ones. Deny and ask rules are matched against the written
// path and its symlink-resolved form. A Bash call is split into simple
// commands; each is decided by the Bash rule that matches it (else: an
// unknown program asks), and every file or network operation it performs
// is decided as the Read/Edit/Write/WebFetch call would be (rules, then the
// tool default). The most restrictive result wins, so an operation only
// ever makes a decision stricter; what cannot be analysed is at least ask.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "launcher/gatekeeper/approval_mode.hpp"
#include "launcher/gatekeeper/decision.hpp"
#include "launcher/gatekeeper/rule.hpp"

namespace holdfast::gatekeeper {

struct ToolCall {
  // Read (and Grep, Glob, LS), Edit (and MultiEdit, NotebookEdit), Write,
  // Bash (alias Shell), WebFetch, or any other name.
  std::string tool;
  // The path, the command line, the URL; for other tools whatever the
  // rules' specifiers should glob against. Empty path: the cwd.
  std::string argument;
};

struct CompiledRules;

struct Context {
  std::string workspace;     // absolute
  std::string cwd;           // absolute; relative paths and ./ rules start here
  std::string home;          // absolute; ~ and $HOME
  std::string tmp = "/tmp";  // the private tmp
  Mode mode = Mode::default_mode;
  RuleSet session;     // given to the API for this session; checked first in each tier
  RuleSet persistent;  // from settings
  // Symlink resolution of an absolute path (".." not yet folded). Empty: paths are
  // taken as written (use resolve_symlinks from symlinks.hpp for the real
  // filesystem).
  std::function<std::string(const std::string&)> resolve;
  // Filled by prepare(); decide() compiles on the fly when it is missing or
  // was made for other paths.
  std::shared_ptr<const CompiledRules> compiled;
};

// Compiles the rules against the context's paths so each decide() does
// not have to. Call again after changing rules or paths.
void prepare(Context& context);

struct Verdict {
  Decision decision = Decision::deny;
  std::optional<Rule> rule;  // the rule that decided, if one did
  std::string reason;
};

Verdict decide(const ToolCall& call, const Context& context);

}  // namespace holdfast::gatekeeper
