#include "launcher/gatekeeper/decide.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <array>

#include "launcher/gatekeeper/path_match.hpp"
#include "launcher/gatekeeper/shell_analysis.hpp"
#include "launcher/gatekeeper/url_host.hpp"

namespace holdfast::gatekeeper {

using shell::OpKind;

struct CompiledRule {
  const Rule* rule = nullptr;
  PathPattern path;                // RuleKind::path with a specifier
  std::vector<std::string> words;  // RuleKind::shell with a specifier
  std::vector<bool> word_globs;    // per word: has glob characters
  std::string domain;              // RuleKind::fetch with a specifier
  unsigned kinds = 0;              // bit per OpKind the rule covers in its tier
};

enum Tier { kDeny = 0, kAsk = 1, kAllow = 2 };

struct CompiledRules {
  PathBases bases;
  std::array<std::size_t, 6> sizes{};
  RuleSet session;  // owned copies: CompiledRule points into these
  RuleSet persistent;
  std::array<std::vector<CompiledRule>, 3> tiers;  // session rules first in each
  // Per tier, the rules that cover some operation, and the Bash rules:
  // what a mapped shell operation or a command has to look at.
  std::array<std::vector<const CompiledRule*>, 3> operation_rules;
  std::array<std::vector<const CompiledRule*>, 3> shell_rules;
  // The deny rule that code the analysis cannot see could meet, if any: a
  // Bash deny first (it could run the command), else a Read/Edit/Write or
  // WebFetch deny (it could touch the path). Rules for other tools no shell
  // command can meet.
  const CompiledRule* hidden_code_deny = nullptr;
};

namespace {

constexpr Decision kTierDecision[] = {Decision::deny, Decision::ask, Decision::allow};

std::array<std::size_t, 6> sizes_of(const Context& c) {
  return {c.session.deny.size(),    c.session.ask.size(),    c.session.allow.size(),
          c.persistent.deny.size(), c.persistent.ask.size(), c.persistent.allow.size()};
}

PathBases bases_of(const Context& c) {
  const std::string workspace = normalize_path(c.workspace);
  return {workspace, normalize_path(c.cwd, workspace), normalize_path(c.home)};
}

CompiledRule compile_rule(const Rule& rule, const PathBases& bases) {
  CompiledRule compiled;
  compiled.rule = &rule;
  if (!rule.has_specifier) return compiled;
  switch (rule.kind) {
    case RuleKind::path:
      compiled.path = compile_glob(specifier_to_glob(rule.specifier, bases));
      break;
    case RuleKind::shell: {
      std::string spec = rule.specifier;
      if (spec.ends_with(":*")) spec.replace(spec.size() - 2, 2, " *");  // npm run:* form
      std::size_t i = 0;
      while (i < spec.size()) {
        const std::size_t begin = spec.find_first_not_of(" \t", i);
        if (begin == std::string::npos) break;
        const std::size_t end = std::min(spec.find_first_of(" \t", begin), spec.size());
        compiled.words.push_back(spec.substr(begin, end - begin));
        i = end;
      }
      // A trailing `*` adds nothing: prefixes already match any arguments.
      while (!compiled.words.empty() && compiled.words.back() == "*") compiled.words.pop_back();
      break;
    }
    case RuleKind::fetch: {
      std::string domain = rule.specifier.substr(std::string_view("domain:").size());
      if (domain.starts_with("*.")) domain.erase(0, 2);
      std::transform(domain.begin(), domain.end(), domain.begin(),
                     [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
      compiled.domain = domain;
      break;
    }
    case RuleKind::other:
      break;
  }
  return compiled;
}

bool covers(const Rule& rule, OpKind kind, Tier tier);

std::shared_ptr<CompiledRules> compile(const Context& context) {
  auto out = std::make_shared<CompiledRules>();
  out->bases = bases_of(context);
  out->sizes = sizes_of(context);
  out->session = context.session;
  out->persistent = context.persistent;
  const std::vector<Rule>* lists[3][2] = {{&out->session.deny, &out->persistent.deny},
                                          {&out->session.ask, &out->persistent.ask},
                                          {&out->session.allow, &out->persistent.allow}};
  for (int tier = 0; tier < 3; ++tier) {
    out->tiers[tier].reserve(lists[tier][0]->size() + lists[tier][1]->size());
    for (const auto* list : lists[tier]) {
      for (const Rule& rule : *list) {
        CompiledRule compiled = compile_rule(rule, out->bases);
        for (OpKind kind : {OpKind::read, OpKind::write, OpKind::edit, OpKind::fetch}) {
          if (covers(rule, kind, static_cast<Tier>(tier)))
            compiled.kinds |= 1U << static_cast<unsigned>(kind);
        }
        for (const std::string& word : compiled.words) {
          compiled.word_globs.push_back(word.find_first_of("*?[") != std::string::npos);
        }
        out->tiers[tier].push_back(std::move(compiled));
      }
    }
    out->operation_rules[tier].reserve(out->tiers[tier].size());
    for (const CompiledRule& rule : out->tiers[tier]) {
      if (rule.kinds != 0) out->operation_rules[tier].push_back(&rule);
      if (rule.rule->kind == RuleKind::shell) out->shell_rules[tier].push_back(&rule);
    }
  }
  if (!out->shell_rules[kDeny].empty()) {
    out->hidden_code_deny = out->shell_rules[kDeny].front();
  } else if (!out->operation_rules[kDeny].empty()) {
    out->hidden_code_deny = out->operation_rules[kDeny].front();
  }
  return out;
}

// Shell words against a Bash rule: prefix on word boundaries; a `*` word
// matches any run of words; other words may glob within themselves.
bool words_match(const CompiledRule& rule, std::size_t p, const std::vector<std::string>& words,
                 std::size_t w) {
  const std::vector<std::string>& pattern = rule.words;
  if (p == pattern.size()) return true;
  if (pattern[p] == "*") {
    for (std::size_t k = w; k <= words.size(); ++k) {
      if (words_match(rule, p + 1, words, k)) return true;
    }
    return false;
  }
  if (w == words.size()) return false;
  const bool same = !rule.word_globs[p] ? pattern[p] == words[w]
                                        : fnmatch(pattern[p].c_str(), words[w].c_str(), 0) == 0;
  return same && words_match(rule, p + 1, words, w + 1);
}

// As words_match, but a computed word (dynamic) may stand for any run of
// words: could the command be one the pattern matches?
bool words_may_match(const std::vector<std::string>& pattern, std::size_t p,
                     const std::vector<std::string>& words, const std::vector<bool>& dynamic,
                     std::size_t w) {
  if (p == pattern.size()) return true;
  if (w == words.size()) return false;
  if (dynamic[w]) {
    for (std::size_t k = p; k <= pattern.size(); ++k) {
      if (words_may_match(pattern, k, words, dynamic, w + 1)) return true;
    }
    return false;
  }
  if (pattern[p] == "*") {
    for (std::size_t k = w; k <= words.size(); ++k) {
      if (words_may_match(pattern, p + 1, words, dynamic, k)) return true;
    }
    return false;
  }
  const bool same = pattern[p].find_first_of("*?[") == std::string::npos
                        ? pattern[p] == words[w]
                        : fnmatch(pattern[p].c_str(), words[w].c_str(), 0) == 0;
  return same && words_may_match(pattern, p + 1, words, dynamic, w + 1);
}

bool host_matches(const std::string& domain, const std::string& host) {
  return host == domain || (host.size() > domain.size() && host.ends_with(domain) &&
                            host[host.size() - domain.size() - 1] == '.');
}

// Which operations a rule's tool covers. An Edit rule covers writes too; a
// Write deny or ask also covers edits (an edit is a write), a Write allow
// does not.
bool covers(const Rule& rule, OpKind kind, Tier tier) {
  if (rule.tool == "Read") return kind == OpKind::read;
  if (rule.tool == "Edit") return kind == OpKind::edit || kind == OpKind::write;
  if (rule.tool == "Write")
    return kind == OpKind::write || (kind == OpKind::edit && tier != kAllow);
  if (rule.tool == "WebFetch") return kind == OpKind::fetch;
  return false;
}

enum class CallClass { read, edit, write, shell, fetch, other };

CallClass classify(const std::string& tool) {
  if (tool == "Read" || tool == "Grep" || tool == "Glob" || tool == "LS") return CallClass::read;
  if (tool == "Edit" || tool == "MultiEdit" || tool == "NotebookEdit") return CallClass::edit;
  if (tool == "Write") return CallClass::write;
  if (tool == "Bash" || tool == "Shell") return CallClass::shell;
  if (tool == "WebFetch") return CallClass::fetch;
  return CallClass::other;
}

OpKind op_kind_of(CallClass c) {
  switch (c) {
    case CallClass::edit:
      return OpKind::edit;
    case CallClass::write:
      return OpKind::write;
    case CallClass::fetch:
      return OpKind::fetch;
    default:
      return OpKind::read;
  }
}

// `next` replaces `current` when it is stricter, or as strict and carries
// the rule that decided while `current` does not.
void keep_strictest(Verdict& current, Verdict next) {
  if (next.decision > current.decision ||
      (next.decision == current.decision && !current.rule && next.rule)) {
    current = std::move(next);
  }
}

Verdict rule_verdict(const CompiledRule& rule, Tier tier, const std::string& what) {
  return {kTierDecision[tier], *rule.rule,
          std::string(decision_name(kTierDecision[tier])) + " rule " + rule.rule->text +
              " matches " + what};
}

class Decider {
 public:
  Decider(const Context& context, const CompiledRules& rules) : c_(context), r_(rules) {
    ws_ = r_.bases.workspace;
    tmp_ = normalize_path(c_.tmp);
    ws_resolved_ = resolve(ws_);
    tmp_resolved_ = resolve(tmp_);
  }

  Verdict run(const ToolCall& call) {
    const CallClass cls = classify(call.tool);
    Verdict verdict;
    ModeFacts facts;
    switch (cls) {
      case CallClass::read:
      case CallClass::edit:
      case CallClass::write: {
        // A leading ~/ is taken as the home directory, as a shell would: a
        // deny on ~/.ssh must not be dodged by passing the path unexpanded.
        std::string argument = call.argument;
        if (argument == "~" || argument.starts_with("~/")) {
          argument = r_.bases.home + argument.substr(1);
        }
        const std::string path = normalize_path(argument, r_.bases.cwd);
        // Resolve the unfolded form: the kernel takes "link/.." physically.
        const std::string resolved =
            resolve(argument.starts_with('/') ? argument : r_.bases.cwd + "/" + argument);
        verdict = decide_path(call, op_kind_of(cls), path, resolved);
        facts.read_only = cls == CallClass::read;
        facts.workspace_edit = cls != CallClass::read && is_within(path, ws_) &&
                               (is_within(resolved, ws_) || is_within(resolved, ws_resolved_));
        break;
      }
      case CallClass::fetch:
        verdict = decide_fetch(call);
        facts.read_only = true;
        break;
      case CallClass::shell:
        verdict = decide_shell(call, facts);
        break;
      case CallClass::other:
        verdict = decide_other(call);
        break;
    }
    facts.may_be_denied = may_be_denied_ || hides_code_;
    if (may_be_denied_ && verdict.decision == Decision::allow) {
      // An allow rule matched the command's prefix, but a deny rule applies
      // to anything the command can run or touch: what it might be is not
      // the allow rule's to approve.
      verdict = {Decision::ask, std::nullopt,
                 verdict.reason + ", but an allow rule does not approve what it may run or touch"};
    }
    if (may_be_denied_ && verdict.decision == Decision::ask) {
      verdict.reason += "; it might be " + may_be_denied_reason_ + ", so no mode approves it";
    }
    if (hides_code_ && verdict.decision == Decision::ask) {
      verdict.reason += "; it runs code holdfast cannot see (" + hidden_code_ +
                        "), which could meet deny rule " + r_.hidden_code_deny->rule->text +
                        ", so no mode approves it: an allow rule for this command approves it, "
                        "or run it in the sandbox (holdfast run)";
    }
    ModeOutcome outcome = apply_mode(c_.mode, verdict.decision, facts);
    if (!outcome.reason.empty()) {
      verdict.reason = outcome.reason +
                       " (without the mode: " + std::string(decision_name(verdict.decision)) +
                       ", " + verdict.reason + ")";
      verdict.decision = outcome.decision;
    }
    return verdict;
  }

 private:
  std::string resolve(const std::string& path) const {
    return c_.resolve ? c_.resolve(path) : path;
  }

  bool inside_trusted(const std::string& path, const std::string& resolved) const {
    const bool written = is_within(path, ws_) || is_within(path, tmp_);
    const bool real = is_within(resolved, ws_) || is_within(resolved, tmp_) ||
                      is_within(resolved, ws_resolved_) || is_within(resolved, tmp_resolved_);
    return written && real;
  }

  // A rule named after the call's tool verbatim (e.g. Grep(...), or an MCP
  // tool): its specifier globs the argument.
  static bool verbatim_match(const CompiledRule& rule, const ToolCall& call) {
    if (rule.rule->tool != call.tool || rule.rule->kind != RuleKind::other) return false;
    return !rule.rule->has_specifier ||
           fnmatch(rule.rule->specifier.c_str(), call.argument.c_str(), 0) == 0;
  }

  // Path rules for one operation; `tiers_to_check` = 2 checks deny and ask
  // only (a mapped shell operation can only make a decision stricter).
  std::optional<Verdict> match_path(OpKind kind, const std::string& path,
                                    const std::string& resolved, int tiers_to_check,
                                    const ToolCall* call) const {
    const auto written = split_path(path);
    const auto real = split_path(resolved);
    const unsigned bit = 1U << static_cast<unsigned>(kind);
    auto verdict_of = [&](const CompiledRule& rule, int tier) -> std::optional<Verdict> {
      if (call != nullptr && verbatim_match(rule, *call)) {
        return rule_verdict(rule, static_cast<Tier>(tier), call->tool + " " + call->argument);
      }
      if ((rule.kinds & bit) == 0) return std::nullopt;
      if (!rule.rule->has_specifier || glob_matches(rule.path, written)) {
        return rule_verdict(rule, static_cast<Tier>(tier),
                            std::string(shell::op_kind_name(kind)) + " of " + path);
      }
      if (tier != kAllow && resolved != path && glob_matches(rule.path, real)) {
        return rule_verdict(rule, static_cast<Tier>(tier),
                            std::string(shell::op_kind_name(kind)) + " of " + path +
                                " (a symlink to " + resolved + ")");
      }
      return std::nullopt;
    };
    for (int tier = 0; tier < tiers_to_check; ++tier) {
      // A tool call may meet a rule named after its tool verbatim; a shell
      // operation only the rules that cover operations.
      if (call != nullptr) {
        for (const CompiledRule& rule : r_.tiers[tier]) {
          if (auto v = verdict_of(rule, tier)) return v;
        }
      } else {
        for (const CompiledRule* rule : r_.operation_rules[tier]) {
          if (auto v = verdict_of(*rule, tier)) return v;
        }
      }
    }
    return std::nullopt;
  }

  std::optional<Verdict> match_host(const std::string& host, int tiers_to_check) const {
    const unsigned bit = 1U << static_cast<unsigned>(OpKind::fetch);
    for (int tier = 0; tier < tiers_to_check; ++tier) {
      for (const CompiledRule* ref : r_.operation_rules[tier]) {
        const CompiledRule& rule = *ref;
        if ((rule.kinds & bit) == 0) continue;
        if (!rule.rule->has_specifier || host_matches(rule.domain, host)) {
          return rule_verdict(rule, static_cast<Tier>(tier), "a fetch from " + host);
        }
      }
    }
    return std::nullopt;
  }

  Verdict path_default(OpKind kind, const std::string& path, const std::string& resolved) const {
    const std::string what = std::string(shell::op_kind_name(kind)) + " of " + path;
    if (inside_trusted(path, resolved)) {
      return {Decision::allow, std::nullopt,
              what + " is inside the workspace or the private tmp (tool default)"};
    }
    std::string reason = what + " is outside the workspace and the private tmp (tool default)";
    if (resolved != path && is_within(path, ws_)) {
      reason = what + " is a symlink to " + resolved + ", outside the workspace (tool default)";
    }
    return {Decision::ask, std::nullopt, reason};
  }

  Verdict decide_path(const ToolCall& call, OpKind kind, const std::string& path,
                      const std::string& resolved) const {
    if (auto matched = match_path(kind, path, resolved, 3, &call)) return *matched;
    return path_default(kind, path, resolved);
  }

  Verdict decide_fetch(const ToolCall& call) const {
    const std::string host = url_host(call.argument);
    if (host.empty()) {
      // No host for a domain rule to match; the tool's bare deny rule still
      // denies every fetch (and no rule allows a URL that cannot be read).
      if (auto denied = match_host(host, 1)) return *denied;
      return {Decision::ask, std::nullopt, "no host in the URL \"" + call.argument + "\""};
    }
    if (auto matched = match_host(host, 3)) return *matched;
    return {Decision::ask, std::nullopt, "fetch from " + host + " (tool default: ask)"};
  }

  Verdict decide_other(const ToolCall& call) const {
    for (int tier = 0; tier < 3; ++tier) {
      for (const CompiledRule& rule : r_.tiers[tier]) {
        if (verbatim_match(rule, call)) {
          return rule_verdict(rule, static_cast<Tier>(tier), "the " + call.tool + " call");
        }
      }
    }
    return {Decision::ask, std::nullopt, call.tool + " has no rule (tool default: ask)"};
  }

  std::optional<Verdict> match_bash_rules(const shell::CommandAnalysis& command) const {
    std::vector<std::string> by_basename;
    if (!command.words.empty() && command.words[0].find('/') != std::string::npos) {
      by_basename = command.words;
      by_basename[0].erase(0, by_basename[0].rfind('/') + 1);
    }
    const bool typed_differs = command.typed_words != command.words;
    const std::string shown = command.source.empty() ? "the empty command" : command.source;
    for (int tier = 0; tier < 3; ++tier) {
      for (const CompiledRule* ref : r_.shell_rules[tier]) {
        const CompiledRule& rule = *ref;
        if (!rule.rule->has_specifier || words_match(rule, 0, command.words, 0) ||
            (!by_basename.empty() && words_match(rule, 0, by_basename, 0)) ||
            (typed_differs && words_match(rule, 0, command.typed_words, 0))) {
          return rule_verdict(rule, static_cast<Tier>(tier), "`" + shown + "`");
        }
      }
    }
    return std::nullopt;
  }

  // Is there a rule of the tier for this kind of operation, and (with a
  // path) one that could match the path or something below it?
  const CompiledRule* rule_for(Tier tier, OpKind kind, const std::string* below) const {
    const std::vector<std::string_view> path =
        below != nullptr ? split_path(*below) : std::vector<std::string_view>{};
    const unsigned bit = 1U << static_cast<unsigned>(kind);
    for (const CompiledRule* ref : r_.operation_rules[tier]) {
      const CompiledRule& rule = *ref;
      if ((rule.kinds & bit) == 0) continue;
      if (below == nullptr || !rule.rule->has_specifier || glob_may_match_below(rule.path, path)) {
        return &rule;
      }
    }
    return nullptr;
  }

  void mark_may_be_denied(const std::string& what) {
    if (!may_be_denied_) may_be_denied_reason_ = what;
    may_be_denied_ = true;
  }

  // One mapped operation, decided as the matching tool call would be:
  // Read/Edit/Write or WebFetch rules, then the tool default. An operation
  // that may touch more than its target (a subtree, a glob, any path) is
  // at least ask, and no mode approves it when a deny rule could match.
  Verdict operation_verdict(const shell::Operation& op) {
    std::optional<Verdict> matched;
    Verdict verdict;
    const std::string kind(shell::op_kind_name(op.kind));
    if (op.kind == OpKind::fetch) {
      matched = match_host(op.target, 3);
      verdict = matched ? *matched
                        : Verdict{Decision::ask, std::nullopt,
                                  "fetch from " + op.target + " (tool default: ask)"};
    } else if (op.scope == shell::Scope::anywhere) {
      verdict = {Decision::ask, std::nullopt, "it may " + kind + " any path"};
      if (const CompiledRule* rule = rule_for(kDeny, op.kind, nullptr)) {
        mark_may_be_denied("a " + kind + " that deny rule " + rule->rule->text + " denies");
      }
    } else {
      const std::string resolved = resolve(op.unfolded.empty() ? op.target : op.unfolded);
      matched = match_path(op.kind, op.target, resolved, 3, nullptr);
      verdict = matched ? *matched : path_default(op.kind, op.target, resolved);
      if (verdict.decision != Decision::deny && op.scope != shell::Scope::exact) {
        // A pattern may be any path. A subtree (walked without following
        // links) is as its root unless a deny or ask rule could match below it.
        const CompiledRule* rule = nullptr;
        bool wider = true;
        if (op.scope == shell::Scope::pattern) {
          rule = rule_for(kDeny, op.kind, nullptr);
        } else {
          auto below = [&](Tier tier) {
            const CompiledRule* found = rule_for(tier, op.kind, &op.target);
            return found != nullptr || resolved == op.target ? found
                                                             : rule_for(tier, op.kind, &resolved);
          };
          rule = below(kDeny);
          wider = rule != nullptr || below(kAsk) != nullptr;
        }
        const std::string what = op.scope == shell::Scope::pattern
                                     ? "the paths " + op.target + " may be"
                                     : "everything below " + op.target;
        if (wider) {
          keep_strictest(verdict, {Decision::ask, std::nullopt,
                                   "it may " + kind + " " + what + " (not only what it names)"});
        }
        if (rule != nullptr) {
          mark_may_be_denied("a " + kind + " that deny rule " + rule->rule->text + " denies");
        }
      }
    }
    verdict.reason += " (via `" + op.via + "`)";
    return verdict;
  }

  // Could the command (words with computed ones among them) be one a
  // Bash deny rule denies? Also looks at the words after an unknown
  // program: `strace rm -rf x` runs rm.
  void check_deny_may_match(const shell::CommandAnalysis& command) {
    if (command.words.empty()) return;
    std::vector<std::string> words = command.words;
    std::vector<bool> dynamic = command.dynamic;
    dynamic.resize(words.size(), false);
    const auto slash = words[0].rfind('/');
    if (slash != std::string::npos && !dynamic[0]) words[0].erase(0, slash + 1);
    std::vector<std::size_t> starts = {0};
    if (!command.known && !command.arguments_mapped && !dynamic[0]) {
      // Every word after an unknown program, split on blanks, may start a command.
      std::vector<std::string> tokens;
      std::vector<bool> token_dynamic;
      for (std::size_t k = 0; k < words.size(); ++k) {
        std::size_t i = 0;
        const std::string& w = words[k];
        do {
          const std::size_t begin = w.find_first_not_of(" \t\n", i);
          if (begin == std::string::npos) break;
          const std::size_t end = std::min(w.find_first_of(" \t\n", begin), w.size());
          std::string token = w.substr(begin, end - begin);
          const auto s2 = token.rfind('/');
          if (s2 != std::string::npos) token.erase(0, s2 + 1);
          if (k > 0 && !dynamic[k]) starts.push_back(tokens.size());
          tokens.push_back(std::move(token));
          token_dynamic.push_back(dynamic[k]);
          i = end;
        } while (i < w.size());
      }
      words = std::move(tokens);
      dynamic = std::move(token_dynamic);
    }
    for (const CompiledRule* ref : r_.shell_rules[kDeny]) {
      const CompiledRule& rule = *ref;
      if (!rule.rule->has_specifier) continue;
      for (std::size_t start : starts) {
        if (words_may_match(rule.words, 0, words, dynamic, start)) {
          std::string shown;
          for (std::size_t k = start; k < words.size(); ++k) {
            shown += (k > start ? " " : "") + (dynamic[k] ? std::string("…") : words[k]);
          }
          mark_may_be_denied("`" + shown + "`, which deny rule " + rule.rule->text + " denies");
          return;
        }
      }
    }
  }

  // A simple command: the Bash rule that matches it, else its default
  // (an unknown program asks; a known one is as strict as its operations).
  // Every operation then counts: the strictest result wins, so an
  // operation can make the decision stricter, never looser.
  Verdict command_verdict(const shell::CommandAnalysis& command) {
    std::optional<Verdict> verdict = match_bash_rules(command);
    if (!verdict || verdict->decision != Decision::deny) check_deny_may_match(command);
    if (r_.hidden_code_deny != nullptr) {
      if (!command.runs_unknown.empty()) {
        mark_may_be_denied("anything (" + command.runs_unknown.front() + "), and deny rule " +
                           r_.hidden_code_deny->rule->text + " denies something");
      }
      if (!command.hidden.empty() && !hides_code_) {
        hides_code_ = true;
        hidden_code_ = command.hidden.front();
      }
    }
    if (!verdict && !command.known) {
      const std::string program = command.words.empty() ? command.source : command.words[0];
      verdict = Verdict{Decision::ask, std::nullopt,
                        "`" + program +
                            "` is not a program whose effects holdfast maps (tool default: ask; "
                            "a Bash rule can allow it)"};
    }
    for (const shell::Operation& op : command.ops) {
      Verdict v = operation_verdict(op);
      if (!verdict) {
        verdict = std::move(v);
      } else {
        keep_strictest(*verdict, std::move(v));
      }
    }
    if (!verdict) {
      verdict = Verdict{Decision::allow, std::nullopt,
                        "`" + command.source + "` has no file or network effect"};
    }
    if (!command.unanalysable.empty()) {
      keep_strictest(*verdict, {Decision::ask, std::nullopt,
                                "cannot be analysed: " + command.unanalysable.front()});
    }
    return *verdict;
  }

  Verdict decide_shell(const ToolCall& call, ModeFacts& facts) {
    const shell::Analysis analysis = shell::analyse(call.argument, {r_.bases.cwd, r_.bases.home});
    std::vector<shell::CommandAnalysis> commands = analysis.commands;
    if (commands.empty()) commands.emplace_back();  // a bare Bash rule still applies
    facts.read_only = true;
    std::optional<Verdict> verdict;
    for (const shell::CommandAnalysis& command : commands) {
      for (const shell::Operation& op : command.ops) {
        facts.read_only = facts.read_only && op.kind == OpKind::read;
      }
      facts.read_only = facts.read_only && command.known && command.unanalysable.empty();
      Verdict v = command_verdict(command);
      if (!verdict) {
        verdict = std::move(v);
      } else {
        keep_strictest(*verdict, std::move(v));
      }
    }
    return *verdict;
  }

  const Context& c_;
  const CompiledRules& r_;
  std::string ws_, tmp_, ws_resolved_, tmp_resolved_;
  bool may_be_denied_ = false;  // see ModeFacts::may_be_denied
  std::string may_be_denied_reason_;
  // It runs code the analysis cannot see (CommandAnalysis::hidden) and a
  // deny rule exists that code could meet: no mode approves its ask, but
  // unlike may_be_denied_ an allow rule that matched the command stands.
  bool hides_code_ = false;
  std::string hidden_code_;
};

}  // namespace

void prepare(Context& context) { context.compiled = compile(context); }

Verdict decide(const ToolCall& call, const Context& context) {
  std::shared_ptr<const CompiledRules> rules = context.compiled;
  const PathBases bases = bases_of(context);
  if (!rules || rules->sizes != sizes_of(context) || rules->bases.workspace != bases.workspace ||
      rules->bases.cwd != bases.cwd || rules->bases.home != bases.home) {
    rules = compile(context);
  }
  return Decider(context, *rules).run(call);
}

}  // namespace holdfast::gatekeeper
