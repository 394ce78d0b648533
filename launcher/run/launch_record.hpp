// What a launch leaves behind: the --report document and the one-line
// launch record in launches.jsonl in holdfast's state directory
// (settings::state_dir_from_environment). Both name the
// snapshot the sandbox was built from (its digest and every scope's
// identity), so a launch can be traced to the exact bytes of its policy.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "launcher/run/launch_plan.hpp"
#include "launcher/run/supervise.hpp"
#include "launcher/sandbox/tree_scan.hpp"

namespace holdfast::launcher {

// What a launch with a network allow-list connected to: its audit log
// (network_proxy.hpp) and the log's lines.
struct NetworkActivity {
  std::filesystem::path audit;
  nlohmann::json connections = nlohmann::json::array();
};

// The full report: snapshot digest and scope identities, effective policy
// (canonical form and digest), argv, what was protected and hidden
// (protection_record.hpp), exit status, timings, and what appeared while
// the command ran (`changes`).
// `network` adds the allow-list's connections, every one.
nlohmann::json launch_report(const LaunchPlan& plan, const SuperviseOutcome& outcome,
                             int exit_status, const sandbox::TreeChanges& changes = {},
                             const NetworkActivity& network = {});

// The compact one-line record (no argv of the sandbox, the command only).
// (The allow-list's audit log by path, with counts.)
nlohmann::json launch_record(const LaunchPlan& plan, const std::vector<std::string>& command,
                             int exit_status, const sandbox::TreeChanges& changes = {},
                             const NetworkActivity& network = {});

// launches.jsonl in holdfast's state directory; nullopt when none is known.
std::optional<std::filesystem::path> launch_log_path();

// Appends one line with a single O_APPEND write (concurrent launches never
// interleave). Throws base::SystemError.
void append_json_line(const std::filesystem::path& file, const nlohmann::json& record);

// True unless the effective settings say launcher.launchRecords: false
// (which only operator scopes can: the merge ignores it from a workspace).
bool launch_records_enabled(const settings::Effective& effective);

}  // namespace holdfast::launcher
