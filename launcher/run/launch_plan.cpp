#include "launcher/run/launch_plan.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "base/system_error.hpp"
#include "launcher/landlock/host_rules.hpp"
#include "launcher/landlock/second_layer.hpp"
#include "launcher/run/bubblewrap.hpp"
#include "launcher/run/launch_directories.hpp"
#include "launcher/run/workspace_modes.hpp"
#include "launcher/sandbox/bwrap_args.hpp"
#include "launcher/sandbox/network_inside.hpp"
#include "launcher/sandbox/refusal.hpp"
#include "launcher/seccomp/bpf_export.hpp"
#include "launcher/seccomp/program.hpp"
#include "settings/strict_modes.hpp"

namespace holdfast::launcher {

using Clock = std::chrono::steady_clock;

namespace {

std::chrono::microseconds since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
}

// A settings file replaced since the snapshot read it (admission's
// "settings-file-changed") by one that holds the very bytes that were read
// — a same-content save, as GUIs autosave — is taken as the file that was
// read: its owner and mode must pass the same strict-modes check, and
// admission then checks its links and writability as the file in place.
// A writer that saves faster than one look at the host (a kilohertz
// autosave under a slow build) replaces the file between the host facts and
// the content check, so the path is looked at again, then the content, until
// both saw the same file: each look is microseconds, and a save that changes
// the bytes ends the wait at once (the plan starts over from a fresh
// snapshot).
void accept_same_content_saves(const settings::Snapshot& snapshot,
                               const settings::SnapshotOptions& options,
                               sandbox::HostFacts& facts) {
  constexpr int kLooks = 64;
  const uid_t uid =
      options.invoking_uid == static_cast<uid_t>(-1) ? ::getuid() : options.invoking_uid;
  for (auto& file : facts.settings_files) {
    if (!file.facts.exists() || file.facts.id == file.read) continue;
    for (const auto& read : snapshot.scopes) {
      if (!read.exists ||
          std::filesystem::absolute(read.path).lexically_normal() != file.facts.path) {
        continue;
      }
      sandbox::PathFacts looked = file.facts;
      for (int look = 0; look < kLooks; ++look) {
        if (look > 0) looked = sandbox::probe_path(file.facts.path);
        const auto now = settings::identity_if_unchanged(read);
        if (!now) break;  // new bytes: not a same-content save
        if (sandbox::FileId{now->device, now->inode} != looked.id) continue;
        if (options.strict_modes &&
            settings::check_strict_modes(read.path, now->owner, now->mode, uid)) {
          break;
        }
        file.facts = std::move(looked);
        file.read = file.facts.id;
        break;
      }
      break;
    }
  }
}

// Plans with one snapshot; plan_launch starts over when the settings or a
// host path change under it (plan_again_after).
LaunchPlan plan_from_one_snapshot(const LaunchRequest& request);

}  // namespace

std::vector<int> LaunchPlan::inherited_fds() const {
  std::vector<int> fds;
  if (seccomp_fd.valid()) fds.push_back(seccomp_fd.get());
  if (gate) fds.push_back(gate->program_fd());
  for (const auto& fd : empty_file_fds) fds.push_back(fd.get());
  if (resolv_conf_fd.valid()) fds.push_back(resolv_conf_fd.get());
  if (landlock_helper_fd.valid()) fds.push_back(landlock_helper_fd.get());
  if (landlock_ruleset_fd.valid()) fds.push_back(landlock_ruleset_fd.get());
  for (const auto& fd : bind_sources.fds) fds.push_back(fd.get());
  return fds;
}

seccomp::FilterOptions filter_options_for(const sandbox::Policy& policy) {
  seccomp::FilterOptions options;
  // An allow-list needs IP sockets: to the proxy and the stub on the
  // sandbox's own loopback, the only interface its namespace has.
  options.network_closed = policy.network == sandbox::Network::closed;
  options.unix_sockets = policy.unix_sockets;
  return options;
}

