#include "launcher/doctor/doctor.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "base/fd.hpp"
#include "base/name_table.hpp"
#include "base/process.hpp"
#include "base/system_error.hpp"
#include "launcher/doctor/network_canary.hpp"
#include "launcher/landlock/landlock_plan.hpp"
#include "launcher/landlock/second_layer.hpp"
#include "launcher/run/bubblewrap.hpp"
#include "launcher/run/cgroup.hpp"
#include "launcher/run/launch.hpp"
#include "launcher/run/launch_plan.hpp"
#include "launcher/seccomp/filter.hpp"
#include "launcher/seccomp/program.hpp"
#include "settings/presence.hpp"
#include "settings/snapshot.hpp"
#include "settings/strict_modes.hpp"

namespace holdfast::doctor {

namespace {

// Runs `argv` with stdout and stderr captured together, and `fds` given
// to it. A program that cannot be started counts as failed, with the
// reason as its output.
base::Captured run_process_with(const std::vector<std::string>& argv,
                                const std::vector<base::FdMapping>& fds) {
  try {
    return base::run_captured({argv, std::nullopt, {}, fds}, base::Stderr::into_stdout);
  } catch (const base::SystemError& e) {
    base::Captured failed;
    failed.out = e.what();
    return failed;
  }
}

std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

constexpr NameRow<Verdict> kVerdictNames[] = {
    {Verdict::ok, "ok"}, {Verdict::warning, "warning"}, {Verdict::fatal, "fatal"}};

std::string_view verdict_name(Verdict v) { return name_in(kVerdictNames, v); }

}  // namespace

std::vector<int> parse_version(const std::string& text) {
  std::vector<int> parts;
  std::istringstream in(text);
  std::string part;
  while (std::getline(in, part, '.')) {
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) return {};
    parts.push_back(std::stoi(part));
  }
  return parts;
}

namespace {

// The settings a launch would read, or the built-in defaults when they
// cannot be read (the settings findings say why; the bubblewrap is then
// the build-time default).
settings::Effective effective_settings(const settings::ScopePaths& paths) {
  try {
    return settings::take_snapshot(paths).effective;
  } catch (const std::exception&) {
    return {};
  }
}

// Runs the judged bubblewrap itself, through its descriptor (as a launch
// executes it), never a path looked up again.
base::Captured run_trusted(const launcher::TrustedExecutable& bwrap, const std::string& option) {
  const int fd = bwrap.fd.get();
  return run_process_with({"/proc/self/fd/" + std::to_string(fd), option}, {{fd, fd}});
}

}  // namespace

Finding check_bubblewrap(const settings::ScopePaths& paths) {
  Finding f{"bubblewrap", Verdict::ok, "", ""};
  const settings::Effective effective = effective_settings(paths);
  const launcher::BubblewrapLookup found = launcher::find_bubblewrap(effective);
  const launcher::StartVerdict verdict = launcher::decide_start(found, effective);
  if (verdict.mode == launcher::StartMode::unconfined) {
    f.verdict = Verdict::warning;
    f.summary = verdict.message;
    f.advice = "install bubblewrap (apt-get install bubblewrap): until then nothing is confined";
    return f;
  }
  if (verdict.mode == launcher::StartMode::refused) {
    f.verdict = Verdict::fatal;
    f.summary = verdict.message;
    f.advice = verdict.remedy;
    return f;
  }
  const launcher::TrustedExecutable& bwrap = *found.lookup.executable;
  const base::Captured r = run_trusted(bwrap, "--version");
  const std::string line = first_line(r.out);  // "bubblewrap 0.8.0"
  const auto space = line.rfind(' ');
  const auto version = parse_version(space == std::string::npos ? "" : line.substr(space + 1));
  if (r.status != 0 || version.empty()) {
    f.verdict = Verdict::fatal;
    f.summary = bwrap.path + " --version failed: " + line;
    f.advice = "reinstall bubblewrap";
    return f;
  }
  f.summary = bwrap.path + " (" + found.choice.origin + "): " + line +
              "; trusted: " + bwrap.why_trusted() +
              "; executed through the descriptor it was checked with";
  const auto missing = missing_bubblewrap_options(run_trusted(bwrap, "--help").out);
  if (!missing.empty()) {
    std::string names;
    for (const auto& option : missing) names += (names.empty() ? "" : ", ") + option;
    f.verdict = Verdict::fatal;
    f.summary += "; it lacks " + names +
                 " (every launch uses them: descriptor binds, no nested user namespaces, "
                 "masks, sized tmpfs)";
    f.advice =
        "upgrade bubblewrap to 0.10.0 or newer (Debian 12: 0.8.0-2+deb12u1 or newer from "
        "bookworm-security), or name one with security.bubblewrap in a system scope";
  }
  return f;
}

