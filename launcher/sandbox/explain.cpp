#include "launcher/sandbox/explain.hpp"

#include <sstream>

#include "launcher/sandbox/admission.hpp"
#include "launcher/sandbox/resolve.hpp"

namespace holdfast::sandbox {

namespace {

std::string from(const std::optional<settings::Scope>& scope) {
  if (!scope) return "built-in default";
  return std::string(settings::scope_name(*scope)) + " scope";
}

}  // namespace

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
  out << "unix sockets: " << unix_sockets_name(policy.unix_sockets) << " (from "
      << from(policy.unix_sockets_origin) << ")"
      << (policy.unix_sockets == UnixSockets::deny ? ": creating AF_UNIX sockets is refused by "
                                                     "the seccomp filter"
                                                   : "")
      << "\n";
  out << "filesystem entries (longest path wins; ties deny > write > read; unmatched paths are "
         "denied):\n";
  for (const auto& entry : policy.filesystem) {
    out << "  " << entry.written << ": " << access_name(entry.access) << "  (from "
        << from(entry.origin) << ")\n";
  }
  if (facts == nullptr) return out.str();

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
  return out.str();
}

}  // namespace holdfast::sandbox
