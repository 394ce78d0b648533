// The protected names and the credential stores in words, for --explain:
// each with its reason and origin, what was lifted and by which scope, and,
// on a host, what was found, hidden, and what the launch could not cover.
#pragma once

#include <string>

#include "launcher/sandbox/host_facts.hpp"
#include "launcher/sandbox/policy.hpp"
#include "launcher/sandbox/resolve.hpp"

namespace holdfast::sandbox {

// Lines ending in "\n". With `facts` and the `rules` built on them (both
// not null), also what this host has.
std::string explain_protection(const Policy& policy, const HostFacts* facts,
                               const std::vector<Rule>* rules);

}  // namespace holdfast::sandbox