std::vector<std::string> missing_bubblewrap_options(const std::string& help_text) {
  std::vector<std::string> missing;
  for (const std::string option : kNewerBubblewrapOptions) {
    // An option is listed as "    --name ..." at the start of a line;
    // "--bind" must not be taken for "--bind-fd".
    bool listed = false;
    std::istringstream lines(help_text);
    for (std::string line; std::getline(lines, line);) {
      const auto start = line.find_first_not_of(' ');
      if (start == std::string::npos || line.compare(start, option.size(), option) != 0) continue;
      const auto after = start + option.size();
      if (after == line.size() || line[after] == ' ') listed = true;
    }
    if (!listed) missing.push_back(option);
  }
  return missing;
}

Finding check_trial_launch(const settings::ScopePaths& paths,
                           std::optional<launcher::LaunchPlan>* plan) {
  Finding f{"trial-launch", Verdict::ok, "", ""};
  const std::string max = read_first_line("/proc/sys/user/max_user_namespaces");
  if (max == "0") {
    f.verdict = Verdict::fatal;
    f.summary = "user.max_user_namespaces is 0: bubblewrap cannot create a sandbox";
    f.advice = "sysctl -w user.max_user_namespaces=15000 (and persist it in /etc/sysctl.d)";
    return f;
  }
  if (!paths.workspace) {
    f.verdict = Verdict::fatal;
    f.summary = "cannot try a launch without a workspace";
    f.advice = "name one with --workspace";
    return f;
  }
  // The launch `holdfast run -- /bin/true` makes in this workspace: the
  // same snapshot, policy, admission, descriptor binds, start gate and
  // seccomp program; only no launch record. bubblewrap's messages are kept
  // to be shown here.
  const base::UniqueFd output(::memfd_create("holdfast-doctor-trial", MFD_CLOEXEC));
  if (!output.valid()) {
    f.verdict = Verdict::fatal;
    f.summary =
        std::string("cannot create a memfd for the trial's output: ") + std::strerror(errno);
    return f;
  }
  launcher::LaunchOptions trial;
  trial.workspace = *paths.workspace;
  trial.cwd = *paths.workspace;
  trial.command = {"/bin/true"};
  trial.state_dir = paths.state_dir;
  trial.record = false;
  trial.stdout_fd = output.get();
  trial.stderr_fd = output.get();
  try {
    launcher::LaunchResult result = launcher::launch(trial);
    const auto keep_plan = [&] {
      if (plan != nullptr) plan->emplace(std::move(result.plan));
    };
    if (result.exit_status == 0) {
      f.summary = "holdfast run -- /bin/true in " + trial.workspace.string() +
                  " started and exited 0 (user, pid, ipc, uts" +
                  (result.plan.policy.network == sandbox::Network::closed ? ", net" : "") +
                  " namespaces; seccomp program " +
                  (result.plan.seccomp_baked ? "baked at build time" : "built at launch") +
                  "; every mount checked at the start gate)";
      keep_plan();
      return f;
    }
    // bwrap and the command wrote through copies of this descriptor, so its
    // offset is at their end: read it again from the start.
    std::string said;
    if (::lseek(output.get(), 0, SEEK_SET) == 0) {
      try {
        said = base::read_all(output.get(), "the trial's output");
      } catch (const base::SystemError&) {
        // the summary goes without bwrap's words
      }
    }
    f.verdict = Verdict::fatal;
    const std::string failure = launcher::describe_failure(result);
    f.summary = "holdfast run -- /bin/true failed (exit " + std::to_string(result.exit_status) +
                ")" + (said.empty() ? "" : ": " + first_line(said)) +
                (failure.empty() ? "" : "; " + failure);
    f.advice =
        "allow unprivileged user namespaces (kernel.unprivileged_userns_clone=1, "
        "user.max_user_namespaces>0, or an AppArmor profile for bwrap), or run inside a "
        "container that permits them";
    keep_plan();
  } catch (const launcher::NoTrustedBubblewrap& missing) {
    // run's own verdict (decide_start), not a guess of doctor's.
    const launcher::StartVerdict verdict =
        launcher::decide_start(missing.bubblewrap(), missing.effective());
    f.verdict = verdict.mode == launcher::StartMode::unconfined ? Verdict::warning : Verdict::fatal;
    f.summary = verdict.mode == launcher::StartMode::unconfined
                    ? "nothing to try: holdfast run -- /bin/true would run UNCONFINED here"
                    : "holdfast run would refuse here: " + first_line(verdict.message);
    f.advice =
        verdict.mode == launcher::StartMode::unconfined ? "install bubblewrap" : verdict.remedy;
  } catch (const std::exception& e) {
    f.verdict = Verdict::fatal;
    f.summary = "holdfast run would refuse here: " + first_line(e.what());
    f.advice = "see the message (holdfast run --explain -- /bin/true shows the whole plan)";
  }
  return f;
}

