// The thin imperative step: look at the host paths the argv builder needs
// (existence, type, canonical form, the symlinks crossed on the way, the
// gitdir of a .git file) and the caller's allow-listed environment, and
// return them as a plain struct. Everything after this is pure.
//
// Facts are a snapshot: the launcher gathers them just before building the
// argv. A path that changes in between is caught by bubblewrap itself (a
// bind source that vanished fails the launch) or is covered by the rules
// (symlinks under writable roots are refused for carve-outs).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launcher/sandbox/policy.hpp"
#include "settings/scopes.hpp"

namespace holdfast::sandbox {

enum class Kind { missing, directory, file, other };

// A symlink met while canonicalising: `link` is its canonical location,
// `parent` the canonical directory that holds it (whoever can write there
// can retarget the link).
struct SymlinkHop {
  std::string link;
  std::string parent;
  bool operator==(const SymlinkHop&) const = default;
};

struct PathFacts {
  std::string path;       // as asked: absolute, lexically normal
  std::string canonical;  // symlinks resolved; for a missing path, the
                          // canonical existing ancestor plus the rest
  Kind kind = Kind::missing;
  std::string existing_ancestor;  // canonical; == canonical when it exists
  std::vector<SymlinkHop> symlinks;
  std::optional<std::string> link_target;  // the last component is a symlink to this
  std::optional<std::string> gitdir;       // a regular ".git" file's gitdir:, made absolute

  bool exists() const { return kind != Kind::missing; }
  bool operator==(const PathFacts&) const = default;
};

struct HostFacts {
  PathFacts workspace;
  PathFacts cwd;
  TokenValues tokens;                    // canonical
  std::vector<PathFacts> operator_dirs;  // ScopePaths::system_dir, config_dir
  // Every lexical path the rules and the builder ask about.
  std::map<std::string, PathFacts> paths;
  // The caller's environment, allow-listed (PATH, HOME, LANG, LC_*, TERM, USER).
  std::vector<std::pair<std::string, std::string>> environment;

  // Throws std::logic_error when `path` was not gathered (facts for another
  // policy): the builder never guesses about the host.
  const PathFacts& at(const std::string& path) const;
};

// True for the names the sandbox inherits from the caller.
bool is_inherited_env(std::string_view name);

// Names under every writable root that stay read-only.
inline constexpr std::string_view kProtectedNames[] = {".git", ".holdfast"};

// Looks at one path. Throws settings::SystemError for anything but "does not
// exist" (EACCES, ELOOP, ...): the launch stops rather than guess.
PathFacts probe_path(const std::string& absolute_path);

struct FactsRequest {
  std::filesystem::path workspace;  // relative paths are taken from cwd
  std::filesystem::path cwd;        // the caller's logical cwd (absolute)
  settings::ScopePaths scope_paths;
  std::optional<std::string> home;    // default: $HOME
  std::optional<std::string> tmpdir;  // default: $TMPDIR, else /tmp
  std::optional<std::vector<std::pair<std::string, std::string>>> environment;  // default: environ
};

HostFacts gather_host_facts(const Policy& policy, const FactsRequest& request);

}  // namespace holdfast::sandbox
