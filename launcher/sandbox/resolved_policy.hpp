// One launch's policy read against its host, once: every entry expanded
// and given the facts of its path, every rule built (resolve.hpp) and
// collapsed to one per path, and admission's verdict (admission.hpp) on
// them. The mount plan, the launch's later checks (the bubblewrap's
// directories, descriptors 0-2, the launch record) and --explain all read
// this one value; nothing expands the entries or builds the rules again.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "launcher/sandbox/host_facts.hpp"
#include "launcher/sandbox/policy.hpp"
#include "launcher/sandbox/refusal.hpp"
#include "launcher/sandbox/resolve.hpp"

namespace holdfast::sandbox {

struct ResolvedPolicy {
  // Every operator entry at every path it names, in policy order.
  std::vector<ExpandedEntry> entries;
  // Every rule, explicit then implicit (empty when the launch was refused
  // before they could be built: no workspace directory, an entry that
  // names nothing).
  std::vector<Rule> rules;
  // The same, one per path with ties decided: what the mounts implement.
  std::map<std::string, Rule> by_path;
  Limits limits;
  // A network allow-list puts the launch's resolv.conf over the host's
  // (network_inside.hpp): a mount of its own in the plan.
  bool stub_resolv_conf = false;
  // Why the launch may not start; empty: it may.
  std::vector<Refusal> refusals;

  bool admitted() const { return refusals.empty(); }
  // What the sandbox may do at `path` (by_path, longest match).
  Access access_at(std::string_view path) const { return resolve_by_path(by_path, path).access; }
};

// Pure. Throws std::logic_error when `facts` were gathered for another
// policy; every other problem is a refusal.
ResolvedPolicy resolve_policy(const Policy& policy, const HostFacts& facts);

// resolve_policy's refusals alone.
std::vector<Refusal> check_admission(const Policy& policy, const HostFacts& facts);

}  // namespace holdfast::sandbox