Finding check_seccomp() {
  Finding f{"seccomp", Verdict::ok, "", "", nullptr};
  const int mode = ::prctl(PR_GET_SECCOMP);
  if (mode < 0) {
    f.verdict = Verdict::fatal;
    f.summary = "the kernel has no seccomp (prctl PR_GET_SECCOMP failed)";
    f.advice = "use a kernel built with CONFIG_SECCOMP_FILTER";
    return f;
  }
  // What a launch loads: the programs baked at build time; libseccomp
  // (linked in) compiles only options the build did not bake, and the
  // trial launch above loaded the program of this workspace's policy.
  const std::size_t baked = seccomp::baked_programs().size();
  const std::string version = std::to_string(seccomp_version()->major) + "." +
                              std::to_string(seccomp_version()->minor) + "." +
                              std::to_string(seccomp_version()->micro);
  f.summary = "filter mode available; " +
              (baked > 0 ? std::to_string(baked) + " programs baked at build time"
                         : std::string("no program baked at build time: each launch builds "
                                       "its own")) +
              " (libseccomp " + version + ")";
  if (mode != 0) {
    f.summary += "; holdfast itself already runs under seccomp mode " + std::to_string(mode);
  }
  if (baked == 0) {
    try {
      seccomp::program_for({});
    } catch (const std::exception& e) {
      f.verdict = Verdict::fatal;
      f.summary =
          std::string("no baked program, and the seccomp filter cannot be built: ") + e.what();
      f.advice = "install libseccomp2 2.5 or newer";
    }
  }
  return f;
}

Finding check_apparmor_userns() {
  Finding f{"apparmor-userns", Verdict::ok, "", "", nullptr};
  const std::string value =
      read_first_line("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  if (value.empty()) {
    f.summary = "no AppArmor restriction on unprivileged user namespaces";
  } else if (value == "0") {
    f.summary = "kernel.apparmor_restrict_unprivileged_userns = 0 (not restricted)";
  } else {
    f.verdict = Verdict::warning;
    f.summary = "kernel.apparmor_restrict_unprivileged_userns = " + value +
                ": unprivileged user namespaces need an AppArmor profile for bwrap";
    f.advice =
        "install an AppArmor profile that grants bwrap 'userns', or see the "
        "trial-launch check for whether launches work";
  }
  return f;
}

