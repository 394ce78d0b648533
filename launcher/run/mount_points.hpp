// Mount points bubblewrap leaves on the host, and why one launch's cleanup
// never weakens another launch.
//
// To mount over a path that does not exist (a missing ".git" under a
// writable workspace becomes an empty read-only tmpfs, so it cannot be
// created), bubblewrap first creates the directory, through the writable
// bind, on the host. It stays after the sandbox is gone, and holdfast
// removes it. But removing a directory detaches every mount on it, in
// every mount namespace: a launch that started meanwhile stands on the same
// directory (its own read-only mount there), and would lose it, and could
// then create .git after all.
//
// So every launch holds a lock in holdfast's state directory, shared, from
// before it looks at the host until its sandbox is gone. Before bubblewrap
// runs, the launch records the mount points it will create (one small file
// each, named by the path's hash). At its end it tries to take the lock
// exclusively without waiting: only when no other launch holds it does it
// remove the recorded directories (those still empty) and forget them;
// otherwise the last launch to end does. One lock for all of a user's
// launches, not one per workspace: mount points also lie outside the
// workspace (a missing ~/.config/holdfast under a writable $HOME), and a
// launch in a parent directory stands on its subdirectories' mount points.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/fd.hpp"

namespace holdfast::launcher {

class MountPointCleanup {
 public:
  // Takes STATE_DIR/mount-points.lock shared, waiting while another launch
  // cleans up. Throws base::SystemError (then nothing is ever removed:
  // the caller goes on without cleanup).
  explicit MountPointCleanup(const std::filesystem::path& state_dir);

  // Records paths bubblewrap is about to create. Throws base::SystemError.
  void record(const std::vector<std::string>& paths);

  // After the sandbox is gone: when no other launch holds the lock, removes
  // every recorded path that is still an empty directory, forgets them all,
  // and returns those removed; otherwise returns nothing and leaves them to
  // the launch that ends last. Releases the lock either way.
  std::vector<std::filesystem::path> finish();

 private:
  std::filesystem::path records_;  // STATE_DIR/mount-points
  base::UniqueFd lock_;
};

// rmdir of `path` (absolute) when it is an empty directory, following no
// symlink on the way. True when it was removed.
bool remove_empty_directory(const std::string& path);

}  // namespace holdfast::launcher
