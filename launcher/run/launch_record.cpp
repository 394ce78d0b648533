#include "launcher/run/launch_record.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "base/fd.hpp"
#include "base/system_error.hpp"
#include "launcher/run/protection_record.hpp"
#include "launcher/sandbox/policy.hpp"
#include "settings/key_path.hpp"
#include "settings/scopes.hpp"

namespace holdfast::launcher {

namespace {

nlohmann::json scope_identities(const settings::Snapshot& snapshot) {
  nlohmann::json scopes = nlohmann::json::array();
  for (const auto& file : snapshot.scopes) {
    nlohmann::json scope = {{"scope", std::string(settings::scope_name(file.scope))},
                            {"path", file.path.string()},
                            {"exists", file.exists}};
    if (file.exists) {
      scope["device"] = file.identity.device;
      scope["inode"] = file.identity.inode;
      scope["size"] = file.identity.size;
      scope["sha256"] = file.identity.sha256;
      scope["revision"] = file.revision;
    }
    scopes.push_back(std::move(scope));
  }
  return scopes;
}

// The second layer as this launch had it.
nlohmann::json landlock_state(const LaunchPlan& plan) {
  return {{"abi", plan.landlock_abi},
          {"applied", plan.landlock_abi > 0},
          {"required", plan.landlock_required},
          {"rules", plan.landlock_abi > 0 ? plan.landlock.rules.size() : 0}};
}

long long unix_millis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The policy's network, and with an allow-list where its audit log is and
// how many attempts it allowed and refused; CONNECTIONS adds them all.
nlohmann::json network_json(const LaunchPlan& plan, const NetworkActivity& network,
                            bool connections) {
  nlohmann::json out = {{"policy", sandbox::network_json(plan.policy)}};
  if (plan.policy.network != sandbox::Network::allow_list) return out;
  std::size_t allowed = 0;
  for (const auto& line : network.connections) {
    if (line.value("allowed", false)) ++allowed;
  }
  out["audit"] = network.audit.string();
  out["allowed"] = allowed;
  out["refused"] = network.connections.size() - allowed;
  if (connections) out["connections"] = network.connections;
  return out;
}

}  // namespace

nlohmann::json launch_report(const LaunchPlan& plan, const SuperviseOutcome& outcome,
                             int exit_status, const sandbox::TreeChanges& changes,
                             const NetworkActivity& network) {
  nlohmann::json signals = outcome.forwarded_signals;
  return {
      {"network", network_json(plan, network, /*connections=*/true)},
      {"time_unix_ms", unix_millis()},
      {"snapshot",
       {{"digest", plan.snapshot.digest},
        {"attempts", plan.snapshot.attempts},
        {"scopes", scope_identities(plan.snapshot)}}},
      {"policy",
       {{"form", std::string(sandbox::form_name(plan.policy.form))},
        {"canonical", sandbox::canonical_json(plan.policy)},
        {"digest", sandbox::policy_digest(plan.policy)}}},
      {"argv", plan.argv},
      {"repositories",
       {{"protected", plan.facts.nested_git},
        {"directories_read", plan.facts.repo_scan.directories},
        {"complete", plan.facts.repo_scan.complete}}},
      {"bounds",
       {{"processes", plan.bounds.tasks ? nlohmann::json(*plan.bounds.tasks) : nlohmann::json()},
        {"memory_bytes",
         plan.bounds.memory_bytes ? nlohmann::json(*plan.bounds.memory_bytes) : nlohmann::json()},
        {"enforced", plan.cgroup_placement.version.has_value()},
        {"how", cgroup::describe(plan.bounds, plan.cgroup_placement,
                                 cgroup::operator_set(plan.policy.limits))}}},
      {"protection", protection_json(plan)},
      {"after", changes_json(changes)},
      {"seccomp_program", plan.seccomp_baked ? "baked at build time" : "built at launch"},
      {"landlock", landlock_state(plan)},
      {"exit_status", exit_status},
      {"command_status",
       outcome.command_status ? nlohmann::json(*outcome.command_status) : nlohmann::json()},
      {"timed_out", outcome.timed_out},
      {"forwarded_signals", signals},
      {"timings_us",
       {{"snapshot", plan.timings.snapshot.count()},
        {"policy_and_argv", plan.timings.policy.count()},
        {"seccomp", plan.timings.seccomp.count()},
        {"mount_check", plan.timings.mount_check.count()},
        {"cgroup", plan.timings.cgroup.count()},
        {"landlock", plan.timings.landlock.count()},
        {"landlock_host_rules", plan.timings.landlock_host_rules.count()},
        {"network_open", plan.timings.network_open.count()},
        {"network_stop", plan.timings.network_stop.count()},
        {"sandbox_up", outcome.started_after.count()},
        {"bwrap_exit", outcome.finished_after.count()}}},
  };
}

nlohmann::json launch_record(const LaunchPlan& plan, const std::vector<std::string>& command,
                             int exit_status, const sandbox::TreeChanges& changes,
                             const NetworkActivity& network) {
  return {{"time_unix_ms", unix_millis()},
          {"network", network_json(plan, network, /*connections=*/false)},
          {"pid", ::getpid()},
          {"workspace", plan.facts.workspace.canonical},
          {"command", command},
          {"snapshot_digest", plan.snapshot.digest},
          {"policy_digest", sandbox::policy_digest(plan.policy)},
          {"landlock", landlock_state(plan)},
          {"scopes", scope_identities(plan.snapshot)},
          {"protection", protection_json(plan)},
          {"after", changes_json(changes)},
          {"exit_status", exit_status}};
}

std::optional<std::filesystem::path> launch_log_path() {
  const auto state_dir = settings::optional_state_dir();
  if (!state_dir) return std::nullopt;
  return *state_dir / "launches.jsonl";
}

void append_json_line(const std::filesystem::path& file, const nlohmann::json& record) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  const base::UniqueFd fd(
      ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) base::throw_errno("cannot open launch log", file);
  base::write_all(fd.get(), record.dump() + "\n", file);
}

bool launch_records_enabled(const settings::Effective& effective) {
  const auto* flag = settings::find_value(effective.value, {"launcher", "launchRecords"});
  return flag == nullptr || !flag->is_boolean() || flag->get<bool>();
}

}  // namespace holdfast::launcher
