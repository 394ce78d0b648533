// The workspace and the cwd of a launch, each resolved once, to a descriptor.
//
// A neighbour that swaps the workspace directory with a symlink to another
// directory, in a loop, while launches start with --workspace naming it and
// the caller's cwd inside the real directory, got some launches to write
// into the symlink's target: the cwd was carried as a name ($PWD) and looked
// up again, so at an unlucky moment both names led to the other directory,
// which then passed every check as "the workspace". Now the workspace is
// opened once (following a symlink: a symlinked workspace binds its
// target), the cwd is the caller's current directory itself (or, given,
// opened once), and the cwd must lie in the workspace by identity: walking
// ".." up from the cwd's descriptor meets the workspace's device and inode.
// Their canonical names are what the kernel says those descriptors are now;
// the host facts must find the same files there (else the launch is
// refused), the workspace's bind is made from its descriptor, and the start
// gate checks the mount by device and inode.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "base/fd.hpp"
#include "launcher/sandbox/host_facts.hpp"

namespace holdfast::launcher {

struct OpenedDirectory {
  base::UniqueFd fd;  // O_PATH, close-on-exec
  sandbox::FileId id;
  std::string canonical;  // the descriptor's path now (/proc/self/fd)
};

struct LaunchDirectories {
  OpenedDirectory workspace;
  OpenedDirectory cwd;
  bool cwd_within_workspace = false;  // by identity (lies_within)
};

// Opens `path` (absolute; following symlinks), or the current directory
// when `path` is empty. nullopt when it does not exist or is not a directory
// (admission then says so by name). Throws base::SystemError for other
// errors.
std::optional<OpenedDirectory> open_directory(const std::filesystem::path& path);

// True when `inner` is `outer` or lies below it: ".." from inner's
// descriptor, up to the root, meets outer's identity. Throws
// base::SystemError.
bool lies_within(const OpenedDirectory& inner, const sandbox::FileId& outer);

// The cwd (empty: the current directory) and the workspace (empty: that
// same directory), opened once, and whether the cwd lies in the workspace
// (admission refuses it otherwise, with every other refusal). nullopt when
// either cannot be opened as a directory. Throws base::SystemError.
std::optional<LaunchDirectories> open_launch_directories(const std::filesystem::path& workspace,
                                                         const std::filesystem::path& cwd);

}  // namespace holdfast::launcher