Finding check_landlock(const launcher::LaunchPlan* plan) {
  Finding f{"landlock", Verdict::ok, "", "", nullptr};
  std::string why;
  const int kernel = landlock::kernel_abi(&why);
  const int used = plan != nullptr ? plan->landlock_abi : std::min(kernel, landlock::kNewestAbi);
  const bool required = plan != nullptr && plan->landlock_required;
  f.claims = {{"kernel_abi", kernel}, {"abi", used}, {"applied", used > 0}, {"required", required}};
  if (used == 0) {
    f.summary = "Landlock not available (" + (kernel == 0 ? why : "this build has no helper") +
                "): launches rely on the mounts alone" +
                (required ? "; an operator requires it (security.requireLandlock), so launches "
                            "are refused"
                          : "");
    if (required) {
      f.verdict = Verdict::fatal;
      f.advice = "run on a kernel with Landlock, or remove security.requireLandlock";
    }
    return f;
  }
  f.summary = "Landlock ABI " + std::to_string(kernel) +
              ": every launch applies the plan's "
              "rules as a second layer inside the sandbox, using " +
              landlock::abi_coverage(used) +
              (required ? "; required by an operator scope"
                        : "; best effort (security.requireLandlock "
                          "would refuse hosts without it)");
  return f;
}

std::vector<Finding> check_settings_scopes(const settings::ScopePaths& paths,
                                           settings::Snapshot* merged) {
  std::vector<Finding> findings;
  // One reading of every scope, as the snapshot reader settles it, invalid
  // files kept so that each can be shown; ownership is judged per file
  // below, and then the same reading is merged as a launch would.
  settings::SnapshotOptions read;
  read.keep_invalid = true;
  read.strict_modes = false;
  std::optional<settings::Snapshot> reading;
  try {
    reading = settings::read_scopes_consistently(paths, read);
  } catch (const std::exception& e) {
    findings.push_back(Finding{"settings:scopes", Verdict::fatal, e.what(),
                               "see the message; holdfast never reads a missing or damaged "
                               "policy file as \"no settings\"",
                               nullptr});
  }
  const settings::PresenceMemory memory(paths.state_dir);
  std::string unsafe_files;
  for (const auto& file : reading ? reading->scopes : std::vector<settings::ScopeFile>{}) {
    const std::string& path = file.path.string();
    Finding f{"settings:" + std::string(settings::scope_name(file.scope)), Verdict::ok, "", "",
              nullptr};
    if (!file.exists) {
      f.summary = path + ": absent";
    } else if (!file.valid()) {
      f.verdict = Verdict::fatal;
      f.summary = path + ": invalid";
      for (const auto& d : file.diagnostics) {
        if (d.severity == settings::Severity::error) f.summary += "\n    " + d.to_string();
      }
      f.advice = "fix the file; holdfast never rewrites or resets it";
    } else if (auto unsafe = settings::is_operator_scope(file.scope)
                                 ? settings::check_strict_modes(file.path, file.identity.owner,
                                                                file.identity.mode, ::getuid())
                                 : std::nullopt) {
      f.verdict = Verdict::fatal;
      f.summary = path + ": unsafe";
      f.advice = unsafe->what();
      unsafe_files += (unsafe_files.empty() ? "" : ", ") + path;
    } else {
      f.summary = path + ": valid, revision " + std::to_string(file.revision);
    }
    if (memory.remembers(file.path)) {
      f.summary += " (remembered: if it goes missing, readers wait for it, then refuse)";
    }
    findings.push_back(std::move(f));
  }
  // The whole reading, as a launch would take it (required policy, ...).
  Finding snapshot{"settings:snapshot", Verdict::ok, "", "", nullptr};
  try {
    if (!reading) throw settings::SnapshotError("the settings could not be read (see above)");
    if (!unsafe_files.empty()) {
      throw settings::SnapshotError(
          "a launch refuses settings files others could write: " + unsafe_files + " (see above)");
    }
    settings::merge_snapshot(*reading);
    const auto& effective = reading->effective.value;
    const bool has_policy =
        effective.contains("tools") && effective["tools"].contains("executionSandbox");
    snapshot.summary = "digest " + reading->digest.substr(0, 16) + "; policy from " +
                       (has_policy ? "an operator scope"
                                   : "the built-in default "
                                     "(workspace-write, network closed)");
    if (merged != nullptr) *merged = std::move(*reading);
  } catch (const std::exception& e) {
    snapshot.verdict = Verdict::fatal;
    snapshot.summary = e.what();
    snapshot.advice = "see the message; `holdfast settings validate` lists every problem";
  }
  findings.push_back(std::move(snapshot));
  return findings;
}

