#include "launcher/sandbox/resolve.hpp"

#include <algorithm>

#include "base/name_table.hpp"
#include "launcher/sandbox/paths.hpp"
#include "launcher/sandbox/submounts.hpp"

namespace holdfast::sandbox {

namespace {

constexpr NameRow<RuleSource> kRuleSourceNames[] = {
    {RuleSource::entry, "entry"},
    {RuleSource::protected_name, "protected name"},
    {RuleSource::gitdir, "gitdir of a protected .git file"},
    {RuleSource::operator_dir, "operator settings directory"},
    {RuleSource::private_tmp, "private /tmp"},
    {RuleSource::nested_repo, "repository below a writable root"},
    {RuleSource::state_dir, "holdfast's state directory"},
    {RuleSource::kernel_mount, "kernel interface mounted below a bound path"},
    {RuleSource::submount, "mount below a writable path"},
    {RuleSource::denied_alias, "denied path shown again by a bind mount"},
    {RuleSource::special_file, "host special file that takes requests"},
    {RuleSource::protected_below, "protected name below a writable root"},
    {RuleSource::bare_repo, "bare repository below a writable root"},
    {RuleSource::git_config, "named by git's configuration"},
    {RuleSource::credential, "credential store"},
    {RuleSource::credential_kept, "kept readable inside a credential store"},
};

}  // namespace

std::string_view rule_source_name(RuleSource source) { return name_in(kRuleSourceNames, source); }

Resolution resolve(const std::vector<Rule>& rules, std::string_view path) {
  Resolution best;
  std::size_t best_length = 0;
  for (const auto& rule : rules) {
    if (!is_within(path, rule.path)) continue;
    // Rule paths are normal, so a longer containing path is a deeper one.
    const std::size_t length = rule.path == "/" ? 0 : rule.path.size();
    if (best.rule == nullptr || length > best_length ||
        (length == best_length && rule.access > best.access)) {
      best.rule = &rule;
      best.access = rule.access;
      best_length = length;
    }
  }
  return best;
}

Resolution resolve_by_path(const std::map<std::string, Rule>& rules, std::string_view path) {
  if (path.empty() || path.front() != '/') return {};  // as is_within: no rule contains it
  std::string at(path);
  for (;;) {
    if (const auto it = rules.find(at); it != rules.end()) return {it->second.access, &it->second};
    if (at == "/") return {};
    at = parent_path(at);
  }
}

std::vector<ExpandedEntry> expand_entries(const Policy& policy, const HostFacts& facts) {
  std::vector<ExpandedEntry> out;
  for (const auto& entry : policy.filesystem) {
    for (auto& path : expand_key(entry, facts.tokens)) {
      PathFacts f = facts.at(path);
      out.push_back({std::move(path), entry.access, entry.written, std::move(f)});
    }
  }
  return out;
}

std::map<std::string, Rule> collapse(const std::vector<Rule>& rules) {
  std::map<std::string, Rule> out;
  for (const auto& rule : rules) {
    auto [it, inserted] = out.emplace(rule.path, rule);
    if (inserted) continue;
    Rule& kept = it->second;
    if (rule.access > kept.access ||
        (rule.access == kept.access && rule.source == RuleSource::entry &&
         kept.source != RuleSource::entry)) {
      kept = rule;
    }
  }
  return out;
}

namespace {

// What a path the walk did not see below `root` is taken for: missing.
PathFacts missing_below(const std::string& path, const std::string& root) {
  PathFacts f;
  f.path = f.canonical = path;
  f.existing_ancestor = parent_path(path) == root ? root : std::string();
  return f;
}

// The paths git's configuration names, read-only where they would
// otherwise be writable. A missing hooks directory or include file is
// guarded like a missing protected name (admission refuses one whose
// parent is missing too); a missing program is guarded when its directory
// exists, and an argument that names nothing is nothing.
void add_git_config_rules(const HostFacts& facts, std::vector<Rule>& rules) {
  for (const auto& target : facts.git_targets) {
    if (target.kind == GitPathKind::worktree) continue;  // content; its names: protected_found
    const PathFacts& f = facts.at(target.path);
    if (resolve(rules, f.canonical).access != Access::write) continue;
    if (!f.exists()) {
      if (target.kind == GitPathKind::program &&
          (!target.first_word || f.existing_ancestor != parent_path(f.canonical))) {
        continue;
      }
    }
    rules.push_back(Rule{f.canonical, Access::read, RuleSource::git_config,
                         target.setting + " in " + target.file, f.kind});
  }
}

// Credential stores denied where the policy lets the command read them;
// the paths a store keeps readable reopened with the access the store had.
void add_credential_rules(const HostFacts& facts, std::vector<Rule>& rules) {
  std::vector<std::pair<std::string, Access>> hidden;  // canonical store path, access before
  for (const auto& found : facts.credentials) {
    if (found.keep_readable) continue;
    const PathFacts& f = facts.at(found.path);
    if (f.kind != Kind::directory && f.kind != Kind::file) continue;
    const Access before = resolve(rules, f.canonical).access;
    if (before == Access::deny) continue;
    rules.push_back(Rule{f.canonical, Access::deny, RuleSource::credential, found.store, f.kind});
    hidden.emplace_back(f.canonical, before);
  }
  for (const auto& found : facts.credentials) {
    if (!found.keep_readable) continue;
    const PathFacts& f = facts.at(found.path);
    if (f.kind != Kind::directory && f.kind != Kind::file) continue;
    for (const auto& [store, before] : hidden) {
      if (f.canonical == store || !is_within(f.canonical, store)) continue;
      rules.push_back(Rule{f.canonical, before, RuleSource::credential_kept, found.store, f.kind});
      break;
    }
  }
}

}  // namespace

std::vector<Rule> build_rules(const Policy& policy, const HostFacts& facts) {
  return build_rules(expand_entries(policy, facts), policy, facts);
}

std::vector<Rule> build_rules(const std::vector<ExpandedEntry>& entries, const Policy& policy,
                              const HostFacts& facts) {
  std::vector<Rule> rules;
  for (const auto& entry : entries) {
    const PathFacts& f = entry.facts;
    rules.push_back(Rule{f.canonical, entry.access, RuleSource::entry, entry.written, f.kind});
  }
  // Protected names under every writable directory root. An explicit entry
  // at the same path still decides: write beats read in the tie order, and
  // deny beats both.
  std::vector<std::string> gitdirs;
  const std::size_t explicit_count = rules.size();
  for (std::size_t i = 0; i < explicit_count; ++i) {
    if (rules[i].access != Access::write || rules[i].kind != Kind::directory) continue;
    const std::string root = rules[i].path;
    for (const ProtectedName* name :
         names_at_root(policy.protected_names, root == facts.tokens.home)) {
      const std::string path = join_path(root, name->name);
      // A name the walk did not see at the root is missing there.
      const auto known = facts.paths.find(path);
      const PathFacts f = known != facts.paths.end() ? known->second : missing_below(path, root);
      // A symlink is there even when what it names is not: it gets its
      // rule, which admission refuses (the command could replace the link
      // with the real thing; another user can retarget it).
      if (!f.exists() && !f.link_target) {
        if (name->when_missing == WhenMissing::report) continue;
        // A missing parent cannot be guarded without creating it.
        if (f.existing_ancestor != parent_path(path)) continue;
      }
      rules.push_back(Rule{path, Access::read, RuleSource::protected_name, root, f.kind});
      if (f.gitdir) gitdirs.push_back(*f.gitdir);
    }
  }
  // Repositories found below the writable roots when the launch started,
  // where they would otherwise be writable.
  for (const auto& git : facts.nested_git) {
    const PathFacts& f = facts.at(git);
    if (resolve(rules, f.canonical).access != Access::write) continue;
    rules.push_back(
        Rule{f.canonical, Access::read, RuleSource::nested_repo, parent_path(git), f.kind});
    if (f.gitdir) gitdirs.push_back(*f.gitdir);
  }
  for (const auto& dir : facts.bare_repositories) {
    const PathFacts& f = facts.at(dir);
    if (f.exists() && resolve(rules, f.canonical).access == Access::write) {
      rules.push_back(Rule{f.canonical, Access::read, RuleSource::bare_repo, dir, f.kind});
    }
  }
  // Protected names the walk met below the roots (a symlink's target).
  for (const auto& path : facts.protected_found) {
    const PathFacts& f = facts.at(path);
    if (f.exists() && resolve(rules, f.canonical).access == Access::write) {
      rules.push_back(
          Rule{f.canonical, Access::read, RuleSource::protected_below, parent_path(path), f.kind});
    }
  }
  // A .git file's gitdir is as sensitive as a .git directory, but only
  // needs a rule where it would otherwise be writable (a read rule
  // elsewhere could widen a deny).
  for (const auto& gitdir : gitdirs) {
    const PathFacts& f = facts.at(gitdir);
    if (resolve(rules, f.canonical).access == Access::write) {
      rules.push_back(Rule{f.canonical, Access::read, RuleSource::gitdir, gitdir, f.kind});
    }
  }
  add_git_config_rules(facts, rules);
  add_credential_rules(facts, rules);
  for (const auto& dir : facts.operator_dirs) {
    if (resolve(rules, dir.canonical).access == Access::write) {
      rules.push_back(
          Rule{dir.canonical, Access::read, RuleSource::operator_dir, dir.path, dir.kind});
    }
  }
  // holdfast's state directory is hidden inside whatever the policy says
  // of its parents: its launch records carry every launch's workspace and
  // arguments (another project's tokens among them), and its presence
  // memory decides how the next launch reads a missing settings file.
  if (facts.state_dir) {
    const PathFacts& dir = *facts.state_dir;
    rules.push_back(Rule{dir.canonical, Access::deny, RuleSource::state_dir, dir.path, dir.kind});
  }
  const bool tmp_named =
      std::any_of(rules.begin(), rules.end(), [](const Rule& r) { return r.path == "/tmp"; });
  if (!tmp_named) {
    rules.push_back(Rule{"/tmp", Access::deny, RuleSource::private_tmp, "", Kind::directory});
  }
  for (auto& rule : submount_rules(rules, facts)) rules.push_back(std::move(rule));
  // Host special files that take requests, wherever they would be shown.
  for (const auto name : kMaskedSpecialFiles) {
    const auto it = facts.paths.find(std::string(name));
    if (it == facts.paths.end() || it->second.kind != Kind::other) continue;
    const std::string& path = it->second.canonical;
    const bool named =
        std::any_of(rules.begin(), rules.end(), [&](const Rule& r) { return r.path == path; });
    if (named || resolve(rules, path).access == Access::deny) continue;
    rules.push_back(
        Rule{path, Access::deny, RuleSource::special_file, std::string(name), Kind::other});
  }
  return rules;
}

}  // namespace holdfast::sandbox