void check_bubblewrap_not_writable(const TrustedExecutable& bwrap,
                                   const sandbox::ResolvedPolicy& resolved, uid_t caller_uid) {
  // Anyone else finds every step root's and not writable to them, mount or
  // no mount (find_trusted_executable checked that).
  if (caller_uid != 0) return;
  for (const base::PathStep& step : bwrap.chain) {
    if (resolved.access_at(step.path) != sandbox::Access::write) continue;
    throw sandbox::Refused(
        {sandbox::Refusal{"bubblewrap-writable", step.path, "",
                          "the policy makes " + step.path +
                              " writable inside, and the command runs as root: it "
                              "could replace the bubblewrap " +
                              bwrap.resolved + " that the next launch executes",
                          "make " + step.path +
                              " read-only in the policy, or run holdfast as an unprivileged "
                              "user"}});
  }
}

bool plan_again_after(const sandbox::Refused& refused) {
  for (const auto& refusal : refused.refusals()) {
    if (refusal.rule != "settings-file-changed" && refusal.rule != "path-changed-during-launch") {
      return false;
    }
  }
  return !refused.refusals().empty();
}

// A launch whose settings files were replaced with new content between its
// snapshot and its look at the host, or whose host paths changed while it
// looked, starts over from a fresh snapshot: an ordinary save or a
// neighbour's activity costs a retry, not a refusal. Bounded by a few
// starts within the snapshot's own wait budget; settings or paths that
// keep changing past it are refused.
LaunchPlan plan_launch(const LaunchRequest& request) {
  constexpr int kMaxStarts = 5;
  const auto deadline = Clock::now() + request.snapshot_options.max_wait;
  for (int start = 1;; ++start) {
    try {
      return plan_from_one_snapshot(request);
    } catch (const sandbox::Refused& refused) {
      if (!plan_again_after(refused) || start >= kMaxStarts || Clock::now() >= deadline) {
        throw;
      }
    }
  }
}