Finding check_unix_sockets(const sandbox::Policy& policy) {
  Finding f{"unix-sockets", Verdict::ok, "", "", nullptr};
  const std::string setting =
      "unixSockets: " + std::string(sandbox::unix_sockets_name(policy.unix_sockets)) +
      (policy.unix_sockets_origin ? "" : " (the default for the network)");
  if (policy.unix_sockets != sandbox::UnixSockets::allow) {
    f.summary = setting + ": no host Unix socket is reachable from inside" +
                (policy.unix_sockets == sandbox::UnixSockets::pairs
                     ? "; socketpair() still gives the command connected pairs"
                     : "");
    return f;
  }
  // The sockets that matter most when reachable, where they usually are.
  std::vector<std::string> candidates = {"/run/docker.sock",
                                         "/var/run/docker.sock",
                                         "/run/containerd/containerd.sock",
                                         "/run/podman/podman.sock",
                                         "/run/dbus/system_bus_socket",
                                         "/run/systemd/private",
                                         "/run/systemd/journal/socket"};
  const std::string runtime = "/run/user/" + std::to_string(::getuid());
  for (const char* name : {"/bus", "/docker.sock", "/podman/podman.sock", "/gnupg/S.gpg-agent"}) {
    candidates.push_back(runtime + name);
  }
  // NOLINTNEXTLINE(concurrency-mt-unsafe): read once
  if (const char* agent = std::getenv("SSH_AUTH_SOCK"); agent != nullptr && *agent == '/') {
    candidates.emplace_back(agent);
  }
  std::string found;
  for (const auto& path : candidates) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) found += " " + path;
  }
  f.verdict = Verdict::warning;
  f.summary = setting +
              ": every host Unix socket the filesystem policy lets the command see is "
              "reachable" +
              (found.empty() ? std::string(" (none of the well-known ones exists here)")
                             : "; among them:" + found) +
              (policy.network == sandbox::Network::open ? "; with the network open, the host's "
                                                          "abstract sockets too"
                                                        : "");
  f.advice =
      "leave unixSockets unset (or \"pairs\") unless the command must talk to a host "
      "service, and deny the directories of the sockets it must not reach";
  return f;
}

nlohmann::json confinement_claims(const launcher::LaunchPlan& plan) {
  using K = sandbox::MountOp::Kind;
  const auto& ops = plan.mounts.ops;
  const auto has = [&](K kind, const std::string& path) {
    return std::any_of(ops.begin(), ops.end(), [&](const sandbox::MountOp& op) {
      return op.kind == kind && op.path == path;
    });
  };
  const auto size_mib = [&](const std::string& path) -> nlohmann::json {
    for (const auto& op : ops) {
      if (op.kind == K::tmpfs && op.path == path && !op.size.empty()) {
        return std::stoull(op.size) / (1024 * 1024);
      }
    }
    return nullptr;
  };
  nlohmann::json claims;
  claims["proc"] = {{"fresh", has(K::proc, "/proc")}, {"read_only", has(K::remount_ro, "/proc")}};
  claims["dev"] = {{"fresh", has(K::dev, "/dev")},
                   {"read_only", has(K::remount_ro, "/dev")},
                   {"shm_mib", size_mib("/dev/shm")}};
  // /tmp: what the rule there makes of it.
  nlohmann::json tmp = {{"kind", "hidden"}, {"writable", false}, {"size_mib", nullptr}};
  if (const auto it = plan.mounts.rules.find("/tmp"); it != plan.mounts.rules.end()) {
    const sandbox::Rule& rule = it->second;
    if (rule.source == sandbox::RuleSource::private_tmp) {
      tmp = {{"kind", "private"}, {"writable", true}, {"size_mib", size_mib("/tmp")}};
    } else if (rule.access != sandbox::Access::deny) {
      tmp = {{"kind", "host"},
             {"writable", rule.access == sandbox::Access::write},
             {"size_mib", nullptr}};
    }
  }
  claims["tmp"] = tmp;
  const bool own_network =
      std::find(plan.argv.begin(), plan.argv.end(), "--unshare-net") != plan.argv.end();
  claims["network"] = own_network ? "closed" : "open";
  claims["unix_sockets"] = std::string(sandbox::unix_sockets_name(plan.policy.unix_sockets));
  claims["landlock_abi"] = plan.landlock_abi;
  std::vector<std::string> masked;
  std::vector<std::string> read_only;
  std::vector<std::string> aliases;
  for (const auto& [path, rule] : plan.mounts.rules) {
    if (rule.source == sandbox::RuleSource::kernel_mount) masked.push_back(path);
    if (rule.source == sandbox::RuleSource::submount) read_only.push_back(path);
    if (rule.source == sandbox::RuleSource::denied_alias) aliases.push_back(path);
  }
  claims["kernel_mounts_masked"] = masked;
  claims["mounts_made_read_only"] = read_only;
  claims["denied_aliases_masked"] = aliases;
  const auto& limits = plan.policy.limits;
  claims["limits"] = {
      {"processes", limits.processes ? nlohmann::json(*limits.processes) : nlohmann::json()},
      {"memory_mib", limits.memory_mib ? nlohmann::json(*limits.memory_mib) : nlohmann::json()},
      {"cpu_seconds", limits.cpu_seconds ? nlohmann::json(*limits.cpu_seconds) : nlohmann::json()}};
  return claims;
}

