#include "launcher/sandbox/mount_plan.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "launcher/sandbox/mount_point_owners.hpp"
#include "launcher/sandbox/network_inside.hpp"
#include "launcher/sandbox/paths.hpp"
#include "launcher/sandbox/refusal.hpp"
#include "launcher/sandbox/resolve.hpp"
#include "launcher/sandbox/submounts.hpp"

namespace holdfast::sandbox {

namespace {

// The rule of the deepest proper ancestor of `path`; nullptr for none.
const Rule* nearest_ancestor(const std::map<std::string, Rule>& rules, const std::string& path) {
  std::string at = path;
  while (at != "/") {
    at = parent_path(at);
    if (const auto it = rules.find(at); it != rules.end()) return &it->second;
  }
  return nullptr;
}

// Host content below `rule` is hidden (an empty root, a denied directory,
// the private /tmp): paths there must be recreated, not bound.
bool masks(const Rule* rule) { return rule == nullptr || rule->access == Access::deny; }

// --size takes bytes.
std::string tmpfs_size(const Limits& limits) {
  return std::to_string(limits.tmpfs_mib * 1024 * 1024);
}

// A fresh /dev and /proc. /dev is bubblewrap's tmpfs with the device nodes
// bound in: /dev/shm gets a private tmpfs of the policy's size, and the rest
// becomes read-only, so nothing can fill /dev. /proc is remounted read-only
// as a whole: bubblewrap makes /proc/sys and a few others read-only only
// when its own access check passes, which it does not when the caller is
// root, and then kernel.core_pattern and every other host knob were
// writable by the sandbox's root (the host's uid 0, without capabilities but
// still the owner of those files). The sandbox's own /proc/PID entries are
// read-only too: writes there (oom_score_adj, comm of another thread) fail.
std::vector<MountOp> fresh_dev_and_proc(const std::string& tmpfs_size) {
  using K = MountOp::Kind;
  return {{K::dev, "/dev"},
          {K::tmpfs, "/dev/shm", "", tmpfs_size},
          {K::remount_ro, "/dev"},
          {K::proc, "/proc"},
          {K::remount_ro, "/proc"}};
}

class Builder {
  using K = MountOp::Kind;

 public:
  Builder(const std::map<std::string, Rule>& rules, const Limits& limits, MountPlan& plan)
      : rules_(rules), tmpfs_size_(tmpfs_size(limits)), plan_(plan) {}

  void mounts() {
    const auto root = rules_.find("/");
    root_masked_ = root == rules_.end() || root->second.access == Access::deny;
    if (!root_masked_) bind(root->second.access, "/");
    // An empty root is bubblewrap's own tmpfs, made read-only at the end.
    if (root_masked_) check("/", MountCheck::Type::tmpfs, true);
    for (auto& op : fresh_dev_and_proc(tmpfs_size_)) plan_.ops.push_back(std::move(op));
    made_ = {"/", "/dev", "/proc"};

    // Rules and pins, shallow to deep: a mount only ever lands below the
    // mounts made before it, never on top of one.
    const std::set<std::string> pins = pins_needed();
    std::vector<std::pair<std::string, const Rule*>> ordered;
    for (const auto& [path, rule] : rules_) {
      if (path != "/" && !pins.contains(path)) ordered.emplace_back(path, &rule);
    }
    for (const auto& pin : pins) ordered.emplace_back(pin, nullptr);
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
      const auto da = path_depth(a.first);
      const auto db = path_depth(b.first);
      return da != db ? da < db : a.first < b.first;
    });
    for (const auto& [path, rule] : ordered) {
      if (rule == nullptr) {
        bind(Access::write, path);
        made_.insert(path);
      } else {
        mount(*rule);
      }
    }
  }

  // After every mount, before anything is made read-only: the file may
  // have to be created (an empty root, a masked /etc).
  void data_file(const std::string& path) {
    add({K::data_file, path, "0444"});  // bubblewrap's default (0600) hides it from the command
    check(path, MountCheck::Type::tmpfs, true);
  }

  void finish(const std::vector<std::pair<std::string, std::string>>& symlinks) {
    for (const auto& [target, path] : symlinks) {
      if (!root_masked_ || rules_.contains(path) || made_.contains(path)) continue;
      add({K::symlink, path, "", "", target});
    }
    if (root_masked_) add({K::chmod, "/", "", "", "0111"});
    for (const auto& path : remount_) add({K::remount_ro, path});
    if (root_masked_) add({K::remount_ro, "/"});
  }

 private:
  void add(MountOp op) { plan_.ops.push_back(std::move(op)); }

  void check(const std::string& path, MountCheck::Type type, bool read_only) {
    plan_.checks.push_back({path, type, read_only});
  }

