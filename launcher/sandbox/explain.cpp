#include "launcher/sandbox/explain.hpp"

#include <sstream>

#include "launcher/sandbox/protection_explain.hpp"

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
                    " MiB; processes and threads of the whole sandbox ";
  out += limits.processes ? std::to_string(*limits.processes)
                          : std::to_string(kDefaultProcesses) + " (the built-in default)";
  out += "; memory of the whole sandbox (tmpfs and /dev/shm files and memfds included) ";
  out += limits.memory_mib ? std::to_string(*limits.memory_mib) + " MiB"
                           : "half of the host's (the built-in default)";
  out += "; CPU time per process ";
  out += limits.cpu_seconds ? std::to_string(*limits.cpu_seconds) + " s (RLIMIT_CPU, then SIGKILL)"
                            : "not limited by the policy";
  out += limits.core_dumps ? "; core files allowed" : "; no core files (RLIMIT_CORE 0)";
  return out;
}

std::string explain(const Policy& policy, const HostFacts* facts) {
  if (facts == nullptr)
    return explain_policy(policy) + explain_protection(policy, nullptr, nullptr);
  return explain(policy, *facts, resolve_policy(policy, *facts));
}

std::string explain_network_rules(const network::NetworkRules& rules) {
  std::ostringstream out;
  out << "  a network namespace of its own (loopback only); the way out is the launch's proxy on "
         "127.0.0.1:3128 (HTTP CONNECT, plain HTTP, SOCKS5; HTTP_PROXY, HTTPS_PROXY, ALL_PROXY "
         "and GIT_SSH_COMMAND point there) and its DNS stub on 127.0.0.1:53\n"
         "  every connection: the name against these entries (deny beats allow), one lookup "
         "outside, no loopback, link-local, metadata, multicast or host address (private "
         "ranges only for private: entries), TLS only with the server name asked for, or SSH\n";
  const auto list = [&](const char* what, const std::vector<network::HostRule>& entries) {
    if (entries.empty()) {
      out << "  " << what << ": none\n";
      return;
    }
    out << "  " << what << ":\n";
    for (const auto& rule : entries) {
      out << "    " << rule.text;
      if (rule.match != network::HostMatch::address) {
        out << "  (" << (rule.port ? "port " + std::to_string(*rule.port) : "every port")
            << (rule.private_allowed ? ", private ranges allowed" : "") << ")";
      }
      out << "  (from " << (rule.origin.empty() ? std::string("built in") : rule.origin) << ")\n";
    }
  };
  list("allow", rules.allow);
  list("deny", rules.deny);
  return out.str();
}

std::string explain_policy(const Policy& policy) {
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
  if (policy.network == Network::allow_list) out << explain_network_rules(policy.network_rules);
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
  return out.str();
}

std::string explain(const Policy& policy, const HostFacts& facts, const ResolvedPolicy& resolved) {
  std::ostringstream out;
  out << explain_policy(policy);
  out << "on this host (workspace " << facts.workspace.canonical << ", cwd " << facts.cwd.canonical
      << "):\n";
  if (!resolved.admitted()) {
    out << "the launch is refused:\n";
    for (const auto& refusal : resolved.refusals) out << "  " << refusal.to_string() << "\n";
    return out.str();
  }
  for (const auto& rule : resolved.rules) {
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
  return out.str() + explain_protection(policy, &facts, &resolved.rules);
}

}  // namespace holdfast::sandbox
