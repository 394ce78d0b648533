// Protected names: files and directories that something outside the
// sandbox runs or obeys later, as the operator — git's repository and
// configuration, shell start-up files, editors' and coding agents' project
// settings, direnv and version managers. A confined command may write the
// workspace, but not these: they stay read-only in every writable
// directory, and the ones that do not exist cannot be created where the
// tools look first.
//
// How each name is protected, per writable directory root R (an entry with
// write access to a directory: the workspace, the home under ":home"):
//   * existing, at R or in a directory below R that the bounded walk reads
//     (ProtectedNames::scan_limit directories, breadth first; a launch
//     whose walk does not finish is refused): a
//     read-only bind of it;
//   * missing at R, for a name that runs without asking (WhenMissing::guard):
//     an empty read-only directory mounted there, so the command cannot
//     create it (its empty mount point stays on the host for the launch:
//     git, npm and the editors take an empty directory for "nothing here");
//   * missing below R, or a name whose tool asks before it runs a new file
//     (WhenMissing::report): created ones are reported when the command ends
//     (stderr, launch record, --report), not prevented: mounting in every
//     directory would cost a mount and a host mount point each.
// Home names (NameScope::home) apply only where R is the caller's home.
//
// An operator scope adds names and lifts built-in ones (lifting gives the
// command the name back: whoever later opens the project runs what it
// wrote there); a workspace scope may only add (builtin_list.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/sandbox/builtin_list.hpp"

namespace holdfast::sandbox {

enum class NameScope {
  every_directory,  // one path component, looked for in any directory
  home,             // relative to the home directory (may have several components)
};

enum class WhenMissing {
  guard,   // an empty read-only directory at each writable root keeps it from being created
  report,  // its creation is reported when the command ends
};

struct ProtectedNameRow {
  std::string_view name;
  NameScope scope;
  WhenMissing when_missing;
  bool liftable;
  std::string_view reason;  // what runs it, and when
};

// The built-in table, in the order the README lists it.
std::span<const ProtectedNameRow> builtin_protected_name_rows();

// One protected name of a policy.
struct ProtectedName {
  std::string name;  // ".vscode"; a home name relative to the home (".config/git")
  NameScope scope = NameScope::every_directory;
  WhenMissing when_missing = WhenMissing::guard;
  std::string reason;
  std::optional<settings::Scope> origin;  // nullopt: built in
  bool operator==(const ProtectedName&) const = default;
};

// A built-in name a scope lifted.
struct LiftedName {
  std::string name;
  std::optional<settings::Scope> origin;
  bool operator==(const LiftedName&) const = default;
};

// How many directories a launch walks below the writable roots (breadth
// first, .git and node_modules not entered) to find the existing protected
// names and repositories; a launch whose walk hits the limit is refused
// (admission.cpp: protection-scan-incomplete), because what lies deeper
// would stay writable. 10,000 directories is a large checkout (a Linux
// kernel tree has about 5,000); bench/bench_protection.cpp measures the
// walk. Operator scopes change it with tools.protectedNames.scanLimit.
inline constexpr std::size_t kDefaultScanLimit = 10'000;
inline constexpr std::size_t kMaxScanLimit = 1'000'000;
// Of what the project leaves, a writable root wider than it (":home",
// ":root") is walked at most this many directories, nearest levels first
// (tree_scan.hpp: WalkEnd::best_effort): a home holds tens of thousands
// and is walked before and after every launch; 2,000 reach the levels where
// projects sit (~/src/project/.git) on most homes.
inline constexpr std::size_t kWideRootWalk = 2'000;

struct ProtectedNames {
  std::vector<ProtectedName> names;  // sorted by (scope, name), names unique per scope
  std::vector<LiftedName> lifted;
  std::size_t scan_limit = kDefaultScanLimit;  // directories walked per launch
  bool operator==(const ProtectedNames&) const = default;
};

// The whole built-in table.
ProtectedNames builtin_protected_names();

// Only .git and .holdfast (what every writable root needs for git and for
// holdfast's own workspace scope; the pure tests' hand-made policies).
ProtectedNames core_protected_names();

// The built-in table with tools.protectedNames applied: names added (".x"
// in every directory, "~/x/y" in the home directory; guarded when missing)
// and lifted, and tools.protectedNames.scanLimit (operator scopes; the
// merge drops a workspace's). Appends "policy-malformed" refusals for a name that is not a
// plain relative name (empty, "." or "..", an absolute path, a slash in an
// every-directory name) and for lifting a name the table lacks or that
// cannot be lifted.
ProtectedNames protected_names_from_settings(const settings::Effective& effective,
                                             std::vector<Refusal>& refusals);

// The names as the settings write them: ".vscode", "~/.bashrc".
std::string written_name(const ProtectedName& name);

// The names that apply at a writable root: every-directory names
// everywhere, home names only when `root_is_home`.
std::vector<const ProtectedName*> names_at_root(const ProtectedNames& names, bool root_is_home);

// True when `name` (one path component) is an every-directory protected
// name. `names` sorted as ProtectedNames::names is.
bool is_protected_component(const ProtectedNames& names, std::string_view name);

}  // namespace holdfast::sandbox
