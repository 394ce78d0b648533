// The network allow-list as the policy writes it:
//
//   "tools.executionSandbox.network": {"allow": ["github.com", "**.npmjs.org",
//                                               "api.example.com:8443"],
//                                     "deny": ["gist.github.com"]}
//
// each entry a host rule (host_rule.hpp). Parsed per scope, so every entry
// keeps the scope that wrote it.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "launcher/network/host_rule.hpp"

namespace holdfast::network {

struct NetworkRules {
  std::vector<HostRule> allow;
  std::vector<HostRule> deny;
};

// VALUE must be an object with "allow" and/or "deny", each an array of
// entry strings, and nothing else. ORIGIN is recorded in every entry. A
// bad value throws InvalidHostRule whose message starts with where it is:
// "WHERE.allow[2]: \"*.com\": a wildcard over a single label ...".
NetworkRules parse_network_rules(const nlohmann::json& value, std::string_view origin,
                                 std::string_view where = "tools.executionSandbox.network");

}  // namespace holdfast::network