  // A host path bound onto itself.
  void bind(Access access, const std::string& path) {
    plan_.bind_sources.push_back(path);
    check(path, MountCheck::Type::bind, access != Access::write);
    add({access == Access::write ? K::bind : K::ro_bind, path});
  }

  // Recreates the components between the nearest path that exists in the
  // sandbox (a mount, or a directory made before) and `path`: traversable
  // but not listable, so a masked directory shows nothing but the way to
  // the paths reopened below it.
  void make_parents(const std::string& path) {
    std::vector<std::string> missing;
    for (std::string at = parent_path(path); !made_.contains(at); at = parent_path(at)) {
      missing.push_back(at);
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      if (made_.insert(*it).second) add({K::dir, *it, "0111"});
    }
  }

  // Does `rule` produce a mount of its own (see mount())?
  bool emits(const Rule& rule) const {
    if (rule.path == "/") return !root_masked_;
    if (rule.source == RuleSource::private_tmp) return true;
    const Rule* ancestor = nearest_ancestor(rules_, rule.path);
    const Access parent = ancestor == nullptr ? Access::deny : ancestor->access;
    if (rule.kind == Kind::missing)
      return rule.source != RuleSource::entry && parent == Access::write;
    return rule.access != parent;
  }

  // Something outside the sandbox trusts some paths later: git reads .git,
  // the next launch reads holdfast's settings, git follows a .git file's
  // gitdir. Inside a writable bind the command could rename an ancestor of
  // such a path away and put its own directory there; a mount point cannot
  // be renamed (EBUSY), so every ancestor up to the nearest mount becomes a
  // pin: bound onto itself (--bind A A), writable as before. Admission
  // guarantees these ancestors exist (bubblewrap resolves every bind source
  // before it mounts anything, so one cannot be created on the way).
  std::set<std::string> pins_needed() const {
    std::set<std::string> pins;
    for (const auto& [path, rule] : rules_) {
      // Mounts that are host mounts themselves (and their masks) move with
      // their directory if an ancestor is renamed: nothing to pin.
      if (rule.source == RuleSource::entry || rule.source == RuleSource::private_tmp ||
          rule.source == RuleSource::kernel_mount || rule.source == RuleSource::submount ||
          rule.source == RuleSource::denied_alias || rule.source == RuleSource::special_file) {
        continue;
      }
      const Rule* ancestor = nearest_ancestor(rules_, path);
      if (ancestor == nullptr || ancestor->access != Access::write) continue;
      for (std::string at = parent_path(path); at != "/"; at = parent_path(at)) {
        const auto it = rules_.find(at);
        if (it != rules_.end() && emits(it->second)) break;
        pins.insert(at);
      }
    }
    return pins;
  }

  bool reopens_below(const Rule& rule) const {
    for (auto it = rules_.upper_bound(rule.path); it != rules_.end(); ++it) {
      if (!is_within(it->first, rule.path)) continue;
      const Rule& below = it->second;
      if (below.access != Access::deny && below.kind != Kind::missing) return true;
    }
    return false;
  }

  void mount(const Rule& rule) {
    const Rule* ancestor = nearest_ancestor(rules_, rule.path);
    const Access parent = ancestor == nullptr ? Access::deny : ancestor->access;
    const std::string& p = rule.path;

    if (rule.source == RuleSource::private_tmp) {
      make_parents(p);
      add({K::tmpfs, p, "", tmpfs_size_});
      check(p, MountCheck::Type::tmpfs, false);
      made_.insert(p);
      return;
    }
    if (rule.kind == Kind::missing) {
      // Only implicit read rules (protected names, settings directories)
      // under a writable parent need anything: an empty read-only directory
      // that cannot be replaced. Missing explicit carve-outs there are
      // refused by admission; elsewhere nothing can create the path.
      if (rule.source != RuleSource::entry && parent == Access::write) {
        add({K::tmpfs, p, "0555"});
        check(p, MountCheck::Type::tmpfs, true);
        made_.insert(p);
        remount_.push_back(p);
        plan_.created_on_host.push_back(p);
      }
      return;
    }
    if (rule.access == parent) {
      // Same access as the enclosing rule: nothing to add (for deny, the
      // host content is already hidden; reopened paths below recreate
      // their own parents).
      return;
    }
    if (rule.access == Access::deny) {
      if (rule.kind == Kind::directory) {
        add({K::tmpfs, p, reopens_below(rule) ? "0111" : "0000"});
        remount_.push_back(p);
      } else {
        add({K::denied_file, p, "0000"});
        plan_.needs_empty_file = true;
        ++plan_.empty_files;
      }
      check(p, MountCheck::Type::tmpfs, true);
      made_.insert(p);
      return;
    }
    if (masks(ancestor)) make_parents(p);
    bind(rule.access, p);
    made_.insert(p);
  }

