// The thin imperative steps behind protected names, git's configuration
// and credential stores: what gather_host_facts() looks at on the host for
// them, after the walk of the writable roots. Each records what it found in
// HostFacts (every path it needs through `probe`, which fills
// HostFacts::paths); the rules are made from that by resolve.cpp.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "launcher/sandbox/host_facts.hpp"

namespace holdfast::sandbox {

using Probe = std::function<const PathFacts&(const std::string&)>;

// At every writable root: each protected name the walk saw there (or, for
// a root no walk read, each name that exists), home names at the home;
// below the roots: each protected name the walk met; a .git file's gitdir.
// Sets protected_found, bare_repositories and workspace_is_bare.
void gather_name_facts(const Policy& policy, HostFacts& facts, const Probe& probe);

// The configuration git reads for every repository the launch knows of
// (each writable root's own and the one it lies in, those found below,
// bare ones, submodules) — the system's, the user's and the repository's,
// with their includes, at most kMaxGitConfigFiles files of at most
// kMaxGitConfigBytes — and the paths it names (git_config.hpp). A
// core.worktree in a writable directory is looked at like a root: its
// protected names are added to protected_found.
inline constexpr std::size_t kMaxGitConfigFiles = 64;
inline constexpr std::size_t kMaxGitConfigBytes = 1 << 20;
void gather_git_facts(HostFacts& facts, const Probe& probe, const std::string& xdg_config_home,
                      const ProtectedNames& names);

// Who the caller is, for file-mode checks.
struct CallerIds {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
};
CallerIds current_caller();

// Could the caller read (a file) or enter (a directory) what `st` describes,
// going by its mode bits? uid 0 always can.
bool may_read(const struct stat& st, const CallerIds& caller);

// Every credential store path that exists and that the caller could read,
// in the caller's home and in `other_homes` the caller may enter, and the
// absolute ones; with the paths each keeps readable. A missing path costs
// one fstatat and nothing more.
void gather_credential_facts(const Policy& policy, HostFacts& facts, const Probe& probe,
                             const std::vector<std::string>& other_homes, const CallerIds& caller);

}  // namespace holdfast::sandbox