Finding check_confinement(const launcher::LaunchPlan& plan, uid_t caller_uid) {
  Finding f{"confinement", Verdict::ok, "", "", confinement_claims(plan)};
  const nlohmann::json& c = f.claims;
  const auto said = [](const nlohmann::json& value) {
    return value.is_boolean() && value.get<bool>();
  };
  std::string out = "in this workspace a launch gets: ";
  out += said(c["proc"]["fresh"])
             ? (said(c["proc"]["read_only"]) ? "a fresh, read-only /proc" : "a fresh /proc")
             : "the host's /proc";
  out += said(c["dev"]["fresh"])
             ? std::string(said(c["dev"]["read_only"]) ? ", a fresh, read-only /dev"
                                                       : ", a fresh /dev") +
                   (c["dev"]["shm_mib"].is_number()
                        ? " with a " + std::to_string(c["dev"]["shm_mib"].get<std::uint64_t>()) +
                              " MiB private /dev/shm"
                        : "")
             : ", the host's /dev";
  const nlohmann::json& tmp = c["tmp"];
  if (tmp["kind"] == "private") {
    out += ", a " + std::to_string(tmp["size_mib"].get<std::uint64_t>()) + " MiB private /tmp";
  } else if (tmp["kind"] == "host") {
    out += std::string(", the host's /tmp, ") + (said(tmp["writable"]) ? "writable" : "read-only");
  } else {
    out += ", no /tmp (hidden)";
  }
  out += c["network"] == "closed" ? ", an empty network namespace" : ", the host's network";
  out += ", unixSockets " + c["unix_sockets"].get<std::string>();
  out += c["landlock_abi"].get<int>() > 0
             ? ", Landlock (ABI " + std::to_string(c["landlock_abi"].get<int>()) + ") inside"
             : ", no Landlock";
  for (const auto& [key, words] :
       {std::pair<const char*, const char*>{"kernel_mounts_masked",
                                            "kernel interfaces below bound paths masked"},
        {"mounts_made_read_only", "mounts below writable paths made read-only"},
        {"denied_aliases_masked", "denied paths shown again by bind mounts masked"}}) {
    if (!c[key].empty()) out += ", " + std::to_string(c[key].size()) + " " + words;
  }
  out +=
      ", nosuid mounts, no set-user-ID or set-group-ID mode bits, bubblewrap started with the "
      "command's environment only";
  const auto limit = [&](const char* key, const std::string& unit) {
    return c["limits"][key].is_number()
               ? std::to_string(c["limits"][key].get<std::uint64_t>()) + unit
               : std::string("not limited");
  };
  // Processes and memory are the sandbox's, in its cgroup (check_bounds).
  out += "; CPU time per process " + limit("cpu_seconds", " s");
  f.summary = out;
  if (caller_uid == 0) {
    f.verdict = Verdict::warning;
    f.summary +=
        "; you are root: inside, the command is the host's uid 0 without capabilities, "
        "the owner of every root-owned file a writable mount shows";
    f.advice = "run holdfast as an unprivileged user where you can";
  }
  return f;
}

