// The workspace and every directory above it, checked at every launch as
// sshd's StrictModes checks a home: owned by root or by the caller, and
// not writable by group or others unless sticky and root's (as /tmp). A
// command that ran `chmod 0777` on its workspace (or a workspace made in a
// directory others can write) would otherwise let another user replace
// build.sh or .envrc before the next launch, or rename the workspace away
// while it starts. An operator scope may turn the check off
// (security.workspaceStrictModes: false), which weakens every launch.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <vector>

#include "base/path_chain.hpp"
#include "launcher/sandbox/refusal.hpp"
#include "settings/merge.hpp"

namespace holdfast::launcher {

// The refusal for a walk of the workspace (base::walk_path steps, "/"
// first), or nullopt when every step is safe for `caller_uid`. Pure.
std::optional<sandbox::Refusal> workspace_refusal(const std::filesystem::path& workspace,
                                                  const std::vector<base::PathStep>& steps,
                                                  uid_t caller_uid);

// security.workspaceStrictModes is not false. Pure.
bool workspace_strict_modes(const settings::Effective& effective);

// Walks the workspace and throws sandbox::Refused when it is unsafe (or
// cannot be walked), unless the operator turned the check off.
void check_workspace_modes(const std::filesystem::path& workspace,
                           const settings::Effective& effective);

}  // namespace holdfast::launcher
