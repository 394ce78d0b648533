#include "launcher/run/launch_plan.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "base/system_error.hpp"
#include "launcher/sandbox/bwrap_args.hpp"
#include "launcher/seccomp/bpf_export.hpp"
#include "launcher/seccomp/program.hpp"

namespace holdfast::launcher {

using Clock = std::chrono::steady_clock;

namespace {

std::chrono::microseconds since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
}

}  // namespace

std::vector<int> LaunchPlan::inherited_fds() const {
  std::vector<int> fds;
  if (seccomp_fd.valid()) fds.push_back(seccomp_fd.get());
  if (gate) fds.push_back(gate->program_fd());
  for (const auto& fd : empty_file_fds) fds.push_back(fd.get());
  for (const auto& fd : bind_sources.fds) fds.push_back(fd.get());
  return fds;
}

seccomp::FilterOptions filter_options_for(const sandbox::Policy& policy) {
  seccomp::FilterOptions options;
  options.network_closed = policy.network == sandbox::Network::closed;
  switch (policy.unix_sockets) {
    case sandbox::UnixSockets::allow:
      options.unix_sockets = seccomp::UnixSockets::allow;
      break;
    case sandbox::UnixSockets::pairs:
      options.unix_sockets = seccomp::UnixSockets::pairs;
      break;
    case sandbox::UnixSockets::deny:
      options.unix_sockets = seccomp::UnixSockets::deny;
      break;
  }
  return options;
}

std::optional<std::string> locate_bwrap() {
  // NOLINTNEXTLINE(concurrency-mt-unsafe): read once, single-threaded here
  if (const char* override_path = std::getenv("HOLDFAST_BWRAP"); override_path && *override_path) {
    if (::access(override_path, X_OK) == 0) return std::string(override_path);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");  // NOLINT(concurrency-mt-unsafe)
  // Only an unset PATH means the default directories; an empty one names
  // none (as for execvp, which would search nothing but the cwd, never used).
  std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty() || dir.front() != '/') continue;  // never a relative PATH entry
    const std::string candidate = dir + "/bwrap";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

LaunchPlan plan_launch(const LaunchRequest& request) {
  LaunchPlan plan;
  auto start = Clock::now();
  plan.scope_paths = settings::scope_paths_from_environment(request.workspace);
  plan.snapshot = settings::take_snapshot(plan.scope_paths, request.snapshot_options);
  plan.timings.snapshot = since(start);

  start = Clock::now();
  plan.policy = sandbox::policy_from_settings(plan.snapshot.effective);
  sandbox::FactsRequest facts_request;
  facts_request.workspace = request.workspace;
  facts_request.cwd = request.cwd;
  facts_request.scope_paths = plan.scope_paths;
  facts_request.state_dir = request.state_dir;
  for (const auto& file : plan.snapshot.scopes) {
    if (!file.exists || !settings::is_operator_scope(file.scope)) continue;
    facts_request.settings_files.emplace_back(
        file.path, sandbox::FileId{file.identity.device, file.identity.inode});
  }
  plan.facts = sandbox::gather_host_facts(plan.policy, facts_request);
  plan.mounts = sandbox::plan_mounts(plan.policy, plan.facts);
  if (request.will_run) {
    plan.bind_sources = open_bind_sources(plan.mounts.bind_sources, plan.facts.identities);
  }
  // One per denied file: bubblewrap reads each to its end and closes it.
  for (std::size_t i = 0; i < plan.mounts.empty_files; ++i) {
    plan.empty_file_fds.emplace_back(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!plan.empty_file_fds.back().valid()) {
      throw base::SystemError("cannot open", "/dev/null", errno);
    }
  }
  plan.timings.policy = since(start);

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
  build.bwrap_path = request.bwrap_path;
  build.seccomp_fd = plan.gate ? plan.gate->program_fd() : plan.seccomp_fd.get();
  for (const auto& fd : plan.empty_file_fds) build.empty_file_fds.push_back(fd.get());
  if (request.will_run) build.bind_fds = plan.bind_sources.by_path;
  plan.argv =
      sandbox::build_bwrap_args(plan.policy, plan.facts, plan.mounts, request.command, build);
  plan.timings.policy += since(start);
  return plan;
}

}  // namespace holdfast::launcher