Finding check_bounds(const sandbox::Policy& policy) {
  Finding f{"bounds", Verdict::ok, "", "", nullptr};
  const launcher::cgroup::Placement placement = launcher::cgroup::find_placement();
  const bool operator_bounds = launcher::cgroup::operator_set(policy.limits);
  f.summary = launcher::cgroup::describe(
      launcher::cgroup::bounds_for(policy.limits, launcher::cgroup::memory_total_bytes()),
      placement, operator_bounds);
  f.summary +=
      "; still shared with the caller's other processes: the per-user kernel limits "
      "(inotify instances and watches, keys, message queues, RLIMIT_NPROC)";
  if (!placement.version) {
    f.verdict = operator_bounds ? Verdict::fatal : Verdict::warning;
    f.advice =
        "give holdfast a cgroup it may manage: run it as root, or in a delegated cgroup "
        "(cgroup v2 with systemd: systemd-run --user --scope -p Delegate=yes holdfast run ...; "
        "cgroup v1: a cgroup of the user's own in the pids and memory hierarchies)";
  }
  return f;
}

bool Report::launch_possible() const {
  for (const auto& f : findings) {
    if (f.verdict == Verdict::fatal) return false;
  }
  return true;
}

nlohmann::json Report::to_json() const {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& f : findings) {
    nlohmann::json check = {{"check", f.check},
                            {"verdict", verdict_name(f.verdict)},
                            {"summary", f.summary},
                            {"advice", f.advice}};
    if (!f.claims.is_null()) check["claims"] = f.claims;
    checks.push_back(std::move(check));
  }
  return {{"launch_possible", launch_possible()}, {"checks", checks}};
}

std::string Report::to_text() const {
  std::string out;
  for (const auto& f : findings) {
    out += "[" + std::string(verdict_name(f.verdict)) + "] " + f.check + ": " + f.summary + "\n";
    if (!f.advice.empty()) out += "    -> " + f.advice + "\n";
  }
  out += launch_possible() ? "holdfast run: launches would go ahead\n"
                           : "holdfast run: launches would be REFUSED (see the fatal checks)\n";
  return out;
}

Finding git_bare_repository_finding(const std::string& git,
                                    const std::vector<std::string>& values) {
  Finding f{"git-bare-repositories", Verdict::ok, "", ""};
  if (git.empty()) {
    f.summary = "git not found on PATH: nothing takes a directory for a bare repository";
    return f;
  }
  // The global configuration is read after the system's: the last value wins.
  std::string value;
  for (const auto& v : values) {
    if (!v.empty()) value = v;
  }
  if (value == "explicit") {
    f.summary =
        "safe.bareRepository = explicit: git uses a bare repository only when told "
        "(--git-dir, GIT_DIR)";
    return f;
  }
  f.verdict = Verdict::warning;
  f.summary = std::string("safe.bareRepository is ") +
              (value.empty() ? "not set (\"all\")" : "\"" + value + "\"") +
              ": git run in a directory with HEAD, objects/ and refs/ takes it for a repository "
              "and obeys its config (core.fsmonitor, hooks), so a confined command that makes "
              "one in the workspace runs code at the next `git status` there (holdfast reports "
              "such a layout when the command ends, and refuses a workspace that has one)";
  f.advice = "git config --global safe.bareRepository explicit (or --system for every user)";
  return f;
}

