// The sandbox's filesystem, planned once per launch as a list of typed
// operations in the order bubblewrap performs them (as bubblewrap keeps its
// own SetupOp list). Everything a launch needs about its mounts comes from
// this one value: the argv (build_bwrap_args renders it), the sources to
// open and pass as descriptors, the checks of the built sandbox at the start
// gate, the mount points bubblewrap creates on the host, and whether an
// empty-file descriptor is needed.
//
// The order (each mount lands only on a deeper path than the mounts that
// contain it, so narrower rules win):
//   1. base layer: ro_bind "/" (":root" read), bind "/" (write), or
//      bubblewrap's empty root when nothing grants "/";
//   2. a fresh /dev with a private, sized tmpfs at /dev/shm, then /dev
//      remounted read-only; a fresh /proc, remounted read-only as a whole
//      (bubblewrap makes /proc/sys read-only only when its own access check
//      passes, which it does not when the caller is root);
//   3. every rule by depth, shallow to deep: the private /tmp (sized tmpfs),
//      ro_bind for read, bind for write, a denied directory as a tmpfs with
//      perms 0000 (0111 when deeper rules reopen paths in it), a denied file
//      as denied_file (the empty file, perms 0000); path components under a
//      masked ancestor recreated as dir with perms 0111; a rule whose parent
//      already gives the same access is no operation; a missing protected
//      name under a writable root becomes an empty read-only tmpfs (perms
//      0555), so it cannot be created; ancestors of protected paths pinned
//      with a writable bind onto themselves so they cannot be renamed away;
//   4. with an empty root, the top-level symlinks of :minimal (/bin ->
//      usr/bin), then chmod 0111 of "/";
//   5. remount_ro of every masking tmpfs, and of an empty root.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "launcher/sandbox/host_facts.hpp"
#include "launcher/sandbox/policy.hpp"
#include "launcher/sandbox/resolve.hpp"
#include "launcher/sandbox/resolved_policy.hpp"

namespace holdfast::sandbox {

struct MountOp {
  enum class Kind {
    bind,         // the host path `path`, writable, onto itself
    ro_bind,      // the host path `path`, read-only, onto itself
    dev,          // a fresh /dev
    proc,         // a fresh /proc
    tmpfs,        // an empty tmpfs (with `perms`, `size` when set)
    dir,          // a directory inside a tmpfs (with `perms`)
    denied_file,  // the empty file, read-only (with `perms`), over a denied file
    data_file,    // the launch's own content, read-only, at `path` (the stub's resolv.conf)
    symlink,      // a symlink at `path` to `target`
    chmod,        // the mode `target` on `path`
    remount_ro,   // `path`, already mounted, made read-only
  };
  MountOp() = default;
  MountOp(Kind kind_, std::string path_, std::string perms_ = {}, std::string size_ = {},
          std::string target_ = {})
      : kind(kind_),
        path(std::move(path_)),
        perms(std::move(perms_)),
        size(std::move(size_)),
        target(std::move(target_)) {}

  Kind kind = Kind::bind;
  std::string path;
  std::string perms;   // octal, for tmpfs, dir and denied_file; empty: bubblewrap's default
  std::string size;    // bytes, for tmpfs; empty: unlimited
  std::string target;  // symlink: the link text; chmod: the mode
  bool operator==(const MountOp&) const = default;
};

// One mount as it must be found in the built sandbox: at `path` (resolved
// without symlinks), the root of a mount that is a bind of the host file at
// the same path, or a fresh tmpfs (bubblewrap's empty root, the private
// /tmp, a mask, the data of a denied file), read-only or not.
struct MountCheck {
  enum class Type { bind, tmpfs };
  std::string path;
  Type type = Type::bind;
  bool read_only = true;
  bool operator==(const MountCheck&) const = default;
};

struct MountPlan {
  std::vector<MountOp> ops;
  // The paths bound, each once, in mount order: each is opened, checked
  // and passed to bubblewrap as a descriptor.
  std::vector<std::string> bind_sources;
  // Every mount of a host path or over one, in mount order (not /dev,
  // /proc or the directories recreated inside masks).
  std::vector<MountCheck> checks;
  // Mount points bubblewrap creates on the host (a missing protected path
  // under a writable bind becomes an empty read-only directory, and its
  // mount point is made through the bind); they stay behind, empty.
  std::vector<std::string> created_on_host;
  // A denied file is covered with the empty file: the argv needs a
  // descriptor of one per denied file (bubblewrap closes each after use).
  bool needs_empty_file = false;
  // Every path at which the built sandbox may hold a mount, sorted: the
  // operations' own and the host mounts the binds carry (their mount
  // points, as the launch's mount table listed them). /, /proc and /dev
  // (fresh, bubblewrap's own) are not listed.
  std::vector<std::string> mount_points;
  // The rules the operations implement, one per path (ties decided): what
  // the second layer (launcher/landlock) is planned from.
  std::map<std::string, Rule> rules;
  std::size_t empty_files = 0;
  bool operator==(const MountPlan&) const = default;
};

// One operation in words, for --explain: "read-only bind of /code/.git".
std::string describe(const MountOp& op);

// The mounts of a launch with the policy `resolved` on the host `facts`
// describe. Pure. Throws Refused with the resolved policy's refusals, and
// for a mount point another local user could move (mount_point_owners.hpp).
MountPlan plan_mounts(const ResolvedPolicy& resolved, const HostFacts& facts);

// The first mount of `sandbox` (the built sandbox's mount table) at a path
// the plan does not expect (MountPlan::mount_points), in words; empty when
// there is none. Pure.
std::string unexpected_mount(const MountPlan& plan, const MountTable& sandbox);
// That mount itself; nullptr when there is none. Pure.
const MountEntry* find_unexpected_mount(const MountPlan& plan, const MountTable& sandbox);

}  // namespace holdfast::sandbox
