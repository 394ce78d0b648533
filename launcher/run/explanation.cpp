#include "launcher/run/explanation.hpp"

#include <stdexcept>

#include "launcher/landlock/landlock_plan.hpp"
#include "launcher/sandbox/explain.hpp"
#include "launcher/seccomp/filter.hpp"
#include "settings/scopes.hpp"

namespace holdfast::launcher {

namespace fs = std::filesystem;

namespace {

// How the mounts are made and checked, and what holdfast looked for on
// this host to protect.
std::string describe_mounts(const LaunchPlan& plan) {
  const auto& facts = plan.facts;
  std::string out =
      "mounts: each bind source is opened once, following no symlink, checked to be the file "
      "looked at above (device and inode) and passed to bubblewrap as a descriptor; the built "
      "sandbox is held before the command starts and each mount is checked from outside (at its "
      "path, no symlink on the way, the file checked, read-only where it must be)\n";
  out +=
      "repositories below writable directories: " + std::to_string(facts.nested_git.size()) +
      " found (" + std::to_string(facts.repo_scan.directories) + " directories read" +
      (facts.repo_scan.complete ? ")"
                                : "; stopped at the limit of " + std::to_string(facts.scan_budget) +
                                      " directories: the launch is refused)") +
      "; each is read-only inside\n";
  for (const auto& git : facts.nested_git) out += "  " + git + "\n";
  out += "mount operations, in order:\n";
  for (const auto& op : plan.mounts.ops) out += "  " + sandbox::describe(op) + "\n";
  out += facts.state_dir ? "state directory: " + facts.state_dir->canonical +
                               " (launch records, presence memory; hidden inside)\n"
                         : std::string(
                               "state directory: unknown (no HOLDFAST_STATE_DIR, "
                               "XDG_STATE_HOME or HOME): no launch records, and the "
                               "mount points below are not removed\n");
  out += "bubblewrap: " + plan.bwrap.why_trusted() +
         "; executed through the descriptor it was "
         "checked with\n";
  if (!plan.mounts.created_on_host.empty()) {
    out +=
        "mount points bubblewrap creates on the host (empty directories, removed by the last "
        "launch to end):\n";
    for (const auto& path : plan.mounts.created_on_host) out += "  " + path + "\n";
  }
  return out;
}

// The second layer: which ABI, what it enforces, and its rules.
std::string describe_landlock(const LaunchPlan& plan) {
  if (plan.landlock_abi == 0) {
    return std::string("landlock: not available on this host") +
           (plan.landlock_required ? " (required: the launch is refused)"
                                   : "; the mounts alone enforce the filesystem policy "
                                     "(security.requireLandlock would refuse)") +
           "\n";
  }
  std::string out =
      "landlock: ABI " + std::to_string(plan.landlock_abi) + " (" +
      landlock::abi_coverage(plan.landlock_abi) + ")" +
      (plan.landlock_required ? ", required by an operator scope" : "") +
      "; applied before the command starts, the rules on the host's own files (marked host) "
      "added by holdfast while bubblewrap builds the sandbox, the others inside it" +
      (plan.landlock.tcp_closed && plan.landlock_abi >= 4 ? "; no TCP bind or connect" : "") +
      "\n  rights: x execute, w write, r read, l list, e/u remove, D/R/Y make "
      "directory/file/symlink, F/S make FIFO/socket, f rename across "
      "directories, t truncate, i device ioctls\n";
  for (const auto& rule : plan.landlock.rules) {
    out += "  " + rule.path + ": " + landlock::rights_letters(rule.here);
    if (rule.split) {
      out += ", each entry " + landlock::rights_letters(rule.entries) + " but";
      for (const auto& name : rule.skip) out += " " + name;
    }
    if (rule.on_host) out += "  (host)";
    out += "\n";
  }
  return out;
}

}  // namespace

std::string explanation_text(const LaunchPlan& plan) {
  std::string out = "settings snapshot " + plan.snapshot.digest + "\n";
  for (const auto& file : plan.snapshot.scopes) {
    out += "  " + std::string(settings::scope_name(file.scope)) + ": " + file.path.string() +
           (file.exists ? " (revision " + std::to_string(file.revision) + ")" : " (absent)") + "\n";
  }
  for (const auto& warning : plan.snapshot.effective.warnings) {
    out += "  " + warning.to_string() + "\n";
  }
  out += "\n" + sandbox::explain(plan.policy, plan.facts, plan.resolved);
  out += "bounds on this host: " +
         cgroup::describe(plan.bounds, plan.cgroup_placement,
                          cgroup::operator_set(plan.policy.limits)) +
         "\n";
  out += "\n" + describe_mounts(plan);
  out += "\n" + describe_landlock(plan);
  out += "\nseccomp filter:\n";
  for (const auto& line : seccomp::describe_rules(plan.filter)) out += "  " + line + "\n";
  return out;
}

LaunchPlan plan_for_explanation(const fs::path& workspace) {
  LaunchOptions options;
  options.workspace = workspace;
  options.cwd = workspace;
  options.command = {"true"};
  return plan_launch(plan_request(options, /*will_run=*/false));
}

}  // namespace holdfast::launcher