  const std::map<std::string, Rule>& rules_;
  const std::string tmpfs_size_;
  MountPlan& plan_;
  bool root_masked_ = true;
  std::set<std::string> made_;
  std::vector<std::string> remount_;
};

// Where bubblewrap puts the stub's resolv.conf: the host's
// /etc/resolv.conf where it leads (bubblewrap follows a symlink there), or
// the path itself when it does not exist.
std::string resolv_conf_path(const HostFacts& facts) {
  const auto it = facts.paths.find(std::string(kResolvConf));
  if (it == facts.paths.end() || !it->second.exists()) return std::string(kResolvConf);
  return it->second.canonical;
}

// Top-level symlinks an empty root needs (/bin -> usr/bin for :minimal):
// (link text, path).
std::vector<std::pair<std::string, std::string>> top_level_symlinks(
    const std::vector<ExpandedEntry>& entries) {
  std::vector<std::pair<std::string, std::string>> symlinks;
  for (const auto& entry : entries) {
    if (entry.access == Access::deny) continue;
    const PathFacts& f = entry.facts;
    if (f.link_target && f.symlinks.size() == 1 && parent_path(entry.path) == "/") {
      symlinks.emplace_back(*f.link_target, entry.path);
    }
  }
  return symlinks;
}

}  // namespace

std::string describe(const MountOp& op) {
  using K = MountOp::Kind;
  const std::string mode = op.perms.empty() ? "" : " (mode " + op.perms + ")";
  switch (op.kind) {
    case K::bind:
      return "writable bind of " + op.path;
    case K::ro_bind:
      return "read-only bind of " + op.path;
    case K::dev:
      return "fresh " + op.path;
    case K::proc:
      return "fresh " + op.path;
    case K::tmpfs:
      return "empty tmpfs at " + op.path + mode +
             (op.size.empty() ? "" : ", at most " + op.size + " bytes");
    case K::dir:
      return "directory " + op.path + mode;
    case K::denied_file:
      return "empty file over " + op.path + mode;
    case K::data_file:
      return "the launch's " + op.path + " (read-only)";
    case K::symlink:
      return "symlink " + op.path + " -> " + op.target;
    case K::chmod:
      return "mode " + op.target + " on " + op.path;
    case K::remount_ro:
      return op.path + " made read-only";
  }
  return "?";
}

MountPlan plan_mounts(const ResolvedPolicy& resolved, const HostFacts& facts) {
  if (!resolved.admitted()) throw Refused(resolved.refusals);
  MountPlan plan;
  plan.rules = resolved.by_path;
  Builder builder(plan.rules, resolved.limits, plan);
  builder.mounts();
  if (resolved.stub_resolv_conf) builder.data_file(resolv_conf_path(facts));
  builder.finish(top_level_symlinks(resolved.entries));
  std::set<std::string> points;
  for (const auto& op : plan.ops) {
    using K = MountOp::Kind;
    if (op.kind == K::bind || op.kind == K::ro_bind || op.kind == K::tmpfs ||
        op.kind == K::denied_file || op.kind == K::data_file) {
      points.insert(op.path);
    }
  }
  for (const auto& source : plan.bind_sources) {
    for (const MountEntry* mount : mounts_below(facts.mounts, source)) {
      points.insert(mount->mount_point);
    }
  }
  for (const auto& point : points) {
    if (point != "/" && !is_within(point, "/proc") && !is_within(point, "/dev")) {
      plan.mount_points.push_back(point);
    }
  }
  if (auto refusals = check_mount_point_owners(plan, facts); !refusals.empty()) {
    throw Refused(std::move(refusals));
  }
  return plan;
}

const MountEntry* find_unexpected_mount(const MountPlan& plan, const MountTable& sandbox) {
  for (const auto& mount : sandbox) {
    const std::string& path = mount.mount_point;
    if (path == "/" || is_within(path, "/proc") || is_within(path, "/dev")) continue;
    if (std::binary_search(plan.mount_points.begin(), plan.mount_points.end(), path)) continue;
    return &mount;
  }
  return nullptr;
}

std::string unexpected_mount(const MountPlan& plan, const MountTable& sandbox) {
  const MountEntry* mount = find_unexpected_mount(plan, sandbox);
  if (mount == nullptr) return "";
  return mount->mount_point + ": a mount (" + mount->fs_type +
         ") that the launch did not plan is in the sandbox; it was mounted on the host while "
         "the sandbox was built, or bubblewrap was led to mount at a moved path";
}

}  // namespace holdfast::sandbox
