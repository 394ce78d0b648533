// The sources of bubblewrap's binds, opened by holdfast.
//
// Each path a launch binds is opened once, O_PATH, with no symlink followed
// anywhere on the way (the facts recorded its canonical path, which has
// none), and must still be the file the facts recorded (device and inode).
// bubblewrap gets the descriptor (--bind-fd, --ro-bind-fd), mounts what it
// names, and after mounting checks that the mount shows that file; it
// exits otherwise. So a directory swapped for a symlink between holdfast's
// look and bubblewrap's mount fails the launch instead of binding whatever
// the symlink points to.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/fd.hpp"
#include "launcher/sandbox/host_facts.hpp"

namespace holdfast::launcher {

struct BindSources {
  std::vector<base::UniqueFd> fds;     // close-on-exec; the launch lets bwrap inherit them
  std::map<std::string, int> by_path;  // for BuildOptions::bind_fds
};

// Opens `path` (absolute, canonical) as above. Throws sandbox::Refused
// ("path-changed-during-launch") when the path now crosses a symlink, is
// gone, or is another file than `expected`; base::SystemError for
// other errors.
base::UniqueFd open_bind_source(const std::string& path, const sandbox::FileId& expected);

// open_bind_source for each path, with the identity the facts recorded;
// a path in `opened` is bound from that descriptor instead (it was opened
// once for the launch and checked: the workspace), which is taken over.
// Throws std::logic_error for a path the facts never met.
BindSources open_bind_sources(const std::vector<std::string>& paths,
                              const std::map<std::string, sandbox::FileId>& identities,
                              std::map<std::string, base::UniqueFd> opened = {});

}  // namespace holdfast::launcher
