#include "launcher/sandbox/resolve.hpp"

#include <algorithm>

#include "launcher/sandbox/paths.hpp"
#include "launcher/sandbox/submounts.hpp"

namespace holdfast::sandbox {

std::string_view rule_source_name(RuleSource source) {
  switch (source) {
    case RuleSource::entry:
      return "entry";
    case RuleSource::protected_name:
      return "protected name";
    case RuleSource::gitdir:
      return "gitdir of a protected .git file";
    case RuleSource::operator_dir:
      return "operator settings directory";
    case RuleSource::private_tmp:
      return "private /tmp";
    case RuleSource::nested_repo:
      return "repository below a writable root";
    case RuleSource::state_dir:
      return "holdfast's state directory";
    case RuleSource::kernel_mount:
      return "kernel interface mounted below a bound path";
    case RuleSource::submount:
      return "mount below a writable path";
    case RuleSource::denied_alias:
      return "denied path shown again by a bind mount";
    case RuleSource::special_file:
      return "host special file that takes requests";
  }
  return "entry";
}

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

std::vector<Rule> build_rules(const Policy& policy, const HostFacts& facts) {
  std::vector<Rule> rules;
  for (const auto& entry : policy.filesystem) {
    for (const auto& path : expand_key(entry, facts.tokens)) {
      const PathFacts& f = facts.at(path);
      rules.push_back(Rule{f.canonical, entry.access, RuleSource::entry, entry.written, f.kind});
    }
  }
  // Protected names under every writable directory root. An explicit entry
  // at the same path still decides: write beats read in the tie order, and
  // deny beats both.
  std::vector<std::string> gitdirs;
  const std::size_t explicit_count = rules.size();
  for (std::size_t i = 0; i < explicit_count; ++i) {
    if (rules[i].access != Access::write || rules[i].kind != Kind::directory) continue;
    const std::string root = rules[i].path;
    for (const auto name : kProtectedNames) {
      const std::string path = join_path(root, name);
      const PathFacts& f = facts.at(path);
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
  // A .git file's gitdir is as sensitive as a .git directory, but only
  // needs a rule where it would otherwise be writable (a read rule
  // elsewhere could widen a deny).
  for (const auto& gitdir : gitdirs) {
    const PathFacts& f = facts.at(gitdir);
    if (resolve(rules, f.canonical).access == Access::write) {
      rules.push_back(Rule{f.canonical, Access::read, RuleSource::gitdir, gitdir, f.kind});
    }
  }
  for (const auto& dir : facts.operator_dirs) {
    if (resolve(rules, dir.canonical).access == Access::write) {
      rules.push_back(
          Rule{dir.canonical, Access::read, RuleSource::operator_dir, dir.path, dir.kind});
    }
  }
  if (facts.state_dir && resolve(rules, facts.state_dir->canonical).access == Access::write) {
    const PathFacts& dir = *facts.state_dir;
    rules.push_back(Rule{dir.canonical, Access::read, RuleSource::state_dir, dir.path, dir.kind});
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
