// The second layer's rules on the host's own files, added by holdfast while
// bubblewrap builds the sandbox.
//
// Landlock ties a rule to a file, not to a name: a rule added on the host
// to the directory bubblewrap binds holds for that directory inside the
// sandbox too. So the rules on host files (PathRule::on_host: most of a
// launch's, and the costly ones: a split directory such as /etc takes a
// rule per entry, about 150) are added here, by holdfast, while bubblewrap
// builds the sandbox on another CPU, instead of by the helper once the
// sandbox is built. The helper inherits the ruleset as a descriptor, adds
// the few rules on what the sandbox makes itself (/dev, /proc, the private
// /tmp, empty mount points), and restricts itself with it. Nothing can add
// to it in between: the helper is the first program the sandbox runs, and
// the start gate opens only after these rules are in.
//
// Each rule lands on the file the launch checked: a pinned rule's path is
// opened without following a symlink and must be that file (device and
// inode); a split directory's entries are opened below the directory's own
// descriptor, never following a symlink (a link's target has its own rule,
// or none).
#pragma once

#include <string>

#include "base/fd.hpp"
#include "launcher/landlock/landlock_plan.hpp"

namespace holdfast::landlock {

// A new ruleset for `plan` under `abi` (> 0): the ABI's filesystem rights
// handled, TCP closed and the scopes as the plan says (ruleset_attr).
// Close-on-exec. Throws base::SystemError.
base::UniqueFd make_ruleset(const Plan& plan, int abi);

struct HostRulesResult {
  // A pinned path that is no longer the file the launch checked (or is
  // gone): the host moved it while the sandbox started. Empty when none.
  std::string moved;
  std::size_t rules = 0;  // rules added
};

// Adds every rule of `plan` on a host file (PathRule::on_host) to
// `ruleset`, made by make_ruleset with `abi`. Stops at the first moved
// path. Throws base::SystemError when a rule cannot be added or a path
// cannot be opened for another reason than being gone.
HostRulesResult add_host_rules(int ruleset, const Plan& plan, int abi);

}  // namespace holdfast::landlock
