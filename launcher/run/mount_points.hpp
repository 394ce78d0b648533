// Mount points bubblewrap leaves on the host.
//
// To mount over a path that does not exist — a missing ".git" under a
// writable workspace becomes an empty read-only tmpfs so it cannot be
// created — bubblewrap first creates the directory, through the writable
// bind, on the host. It stays after the sandbox is gone. holdfast notes
// which mount destinations did not exist before the launch and removes
// those that are still empty directories afterwards (rmdir only: a
// directory that something filled in the meantime is left alone).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace holdfast::launcher {

// The destinations of --tmpfs, --dir, --bind, --ro-bind and --ro-bind-data
// in a bwrap argv (everything before "--"), in order.
std::vector<std::string> mount_destinations(const std::vector<std::string>& argv);

// Those of `destinations` that do not exist on the host now.
std::vector<std::filesystem::path> missing_on_host(const std::vector<std::string>& destinations);

// rmdir()s each path that is an empty directory, deepest first. Returns the
// paths removed.
std::vector<std::filesystem::path> remove_empty_leftovers(std::vector<std::filesystem::path> paths);

}  // namespace holdfast::launcher
