#include "launcher/landlock/landlock_plan.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "launcher/sandbox/paths.hpp"

namespace holdfast::landlock {

namespace {

using sandbox::Access;
using sandbox::RuleSource;

Rights rights_of(const sandbox::Rule& rule) {
  if (rule.source == RuleSource::private_tmp) return kPrivate;
  switch (rule.access) {
    case Access::read:
      return kRead;
    case Access::write:
      return kWrite;
    case Access::deny:
      return 0;
  }
  return 0;
}

class Planner {
 public:
  explicit Planner(std::map<std::string, Rights> wanted) : wanted_(std::move(wanted)) {}

  std::vector<PathRule> plan() {
    for (const auto& [path, rights] : wanted_) emit(path, rights);
    std::sort(rules_.begin(), rules_.end(),
              [](const PathRule& a, const PathRule& b) { return a.path < b.path; });
    return std::move(rules_);
  }

 private:
  // The rule paths strictly below `path`.
  std::vector<std::pair<std::string, Rights>> below(const std::string& path) const {
    std::vector<std::pair<std::string, Rights>> out;
    for (auto it = wanted_.upper_bound(path); it != wanted_.end(); ++it) {
      if (it->first != path && sandbox::is_within(it->first, path)) out.emplace_back(*it);
    }
    return out;
  }

  void emit(const std::string& path, Rights rights) {
    if (rights == 0) return;
    const auto deeper = below(path);
    const bool narrower = std::any_of(deeper.begin(), deeper.end(), [&](const auto& rule) {
      return (rule.second & rights) != rights;
    });
    // A path where files may be created cannot be split: a file made in it
    // later has no rule of its own, only the path's rights, and Landlock
    // extends those to everything below. Its narrower paths are kept by
    // the mount layer alone.
    if (!narrower || (rights & kWriteFile) != 0) {
      rules_.push_back({path, rights, false, 0, {}, std::nullopt});
      return;
    }
    // The names under `path` on the way to a deeper rule.
    std::set<std::string> skip;
    for (const auto& [deep, unused] : deeper) {
      const std::string rest = path == "/" ? deep.substr(1) : deep.substr(path.size() + 1);
      skip.insert(rest.substr(0, rest.find('/')));
    }
    rules_.push_back(
        {path, rights & kSplitKeeps, true, rights, {skip.begin(), skip.end()}, std::nullopt});
    for (const auto& name : skip) {
      const std::string child = sandbox::join_path(path, name);
      if (!wanted_.contains(child)) emit(child, rights);  // the way down
    }
  }

  std::map<std::string, Rights> wanted_;
  std::vector<PathRule> rules_;
};

// Whether the sandbox shows the host's own file at `path`: the nearest
// rule at or above it binds host content there. Not under the fresh /dev
// and /proc, the private /tmp, a mask, or a path missing on the host (an
// empty tmpfs made inside).
bool shows_host_file(const std::string& path, const sandbox::MountPlan& mounts) {
  if (sandbox::is_within(path, "/dev") || sandbox::is_within(path, "/proc")) return false;
  for (std::string at = path;; at = sandbox::parent_path(at)) {
    if (const auto it = mounts.rules.find(at); it != mounts.rules.end()) {
      const sandbox::Rule& rule = it->second;
      return rule.access != Access::deny && rule.kind != sandbox::Kind::missing &&
             rule.source != RuleSource::private_tmp && rule.source != RuleSource::kernel_mount &&
             rule.source != RuleSource::special_file;
    }
    if (at == "/") return false;  // bubblewrap's empty root
  }
}

}  // namespace

Plan plan_landlock(const sandbox::Policy& policy, const sandbox::MountPlan& mounts,
                   const std::map<std::string, sandbox::FileId>* identities) {
  std::map<std::string, Rights> wanted;
  for (const auto& [path, rule] : mounts.rules) {
    // A masked kernel interface is no content of the policy's: the mask is
    // checked at the start gate.
    // Nor is a masked special file: no rule writes it (it lies in a
    // read-only area; its mask is the mounts').
    if (rule.source == RuleSource::kernel_mount || rule.source == RuleSource::special_file) {
      continue;
    }
    wanted[path] = rights_of(rule);
  }
  // A file the launch puts in the sandbox itself (the stub's resolv.conf):
  // readable, as a file of its own (not the host's file under it).
  std::set<std::string> made_inside;
  for (const auto& op : mounts.ops) {
    if (op.kind == sandbox::MountOp::Kind::data_file) {
      wanted[op.path] = kRead;
      made_inside.insert(op.path);
    }
  }
  // /dev and /proc are always fresh (the mount plan's first operations).
  wanted["/dev"] = kDevices;
  wanted["/dev/shm"] = kPrivate;
  wanted["/proc"] = kRead;
  Plan plan;
  plan.rules = Planner(std::move(wanted)).plan();
  for (auto& rule : plan.rules) {
    // A rule on host content is pinned to the file the launch checked there.
    rule.on_host = !made_inside.contains(rule.path) && shows_host_file(rule.path, mounts);
    if (identities == nullptr || rule.split || !rule.on_host) continue;
    if (const auto it = identities->find(rule.path); it != identities->end()) rule.id = it->second;
  }
  plan.tcp_closed = policy.network == sandbox::Network::closed;
  plan.scopes = kScopeSignal;
  if (policy.unix_sockets != sandbox::UnixSockets::allow) plan.scopes |= kScopeAbstractUnixSocket;
  return plan;
}

std::string rights_letters(Rights rights) {
  std::string out;
  for (std::size_t bit = 0; bit + 1 < sizeof kRightLetters; ++bit) {
    if ((rights & (Rights{1} << bit)) != 0) out.push_back(kRightLetters[bit]);
  }
  return out.empty() ? "-" : out;
}

std::string abi_coverage(int abi) {
  if (abi < 1) return "nothing (Landlock is not available)";
  std::string out = "file access (ABI 1)";
  if (abi >= 2) out += ", renames and links across directories (2)";
  if (abi >= 3) out += ", truncation (3)";
  if (abi >= 4) out += ", TCP bind and connect (4)";
  if (abi >= 5) out += ", device ioctls (5)";
  if (abi >= 6) out += ", signals and abstract Unix sockets out of the sandbox (6)";
  return out;
}

}  // namespace holdfast::landlock
