// `holdfast doctor`: probes this host and says what `holdfast run` would
// do. Unlike `run`, which does no per-launch probing, the doctor may start
// trial processes: it is the place to find out why a launch is refused.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "launcher/run/launch_plan.hpp"
#include "launcher/sandbox/policy.hpp"
#include "settings/scopes.hpp"
#include "settings/snapshot.hpp"

namespace holdfast::doctor {

enum class Verdict { ok, warning, fatal };  // fatal: `run` would refuse

struct Finding {
  std::string check;  // "bubblewrap", "trial-launch", ...
  Verdict verdict = Verdict::ok;
  std::string summary;  // one line: what was found
  std::string advice;   // what to do; empty when ok
  // What the summary says, as data ("claims" in --json); null when the
  // check makes no claim a launch could be held to.
  nlohmann::json claims = nullptr;
};

struct Report {
  std::vector<Finding> findings;
  bool launch_possible() const;
  nlohmann::json to_json() const;
  std::string to_text() const;
};

// Runs every probe. `paths` names the settings scopes to check.
Report examine_host(const settings::ScopePaths& paths);

// Pieces, each a probe of its own (exposed for tests).
// The bubblewrap a launch would execute (launcher::find_bubblewrap with
// the settings of `paths`), why it is trusted, its version and features;
// the verdict is launcher::decide_start's, as run's.
Finding check_bubblewrap(const settings::ScopePaths& paths);
// `holdfast run -- /bin/true` in the workspace of `paths`, through the very
// launch path run takes (launcher::launch), without a launch record. The
// launch's plan, when it got that far, is left in `plan`.
Finding check_trial_launch(const settings::ScopePaths& paths,
                           std::optional<launcher::LaunchPlan>* plan = nullptr);
Finding check_seccomp();
Finding check_apparmor_userns();
// The kernel's Landlock ABI and what it enforces; with a plan, whether that
// launch applies it and whether an operator requires it.
Finding check_landlock(const launcher::LaunchPlan* plan);
// The policy's network and the proxy canary (network_canary.hpp): fatal
// when the policy has an allow-list and the canary failed.
Finding check_network(const sandbox::Policy* policy);
// Every scope from one reading, then that reading merged as a launch takes
// it; `merged`, when given, receives the merged snapshot (left as it was
// when the reading cannot be merged).
std::vector<Finding> check_settings_scopes(const settings::ScopePaths& paths,
                                           settings::Snapshot* merged = nullptr);
// What the effective policy lets the command reach through Unix sockets:
// with AF_UNIX allowed, the well-known host sockets that exist here.
Finding check_unix_sockets(const sandbox::Policy& policy);
// What a launch's sandbox is, read from the very plan `run` makes (its
// mount operations, rules and bubblewrap argv), so that doctor claims only
// what the launch does: /proc, /dev and /dev/shm, what /tmp is (private
// and its size, or the host's, writable or not), the network, the second
// layer, the mounts below bound paths, the limits.
nlohmann::json confinement_claims(const launcher::LaunchPlan& plan);
// Those claims in words, what root inside means when the caller is root,
// and the policy's limits (fatal when they could not be enforced).
Finding check_confinement(const launcher::LaunchPlan& plan, uid_t caller_uid);
// The sandbox's processes and memory: where its cgroup would go, or why it
// cannot (fatal when an operator set the bounds, a warning for defaults).
Finding check_bounds(const sandbox::Policy& policy);

// git's safe.bareRepository in the system and global configuration: unless
// "explicit", git takes any directory with HEAD, objects/ and refs/ for a
// repository and obeys its config and hooks (a command can make one in a
// writable directory; holdfast reports it when the command ends). Warns
// with the command that sets it; ok when git is not installed.
Finding check_git_bare_repository();
// The verdict for `values` ("explicit", "all", ... as git config printed
// them, system then global; empty when unset), `git` the git found (empty:
// none).
Finding git_bare_repository_finding(const std::string& git, const std::vector<std::string>& values);

// "0.8.0" → {0, 8, 0}; empty on a malformed version.
std::vector<int> parse_version(const std::string& text);

// The options a launch gives bubblewrap that its older releases lack, in
// the order a reader meets them: --disable-userns (0.8.0), --bind-fd and
// --ro-bind-fd (0.10.0, and Debian 12's 0.8.0-2+deb12u1 as a backport),
// --perms, --size, --chmod (0.5.0).
inline constexpr const char* kNewerBubblewrapOptions[] = {
    "--disable-userns", "--bind-fd", "--ro-bind-fd", "--perms", "--size", "--chmod"};

// Which of kNewerBubblewrapOptions `help_text` (what `bwrap --help`
// printed) does not list. A version number cannot say: distributions
// backport options.
std::vector<std::string> missing_bubblewrap_options(const std::string& help_text);

}  // namespace holdfast::doctor