Finding check_git_bare_repository() {
  std::string git;
  const char* path = std::getenv("PATH");  // NOLINT(concurrency-mt-unsafe)
  std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty() || dir.front() != '/') continue;
    if (::access((dir + "/git").c_str(), X_OK) == 0) {
      git = dir + "/git";
      break;
    }
  }
  std::vector<std::string> values;
  if (!git.empty()) {
    for (const char* scope : {"--system", "--global"}) {
      // From /, outside any repository: only these two files are read.
      base::SpawnRequest request{
          {git, "config", scope, "--get", "safe.bareRepository"}, std::nullopt, "/", {}};
      try {
        values.push_back(first_line(base::run_captured(request).out));
      } catch (const base::SystemError&) {
        values.emplace_back();
      }
    }
  }
  return git_bare_repository_finding(git, values);
}

Finding check_network(const sandbox::Policy* policy) {
  Finding f{"network", Verdict::ok, "", "", nullptr};
  const CanaryResult canary = run_network_canary();
  const bool allow_list = policy != nullptr && policy->network == sandbox::Network::allow_list;
  if (policy == nullptr) {
    f.summary = "no launch could be planned, so no network is claimed; ";
  } else if (allow_list) {
    f.summary = "allow-list with " + std::to_string(policy->network_rules.allow.size()) +
                " allowed and " + std::to_string(policy->network_rules.deny.size()) +
                " denied entries (holdfast run --explain lists them): each launch gets a network "
                "namespace of its own whose only way out is its proxy; ";
  } else {
    f.summary = "network " + std::string(sandbox::network_name(policy->network)) +
                " (an allow-list in tools.executionSandbox.network would give each launch a "
                "filtering proxy); ";
  }
  const bool passed =
      canary.ran && canary.allowed_passed && canary.refused_refused && canary.audit_lines >= 2;
  f.claims = {{"canaryRan", canary.ran},
              {"allowedConnectionPassed", canary.allowed_passed},
              {"unlistedConnectionRefused", canary.refused_refused},
              {"auditLines", canary.audit_lines}};
  if (passed) {
    f.summary +=
        "proxy canary: an allowed connection passed and an unlisted one was refused, "
        "each with its audit line";
    return f;
  }
  f.verdict = allow_list ? Verdict::fatal : Verdict::warning;
  f.summary += "proxy canary FAILED: " +
               (canary.why.empty() ? std::string("the proxy did not decide as its allow-list says")
                                   : canary.why);
  f.advice = canary.ran ? "report this: the launch's proxy does not decide as it should; keep "
                          "the network \"closed\" until it does"
                        : "this host cannot make network namespaces for holdfast (as root, or "
                          "with unprivileged user namespaces); keep the network \"closed\"";
  return f;
}

Report examine_host(const settings::ScopePaths& paths) {
  Report report;
  report.findings.push_back(check_bubblewrap(paths));
  // The trial launch's own plan is what the confinement findings read.
  std::optional<launcher::LaunchPlan> plan;
  Finding trial = check_trial_launch(paths, &plan);
  // A warning without a plan: launches here run unconfined, as allowed.
  const bool unconfined = !plan && trial.verdict == Verdict::warning;
  report.findings.push_back(std::move(trial));
  report.findings.push_back(check_seccomp());
  report.findings.push_back(check_apparmor_userns());
  report.findings.push_back(check_landlock(plan ? &*plan : nullptr));
  report.findings.push_back(check_git_bare_repository());
  for (auto& f : check_settings_scopes(paths)) report.findings.push_back(std::move(f));
  if (plan) {
    report.findings.push_back(check_unix_sockets(plan->policy));
    report.findings.push_back(check_confinement(*plan, ::getuid()));
    report.findings.push_back(check_bounds(plan->policy));
    report.findings.push_back(check_network(&plan->policy));
  } else if (unconfined) {
    report.findings.push_back(check_network(nullptr));
    report.findings.push_back({"policy", Verdict::warning,
                               "launches here run UNCONFINED (see trial-launch): no part of the "
                               "policy is applied",
                               "see the bubblewrap finding", nullptr});
  } else {
    report.findings.push_back({"policy", Verdict::fatal,
                               "no launch could be planned here (see trial-launch), so nothing "
                               "is claimed about its confinement",
                               "see the trial-launch and settings findings", nullptr});
  }
  return report;
}

}  // namespace holdfast::doctor