namespace {

LaunchPlan plan_from_one_snapshot(const LaunchRequest& request) {
  LaunchPlan plan;
  auto start = Clock::now();
  // The workspace and the cwd, each opened once; everything after names
  // them by what the kernel says those descriptors are.
  std::optional<LaunchDirectories> directories =
      open_launch_directories(request.workspace, request.cwd);
  std::filesystem::path workspace = request.workspace;
  std::filesystem::path cwd = request.cwd;
  if (directories) {
    workspace = directories->workspace.canonical;
    cwd = directories->cwd.canonical;
  } else {
    // One of them is missing: admission says which, by name.
    if (cwd.empty()) cwd = std::filesystem::current_path();
    if (workspace.empty()) workspace = cwd;
  }
  plan.scope_paths = settings::scope_paths_from_environment(workspace);
  if (request.state_dir) plan.scope_paths.state_dir = *request.state_dir;
  plan.snapshot = settings::take_snapshot(plan.scope_paths, request.snapshot_options);
  plan.timings.snapshot = since(start);

  start = Clock::now();
  check_workspace_modes(workspace, plan.snapshot.effective);
  BubblewrapLookup bubblewrap = find_bubblewrap(plan.snapshot.effective);
  if (!bubblewrap.lookup.executable) {
    throw NoTrustedBubblewrap(std::move(bubblewrap), plan.snapshot.effective);
  }
  plan.bwrap = std::move(*bubblewrap.lookup.executable);
  plan.policy = sandbox::policy_from_settings(plan.snapshot.effective);
  sandbox::FactsRequest facts_request;
  facts_request.workspace = workspace;
  facts_request.cwd = cwd;
  if (directories) {
    facts_request.workspace_id = directories->workspace.id;
    facts_request.cwd_id = directories->cwd.id;
    facts_request.cwd_within_workspace = directories->cwd_within_workspace;
  }
  facts_request.scope_paths = plan.scope_paths;
  facts_request.state_dir = request.state_dir;
  facts_request.repo_scan_budget = plan.policy.protected_names.scan_limit;
  for (const auto& file : plan.snapshot.scopes) {
    if (!file.exists || !settings::is_operator_scope(file.scope)) continue;
    facts_request.settings_files.emplace_back(
        file.path, sandbox::FileId{file.identity.device, file.identity.inode});
  }
  plan.facts = sandbox::gather_host_facts(plan.policy, facts_request);
  plan.facts.others_write_workspace_accepted = !workspace_strict_modes(plan.snapshot.effective);
  accept_same_content_saves(plan.snapshot, request.snapshot_options, plan.facts);
  plan.resolved = sandbox::resolve_policy(plan.policy, plan.facts);
  plan.mounts = sandbox::plan_mounts(plan.resolved, plan.facts);
  plan.bounds = cgroup::bounds_for(plan.policy.limits, cgroup::memory_total_bytes());
  plan.cgroup_placement = cgroup::find_placement();
  if (!plan.cgroup_placement.version && cgroup::operator_set(plan.policy.limits)) {
    throw sandbox::Refused({sandbox::Refusal{
        "limit-not-enforceable", "tools.executionSandbox.limits", "",
        "the policy bounds the sandbox's processes or memory, and this host cannot enforce that "
        "for this caller: " +
            plan.cgroup_placement.unavailable,
        "give the caller a cgroup it may manage (see `holdfast doctor`), or remove "
        "limits.processes and limits.memoryMiB from the policy to go on with the built-in "
        "defaults, which are then not enforced"}});
  }
  check_bubblewrap_not_writable(plan.bwrap, plan.resolved, ::getuid());
  if (request.will_run) {
    // The workspace is bound from the descriptor it was opened as.
    std::map<std::string, base::UniqueFd> opened;
    if (directories)
      opened.emplace(directories->workspace.canonical, std::move(directories->workspace.fd));
    plan.bind_sources =
        open_bind_sources(plan.mounts.bind_sources, plan.facts.identities, std::move(opened));
  }
  // One per denied file: bubblewrap reads each to its end and closes it.
  for (std::size_t i = 0; i < plan.mounts.empty_files; ++i) {
    plan.empty_file_fds.emplace_back(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!plan.empty_file_fds.back().valid()) {
      throw base::SystemError("cannot open", "/dev/null", errno);
    }
  }
  plan.timings.policy = since(start);

  // The second layer, from the same mount plan; its helper runs first
  // inside the sandbox (also without Landlock: it checks that bubblewrap's
  // --chdir, a name, entered the cwd the launch opened) and then executes
  // the command.
  start = Clock::now();
  plan.landlock_required = landlock::required_by(plan.snapshot.effective);
  plan.landlock_abi = landlock::launch_abi(plan.landlock_required);
  plan.landlock = landlock::plan_landlock(plan.policy, plan.mounts, &plan.facts.identities);
  std::vector<std::string> command = request.command;
  // A plan only shown (--dry-run, --explain) leaves it out: its memfd
  // would not exist where that argv is run by hand.
  if (request.will_run && landlock::helper_embedded() && !command.empty()) {
    plan.landlock_helper_fd = landlock::helper_memfd();
    std::optional<sandbox::FileId> cwd_id;
    if (directories) cwd_id = directories->cwd.id;
    std::optional<int> ruleset;
    if (plan.landlock_abi > 0) {
      plan.landlock_ruleset_fd = landlock::make_ruleset(plan.landlock, plan.landlock_abi);
      ruleset = plan.landlock_ruleset_fd.get();
    }
    auto helper = landlock::helper_argv(
        plan.landlock, plan.landlock_abi,
        "/proc/self/fd/" + std::to_string(plan.landlock_helper_fd.get()), cwd_id, ruleset);
    command.insert(command.begin(), helper.begin(), helper.end());
  }
  plan.timings.landlock = since(start);

  start = Clock::now();
  plan.filter = filter_options_for(plan.policy);
  const seccomp::Program program = seccomp::program_for(plan.filter);
  if (request.will_run) {
    plan.gate.emplace(program.bytes);
  } else {
    plan.seccomp_fd = seccomp::program_to_memfd(program.bytes);
  }
  plan.seccomp_baked = program.baked;
  plan.timings.seccomp = since(start);

  start = Clock::now();
  sandbox::BuildOptions build;
  build.bwrap_path = plan.bwrap.path;
  build.seccomp_fd = plan.gate ? plan.gate->program_fd() : plan.seccomp_fd.get();
  for (const auto& fd : plan.empty_file_fds) build.empty_file_fds.push_back(fd.get());
  if (request.will_run) build.bind_fds = plan.bind_sources.by_path;
  if (plan.policy.network == sandbox::Network::allow_list) {
    plan.resolv_conf_fd = base::sealed_memfd("holdfast-resolv.conf", sandbox::resolv_conf_text());
    build.resolv_conf_fd = plan.resolv_conf_fd.get();
  }
  plan.argv = sandbox::build_bwrap_args(plan.policy, plan.facts, plan.mounts, command, build);
  plan.timings.policy += since(start);
  return plan;
}

}  // namespace

}  // namespace holdfast::launcher
