// Who can change what a path names. A path is only as trustworthy as every
// directory on the way to it: whoever can write one of them can rename an
// entry and put something else in its place. So the path is walked from
// "/" one component at a time, each through a descriptor (no name is looked
// up twice), symlinks followed by hand so that the directories holding them
// are seen too, and each step's owner and mode are kept for a pure
// judgement (ownership_problem). The last step is opened, so what was
// judged is what the caller then uses.
//
// Used for the bubblewrap holdfast executes (root only), the workspace and
// its parents (root or the caller, as sshd's StrictModes), and holdfast's
// state directory.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/fd.hpp"

namespace holdfast::base {

// One step of a walk: a directory passed through, a symlink followed, or
// (last) the object the path names.
struct PathStep {
  std::string path;  // where it was met, absolute, with no symlink before it
  uid_t owner = 0;
  mode_t mode = 0;  // st_mode: type and permission bits
  bool operator==(const PathStep&) const = default;
};

struct WalkedPath {
  std::vector<PathStep> steps;  // "/" first, the object last
  std::string resolved;         // the object's path, symlinks resolved
  UniqueFd fd;                  // the object, opened with the walk's final flags
};

// Walks the absolute `path` from "/" (see above), following at most 40
// symlinks, and opens the object with `final_flags` | O_NOFOLLOW |
// O_CLOEXEC (O_PATH for a look without opening). Throws SystemError naming
// the step that failed: ENOENT when a component is missing, ENOTDIR, ELOOP,
// EACCES as the kernel says.
WalkedPath walk_path(const std::filesystem::path& path, int final_flags);

// How far a directory that others can write is accepted.
enum class StickyDirectories {
  refused,     // never: nothing on the way may be writable by anyone else
  root_owned,  // a sticky directory owned by root (/tmp): others cannot rename
               // or remove entries they do not own
};

// What makes `step` changeable by someone other than root and
// `trusted_uid` (0: root alone), or nullopt: its owner is neither, or it is
// writable by group or others (a symlink's own mode means nothing and is
// not judged). Pure. The text names the path and the fact, e.g.
// "/srv/ws is owned by uid 1001" or "/srv/ws has mode 0777 (writable by
// group or others)".
std::optional<std::string> ownership_problem(const PathStep& step, uid_t trusted_uid,
                                             StickyDirectories sticky);

// The first problem of any step, in walk order. Pure.
std::optional<std::string> first_ownership_problem(const std::vector<PathStep>& steps,
                                                   uid_t trusted_uid, StickyDirectories sticky);

// "0755": the permission bits of `mode` in octal.
std::string octal_mode(mode_t mode);

}  // namespace holdfast::base
