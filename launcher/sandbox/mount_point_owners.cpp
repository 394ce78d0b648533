#include "launcher/sandbox/mount_point_owners.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <optional>

#include "launcher/sandbox/paths.hpp"

namespace holdfast::sandbox {

namespace {

using K = MountOp::Kind;

bool makes_mount(K kind) {
  return kind == K::bind || kind == K::ro_bind || kind == K::tmpfs || kind == K::denied_file ||
         kind == K::data_file || kind == K::dev || kind == K::proc;
}

// Host mounts themselves (and their masks), the private /tmp and masked
// special files are not entries another user could rename in the caller's
// namespace (a mount point there is busy), or lie outside writable binds.
bool stands_on_host_mount(const MountPlan& plan, const std::string& path) {
  const auto it = plan.rules.find(path);
  if (it == plan.rules.end()) return false;
  const RuleSource source = it->second.source;
  return source == RuleSource::kernel_mount || source == RuleSource::submount ||
         source == RuleSource::denied_alias || source == RuleSource::special_file ||
         source == RuleSource::private_tmp;
}

std::string octal(mode_t mode) {
  std::string out;
  for (int shift = 9; shift >= 0; shift -= 3)
    out.push_back(static_cast<char>('0' + ((mode >> shift) & 7)));
  return out;
}

class Judge {
 public:
  explicit Judge(const HostFacts& facts) : facts_(facts) {}

  bool other_user(uid_t uid) const { return uid != facts_.caller_uid && uid != 0; }

  // Why another user can move or remove `entry` (which exists when
  // `existing`, else the launch would create it as the caller); nullopt
  // when no one can.
  std::optional<Refusal> movable(const std::string& entry, bool existing) const {
    const std::string parent = parent_path(entry);
    const auto dir = facts_.ownership.find(parent);
    if (dir == facts_.ownership.end()) return std::nullopt;  // not met: outside the probe
    const Ownership& d = dir->second;
    const bool others_write = (other_user(d.owner) && (d.mode & S_IWUSR) != 0) ||
                              (d.mode & S_IWOTH) != 0 ||
                              ((d.mode & S_IWGRP) != 0 && d.group != facts_.caller_gid);
    if (!others_write) return std::nullopt;
    std::optional<uid_t> owner;
    if (existing) {
      const auto it = facts_.ownership.find(entry);
      if (it == facts_.ownership.end()) return std::nullopt;
      owner = it->second.owner;
    }
    const bool others_entry = owner && other_user(*owner);
    // What the operator accepted for the workspace (StrictModes off):
    // others may write it, so they could write what the mount guards
    // themselves. Their own entries are still refused.
    if (facts_.others_write_workspace_accepted && !others_entry &&
        is_within(parent, facts_.workspace.canonical)) {
      return std::nullopt;
    }
    const bool sticky = (d.mode & S_ISVTX) != 0;
    const std::string where =
        parent + " (mode " + octal(d.mode & 07777) + ", owner uid " + std::to_string(d.owner) + ")";
    if (sticky && !other_user(d.owner) && !others_entry) return std::nullopt;
    Refusal refusal;
    refusal.rule = "mount-point-movable-by-another-user";
    refusal.path = entry;
    if (others_entry) {
      refusal.message = "the sandbox would stand on " + entry + ", which belongs to uid " +
                        std::to_string(*owner) + " in " + where +
                        ": that user can move or remove it while the sandbox runs, which "
                        "takes the mount there away (a read-only .git becomes writable inside)";
      refusal.remedy = "ask uid " + std::to_string(*owner) + " to remove it (rm -r " + entry +
                       "), or work in a directory only you can write";
    } else {
      refusal.message = "the sandbox would stand on " + entry + " in " + where +
                        ", which other users can write" +
                        (sticky ? " and whose owner is another user" : " without the sticky bit") +
                        ": they can move or remove it while the sandbox runs, which takes the "
                        "mount there away";
      refusal.remedy = "make " + parent + " writable only by you (chmod go-w " + parent +
                       ") or sticky (chmod +t " + parent +
                       "), or work in a directory only you "
                       "can write";
    }
    return refusal;
  }

 private:
  const HostFacts& facts_;
};

}  // namespace

std::vector<Refusal> check_mount_point_owners(const MountPlan& plan, const HostFacts& facts) {
  std::vector<Refusal> out;
  const Judge judge(facts);
  const auto created = [&](const std::string& path) {
    return std::find(plan.created_on_host.begin(), plan.created_on_host.end(), path) !=
           plan.created_on_host.end();
  };
  for (const auto& op : plan.ops) {
    if (!makes_mount(op.kind) || op.path == "/" || stands_on_host_mount(plan, op.path)) continue;
    // The view the mount lands in: the deepest other mount above it.
    const MountOp* enclosing = nullptr;
    for (const auto& other : plan.ops) {
      if (!makes_mount(other.kind) || other.path == op.path || !is_within(op.path, other.path)) {
        continue;
      }
      if (enclosing == nullptr || path_depth(other.path) > path_depth(enclosing->path)) {
        enclosing = &other;
      }
    }
    if (enclosing == nullptr || enclosing->kind != K::bind) continue;  // a read-only view
    // Every entry from the mount point up to the writable bind.
    for (std::string entry = op.path; entry != enclosing->path; entry = parent_path(entry)) {
      const bool existing = !(entry == op.path && created(op.path));
      if (auto refusal = judge.movable(entry, existing)) {
        const bool reported = std::any_of(
            out.begin(), out.end(), [&](const Refusal& r) { return r.path == refusal->path; });
        if (!reported) out.push_back(std::move(*refusal));
        break;
      }
    }
  }
  return out;
}

}  // namespace holdfast::sandbox
