// Human-readable account of the effective confinement: the form, every part
// and the settings scope it came from (or "built-in default"), and, when
// host facts are given, the canonical rules they turn into on this host and
// any refusal.
#pragma once

#include <string>

#include "launcher/sandbox/host_facts.hpp"
#include "launcher/sandbox/policy.hpp"

namespace holdfast::sandbox {

std::string explain(const Policy& policy, const HostFacts* facts = nullptr);

}  // namespace holdfast::sandbox
