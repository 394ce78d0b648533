// Human-readable account of the effective confinement: the form, every part
// and the settings scope it came from (or "built-in default"), and, when
// host facts are given, the canonical rules they turn into on this host and
// any refusal.
#pragma once

#include <string>

#include "launcher/sandbox/host_facts.hpp"
#include "launcher/sandbox/policy.hpp"
#include "launcher/sandbox/resolved_policy.hpp"

namespace holdfast::sandbox {

// With `resolved` from resolve_policy(policy, facts): what a launch planned.
std::string explain(const Policy& policy, const HostFacts& facts, const ResolvedPolicy& resolved);
// Without host facts: the policy alone; with them, resolved here.
std::string explain(const Policy& policy, const HostFacts* facts = nullptr);
// The policy's own part (no host): its form, every part and its origin.
std::string explain_policy(const Policy& policy);
// A network allow-list: how it works, then every entry with its port and
// the scope that wrote it.
std::string explain_network_rules(const network::NetworkRules& rules);

// The parts of explain() a view shows on its own: what the command can
// reach through AF_UNIX sockets under `policy`, and its limits in words.
std::string unix_sockets_reach(const Policy& policy);
std::string describe_limits(const Limits& limits);

}  // namespace holdfast::sandbox
