// Putting the second layer into a launch: the kernel's Landlock ABI, the
// operator's requirement, and the helper that applies the plan inside the
// sandbox (helper/landlock_exec.cpp), embedded in holdfast and handed to
// bubblewrap as a sealed memfd: bubblewrap runs /proc/self/fd/N with the
// rules, then "--" and the command.
//
// Best effort by default: without Landlock (an old kernel, or one booted
// without it) the launch goes ahead on the mount layer alone, and doctor,
// --explain and the launch record say so. security.requireLandlock (an
// operator scope) refuses such a launch.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/fd.hpp"
#include "launcher/landlock/landlock_plan.hpp"
#include "launcher/sandbox/host_facts.hpp"
#include "settings/merge.hpp"

namespace holdfast::landlock {

// The kernel's Landlock ABI (landlock_create_ruleset's version query); 0
// when Landlock is not available (and `why` says why, when given).
int kernel_abi(std::string* why = nullptr);

// security.requireLandlock in the effective settings.
bool required_by(const settings::Effective& effective);

// The ABI a launch uses: the kernel's (`kernel`, 0 for none, `why`
// saying why), at most the newest this holdfast knows (kNewestAbi); 0 when
// the kernel has none or the helper is not `embedded` in this build. Throws
// sandbox::Refused ("landlock-required") when `required` and there is none.
// Pure.
int choose_abi(int kernel, bool embedded, bool required, std::string why);

// choose_abi for this kernel and this build.
int launch_abi(bool required);

// The helper's part of the command: `helper_path` (/proc/self/fd/N) and
// its options for `plan` under `abi` (0: no Landlock rules), with the
// identity the command's directory must have (`cwd`, when given), up to and
// including the "--" before the command. With `ruleset_fd` (the ruleset
// holdfast made, host_rules.hpp, as the sandbox inherits it) the helper
// completes that ruleset with the rules not on the host's files; without,
// it makes the whole ruleset itself.
std::vector<std::string> helper_argv(const Plan& plan, int abi, const std::string& helper_path,
                                     const std::optional<sandbox::FileId>& cwd = std::nullopt,
                                     std::optional<int> ruleset_fd = std::nullopt);

// The embedded helper in a sealed memfd, close-on-exec. Throws
// base::SystemError.
base::UniqueFd helper_memfd();

// True when this build embeds the helper.
bool helper_embedded();

}  // namespace holdfast::landlock
