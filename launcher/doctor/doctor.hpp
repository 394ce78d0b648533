// `holdfast doctor`: probes this host and says what `holdfast run` would
// do. Unlike `run`, which does no per-launch probing, the doctor may start
// trial processes: it is the place to find out why a launch is refused.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "launcher/sandbox/policy.hpp"
#include "settings/scopes.hpp"

namespace holdfast::doctor {

enum class Verdict { ok, warning, fatal };  // fatal: `run` would refuse

struct Finding {
  std::string check;  // "bubblewrap", "user-namespaces", ...
  Verdict verdict = Verdict::ok;
  std::string summary;  // one line: what was found
  std::string advice;   // what to do; empty when ok
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
Finding check_bubblewrap(const std::string& bwrap_path);       // version and features
Finding check_user_namespaces(const std::string& bwrap_path);  // a real trial sandbox
Finding check_seccomp();
Finding check_apparmor_userns();
Finding check_landlock();
std::vector<Finding> check_settings_scopes(const settings::ScopePaths& paths);
// What the effective policy lets the command reach through Unix sockets:
// with AF_UNIX allowed, the well-known host sockets that exist here.
Finding check_unix_sockets(const sandbox::Policy& policy);
// The protections every launch gets, what root inside means when the caller
// is root, and the policy's limits (fatal when they could not be enforced).
Finding check_confinement(const sandbox::Policy& policy, uid_t caller_uid);

// "0.8.0" → {0, 8, 0}; empty on a malformed version.
std::vector<int> parse_version(const std::string& text);

}  // namespace holdfast::doctor
