// Pure path → access resolution. The policy's entries become rules on
// canonical host paths (plus the implicit ones: protected names, the
// repositories below writable roots, a .git file's gitdir, the paths git's
// configuration names, the credential stores, the operator settings
// directories, holdfast's state directory, the private /tmp, and for the
// mounts below bound paths those of submounts.hpp);
// a path's access is that of the longest rule path containing it, ties
// going deny > write > read; a path no rule contains is denied.
//
// This function is the specification the bubblewrap argv must implement:
// the differential test compares it with what a real sandbox allows.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/sandbox/host_facts.hpp"
#include "launcher/sandbox/policy.hpp"

namespace holdfast::sandbox {

enum class RuleSource {
  entry,            // an operator entry
  protected_name,   // .git / .holdfast under a writable root: read
  gitdir,           // the target of a protected .git file's gitdir:: read
  operator_dir,     // holdfast's operator settings directory under a writable root: read
  private_tmp,      // /tmp is a private tmpfs; host content there is denied
  nested_repo,      // the .git of a repository below a writable root: read
  state_dir,        // holdfast's state directory (launch records, presence memory): deny
  protected_below,  // a protected name below a writable root (its target, for a symlink): read
  bare_repo,        // a bare repository below a writable root: read
  git_config,       // a path git's configuration names (hooks, include, program): read
  credential,       // a credential store: deny
  credential_kept,  // a path inside a hidden credential store that stays as it was
  kernel_mount,     // a kernel interface (proc, sysfs, ...) mounted below a bound path: deny
  submount,         // a mount below a writable path that the policy does not name: read
  denied_alias,     // a denied path shown again elsewhere by a bind mount: deny
  special_file,     // a host special file that takes requests (kMaskedSpecialFiles): deny
};

// A rule that keeps a repository's git data read-only (git runs what it says).
constexpr bool protects_repository(RuleSource source) {
  return source == RuleSource::protected_name || source == RuleSource::nested_repo;
}

std::string_view rule_source_name(RuleSource source);

struct Rule {
  std::string path;  // canonical
  Access access = Access::deny;
  RuleSource source = RuleSource::entry;
  std::string entry;  // the entry as written; for implicit rules what caused them
  Kind kind = Kind::missing;
  bool operator==(const Rule&) const = default;
};

struct Resolution {
  Access access = Access::deny;
  const Rule* rule = nullptr;  // nullptr: nothing matched (denied)
};

// Longest match wins; ties deny > write > read; unmatched = deny.
Resolution resolve(const std::vector<Rule>& rules, std::string_view path);
// The same answer from the collapsed rules (collapse()): the rule of the
// deepest path at or above `path`, found by walking up, not by a scan.
Resolution resolve_by_path(const std::map<std::string, Rule>& rules, std::string_view path);

// One operator entry at one path it names (":minimal" names several), with
// what the host has there.
struct ExpandedEntry {
  std::string path;  // as expanded, before symlinks are resolved
  Access access = Access::deny;
  std::string written;  // the entry as the operator wrote it
  PathFacts facts;      // facts.at(path)
};

// Every entry of `policy` at every path it names, in policy order. Throws
// Refused for ":home" without a home; std::logic_error when `facts` were
// gathered for another policy.
std::vector<ExpandedEntry> expand_entries(const Policy& policy, const HostFacts& facts);

// All rules, explicit (from `entries`) then implicit, for this host. Pure.
std::vector<Rule> build_rules(const std::vector<ExpandedEntry>& entries, const Policy& policy,
                              const HostFacts& facts);
// The same from the policy's entries, expanded here (for tests and benches:
// a launch expands once, resolve_policy in resolved_policy.hpp).
std::vector<Rule> build_rules(const Policy& policy, const HostFacts& facts);

// One rule per path: the tie order decides, and an operator entry is kept
// over an implicit rule of equal access (for messages).
std::map<std::string, Rule> collapse(const std::vector<Rule>& rules);

}  // namespace holdfast::sandbox
