#include "launcher/sandbox/explain.hpp"

#include <sstream>

#include "launcher/sandbox/admission.hpp"
#include "launcher/sandbox/protection_explain.hpp"
#include "launcher/sandbox/resolve.hpp"

namespace holdfast::sandbox {

namespace {

std::string from(const std::optional<settings::Scope>& scope) {
  if (!scope) return "built-in default";
  return std::string(settings::scope_name(*scope)) + " scope";
}

}  // namespace

// What the command can reach through AF_UNIX sockets.
std::string unix_sockets_reach(const Policy& policy) {
  switch (policy.unix_sockets) {
    case UnixSockets::pairs:
      return "socketpair() gives connected stream and seqpacket pairs for local IPC; "
             "socket(AF_UNIX) and datagram pairs are refused by the seccomp filter, so no host "
             "Unix socket is reachable (D-Bus, systemd, container runtimes, ssh-agent, "
             "/run/user) and none can be bound inside";
    case UnixSockets::deny:
      return "no AF_UNIX socket at all, not even socketpair() (seccomp); no host Unix socket is "
             "reachable";
    case UnixSockets::allow:
      break;
  }
  return std::string(
             "AF_UNIX sockets are not restricted: every host Unix socket the filesystem "
             "policy lets the command see is reachable (D-Bus, systemd, container "
             "runtimes, ssh-agent, /run/user: deny their directories to hide them)") +
         (policy.network == Network::open ? ", and the host's abstract sockets too" : "");
}

std::string describe_limits(const Limits& limits) {
  std::string out = "each private tmpfs (/tmp, /dev/shm) " + std::to_string(limits.tmpfs_mib) +
                    " MiB; processes ";
  out += limits.processes ? std::to_string(*limits.processes) +
                                " (RLIMIT_NPROC: all of the caller's processes and threads on "
                                "the host count; refused for root)"
                          : "not limited by the policy (the caller's own limit applies)";
  out += "; memory per process ";
  out += limits.memory_mib ? std::to_string(*limits.memory_mib) + " MiB (RLIMIT_DATA)"
                           : "not limited by the policy";
  out += "; CPU time per process ";
  out += limits.cpu_seconds ? std::to_string(*limits.cpu_seconds) + " s (RLIMIT_CPU, then SIGKILL)"
                            : "not limited by the policy";
  return out;
}

std::string explain(const Policy& policy, const HostFacts* facts) {
  std::ostringstream out;
  out << "policy " << policy_digest(policy) << "\n";
  if (policy.form == PolicyForm::builtin_default) {
    out << "no operator scope sets tools.executionSandbox: the built-in default applies "
           "(workspace-write, network closed)\n";
  } else {
    out << "form: " << form_name(policy.form);
    if (!policy.simple_filesystem.empty()) out << " (" << policy.simple_filesystem << ")";
    out << ", filesystem from " << from(policy.filesystem_origin) << "\n";
  }
  if (!policy.backend.empty()) {
    out << "backend: \"" << policy.backend << "\" accepted; holdfast always uses bubblewrap\n";
  }
  out << "network: " << network_name(policy.network) << " (from " << from(policy.network_origin)
      << ")" << (policy.network == Network::closed ? ": empty network namespace" : "") << "\n";
  out << "unix sockets: " << unix_sockets_name(policy.unix_sockets) << " ("
      << (policy.unix_sockets_origin
              ? "from " + from(policy.unix_sockets_origin)
              : "default with the network " + std::string(network_name(policy.network)))
      << "): " << unix_sockets_reach(policy) << "\n";
  out << "limits (from " << from(policy.limits_origin) << "): " << describe_limits(policy.limits)
      << "\n";
  out << "always: a fresh /proc, read-only as a whole (no host knob under it is writable, not "
         "even for root), a fresh /dev that is read-only but for /dev/pts and /dev/shm, every "
         "mount nosuid, no set-user-ID or set-group-ID mode bits (seccomp), bubblewrap started "
         "with the command's environment only\n";
  out << "filesystem entries (longest path wins; ties deny > write > read; unmatched paths are "
         "denied):\n";
  for (const auto& entry : policy.filesystem) {
    out << "  " << entry.written << ": " << access_name(entry.access) << "  (from "
        << from(entry.origin) << ")\n";
  }
  if (facts == nullptr) return out.str() + explain_protection(policy, nullptr);

  out << "on this host (workspace " << facts->workspace.canonical << ", cwd "
      << facts->cwd.canonical << "):\n";
  const auto refusals = check_admission(policy, *facts);
  if (!refusals.empty()) {
    out << "the launch is refused:\n";
    for (const auto& refusal : refusals) out << "  " << refusal.to_string() << "\n";
    return out.str();
  }
  for (const auto& rule : build_rules(policy, *facts)) {
    out << "  " << rule.path << ": " << access_name(rule.access);
    if (rule.source == RuleSource::private_tmp) {
      out << "  (private /tmp: an empty tmpfs, host content hidden)";
    } else if (rule.source == RuleSource::entry) {
      out << "  (entry \"" << rule.entry << "\")";
    } else {
      out << "  (" << rule_source_name(rule.source) << ", from " << rule.entry << ")";
    }
    if (rule.kind == Kind::missing) out << "  [does not exist]";
    out << "\n";
  }
  return out.str() + explain_protection(policy, facts);
}

}  // namespace holdfast::sandbox
