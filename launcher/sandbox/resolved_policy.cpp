#include "launcher/sandbox/resolved_policy.hpp"

#include "launcher/sandbox/admission.hpp"

namespace holdfast::sandbox {

ResolvedPolicy resolve_policy(const Policy& policy, const HostFacts& facts) {
  ResolvedPolicy resolved;
  resolved.limits = policy.limits;
  resolved.stub_resolv_conf = policy.network == Network::allow_list;
  check_workspace_admission(facts, resolved.refusals);
  if (!workspace_holds_rules(facts)) return resolved;  // refused just now
  try {
    resolved.entries = expand_entries(policy, facts);
  } catch (const Refused& refused) {
    // ":home" without a home, a control character in a path: said as is.
    const auto& more = refused.refusals();
    resolved.refusals.insert(resolved.refusals.end(), more.begin(), more.end());
    return resolved;
  }
  resolved.rules = build_rules(resolved.entries, policy, facts);
  resolved.by_path = collapse(resolved.rules);
  check_rule_admission(resolved, facts, resolved.refusals);
  return resolved;
}

std::vector<Refusal> check_admission(const Policy& policy, const HostFacts& facts) {
  return resolve_policy(policy, facts).refusals;
}

}  // namespace holdfast::sandbox
