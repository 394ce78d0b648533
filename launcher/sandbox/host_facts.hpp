// The thin imperative step: look at the host paths the argv builder needs
// (existence, type, canonical form, the symlinks crossed on the way, the
// gitdir of a .git file) and the caller's allow-listed environment, and
// return them as a plain struct. Everything after this is pure.
//
// Facts are a snapshot: the launcher gathers them just before building the
// argv. Every file and directory met is recorded with its device and inode,
// so that the launch can open each bind source once, check that it is still
// what was looked at here, and hand bubblewrap the descriptor instead of
// the path (launcher/run/bind_sources.hpp).
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launcher/sandbox/git_config.hpp"
#include "launcher/sandbox/mount_table.hpp"
#include "launcher/sandbox/policy.hpp"
#include "launcher/sandbox/tree_scan.hpp"
#include "settings/scopes.hpp"

namespace holdfast::sandbox {

enum class Kind { missing, directory, file, other };

// Which file a path named when it was looked at.
struct FileId {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const FileId&) const = default;
};

// Who owns a file met while probing, and its mode: whether another local
// user can move or remove what a mount stands on (mount_point_owners.hpp).
struct Ownership {
  uid_t owner = 0;
  gid_t group = 0;
  mode_t mode = 0;  // st_mode: type and permission bits
  bool operator==(const Ownership&) const = default;
};

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
  FileId id;                               // of the canonical path; zero when missing
  nlink_t links = 0;                       // its hard links (other names of a file)

  bool exists() const { return kind != Kind::missing; }
  bool operator==(const PathFacts&) const = default;
};

// An operator settings file as the snapshot read it, and as it is now.
struct SettingsFileFacts {
  PathFacts facts;  // the path looked at again (symlinks, canonical, identity, links)
  FileId read;      // the file the snapshot read
  bool operator==(const SettingsFileFacts&) const = default;
};

// How far the search for repositories below the writable roots got.
struct RepoScan {
  std::size_t directories = 0;  // directories read
  bool complete = true;         // false: the budget ran out before the walk ended
  bool operator==(const RepoScan&) const = default;
};

// A path git's configuration names (git_config.hpp), looked at: in
// HostFacts::paths.
struct GitTarget {
  std::string path;     // absolute, lexical
  std::string setting;  // "core.hooksPath"
  std::string file;     // the configuration file that says so
  GitPathKind kind = GitPathKind::program;
  bool first_word = true;
  bool operator==(const GitTarget&) const = default;
};

// A credential store's path that exists and that the caller could read
// (credential_stores.hpp): in HostFacts::paths.
struct CredentialFound {
  std::string store;           // the entry's name
  std::string path;            // absolute, lexical
  bool keep_readable = false;  // a path inside a hidden store that stays readable
  bool operator==(const CredentialFound&) const = default;
};

struct HostFacts {
  PathFacts workspace;
  PathFacts cwd;
  TokenValues tokens;                    // canonical
  std::vector<PathFacts> operator_dirs;  // ScopePaths::system_dir, config_dir
  // Every lexical path the rules and the builder ask about.
  std::map<std::string, PathFacts> paths;
  // holdfast's own executable (/proc/self/exe): the connector git over ssh
  // runs with a network allow-list (network_inside.hpp).
  std::string holdfast_executable;
  // The caller's environment, allow-listed (PATH, HOME, LANG, LC_*, TERM, USER).
  std::vector<std::pair<std::string, std::string>> environment;
  // The identity of every file, directory and symlink met while probing,
  // "/" and every ancestor included, by canonical path (a symlink by the
  // canonical path of its directory plus its name). A path met twice as two
  // different files refuses the launch ("path-changed-during-launch").
  std::map<std::string, FileId> identities;
  // The owner and mode of each of them, by the same paths.
  std::map<std::string, Ownership> ownership;
  // False when the cwd's descriptor lies outside the workspace's (by
  // identity, whatever the names say): admission refuses it.
  bool cwd_within_workspace = true;
  // Who launches: another user's files and directories are judged against
  // these (HostFacts is pure data; gather_host_facts takes geteuid/getegid).
  uid_t caller_uid = 0;
  gid_t caller_gid = 0;
  // An operator scope set security.workspaceStrictModes to false: other
  // users may write the workspace and the directories in it, and a mount
  // point there is not refused for that (another user's own entry still
  // is). Set by the launch from the settings, not gathered.
  bool others_write_workspace_accepted = false;
  // holdfast's state directory (launch records); none when unknown.
  std::optional<PathFacts> state_dir;
  // The operator settings files the snapshot read.
  std::vector<SettingsFileFacts> settings_files;
  // Repositories below the writable directory roots, found when the launch
  // starts: the canonical paths of their ".git" entries (directories, or
  // files naming a gitdir), each also in `paths`. The roots' own .git is a
  // protected name and not listed here.
  std::vector<std::string> nested_git;
  RepoScan repo_scan;
  // This process's mount table, read once (mount_table.hpp): the mounts
  // below bound paths and the aliases of denied paths (submounts.hpp).
  MountTable mounts;
  // Protected names, repositories and credentials (protection_facts.hpp).
  // The writable directory roots (canonical) and the walk below them; at a
  // root, each protected name the walk saw is in `paths` (a name missing
  // there is not: the rules take it as missing).
  std::vector<std::string> writable_roots;
  TreeScan tree;
  std::size_t scan_budget = 0;
  std::vector<std::string> protected_found;    // protected names below the roots, in `paths`
  std::vector<std::string> bare_repositories;  // bare layouts below the roots (canonical)
  bool workspace_is_bare = false;              // the workspace root itself has the bare layout
  std::vector<GitTarget> git_targets;
  std::vector<std::string> git_config_files;  // the configuration files read
  std::vector<std::string> homes;             // whose credential stores were looked for
  std::vector<CredentialFound> credentials;

  // Throws std::logic_error when `path` was not gathered (facts for another
  // policy): the builder never guesses about the host.
  const PathFacts& at(const std::string& path) const;
};

// True for the names the sandbox inherits from the caller.
bool is_inherited_env(std::string_view name);

// Special files of the host that take requests from whoever can open them
// for writing, which the kernel allows through a read-only mount (it skips
// the read-only check for FIFOs, sockets and devices): masked wherever the
// sandbox would show them. systemd's initctl FIFO takes runlevel requests
// (as root: a reboot). Landlock keeps them closed too where the kernel
// has it.
inline constexpr std::string_view kMaskedSpecialFiles[] = {"/run/initctl",
                                                           "/run/systemd/initctl/fifo"};

// What lstat said of each path already looked at in one gathering of host
// facts (its errno, or 0 and the stat): every probe walks its path from /,
// and most share their first components ("/", "/home", "/home/u"), so a
// launch asked the kernel about the same path twice or more (125 lstats
// for 51 paths with the bench's policy). One answer per path also keeps
// the facts consistent with themselves.
using LstatCache = std::map<std::string, std::pair<int, struct stat>>;

// Looks at one path. Throws base::SystemError for anything but "does not
// exist" (EACCES, ELOOP, ...): the launch stops rather than guess. When
// `identities` is given, records every existing component met, by its
// canonical path, and throws Refused when one is not what it recorded
// before. With `cache`, a path it has an answer for is not looked at
// again.
PathFacts probe_path(const std::string& absolute_path,
                     std::map<std::string, FileId>* identities = nullptr,
                     std::map<std::string, Ownership>* ownership = nullptr,
                     LstatCache* cache = nullptr);

// Directory names the search for nested repositories does not enter:
// .git itself (a repository's insides) and package trees that never hold
// repositories but can hold hundreds of thousands of directories.
inline constexpr std::string_view kRepoScanSkipped[] = {".git", "node_modules"};

// How many directories the search reads per launch, over all writable
// roots, nearest first (breadth first), unless the policy says otherwise
// (ProtectedNames::scan_limit). Reading one directory (open, getdents64,
// close) costs 15-35 µs on a busy 2-core VM, warm (bench_protection); a
// small workspace costs what it has. Submodule checkouts named in a
// .gitmodules are found beyond the budget.
inline constexpr std::size_t kRepoScanBudget = kDefaultScanLimit;

// The ".git" entries (directories and regular files, never symlinks)
// below `root` (canonical, a directory), breadth first, the root's own
// excluded; never enters kRepoScanSkipped names or follows symlinks. Reads
// at most `budget` directories and subtracts what it read; `scan` counts
// them and is marked incomplete when the budget ran out.
std::vector<std::string> find_nested_repositories(const std::string& root, std::size_t& budget,
                                                  RepoScan& scan);

// The checkout paths ("path = sub/dir") a .gitmodules file names, relative
// and without "..", in file order; at most kMaxSubmodules. Pure; the text
// is project content, so anything else is skipped.
inline constexpr std::size_t kMaxSubmodules = 1000;
std::vector<std::string> submodule_paths(std::string_view gitmodules);

struct FactsRequest {
  std::filesystem::path workspace;  // relative paths are taken from cwd
  std::filesystem::path cwd;        // the caller's logical cwd (absolute)
  settings::ScopePaths scope_paths;
  std::optional<std::string> home;    // default: $HOME
  std::optional<std::string> tmpdir;  // default: $TMPDIR, else /tmp
  std::optional<std::vector<std::pair<std::string, std::string>>> environment;  // default: environ
  std::optional<std::filesystem::path> state_dir;  // holdfast's state directory, if known
  // The operator settings files the snapshot read: path and identity.
  std::vector<std::pair<std::filesystem::path, FileId>> settings_files;
  std::size_t repo_scan_budget = kRepoScanBudget;
  // The files the workspace and the cwd were opened as, when the launch
  // opened them (launcher/run/launch_directories.hpp): their paths must
  // still name them, or the launch is refused.
  std::optional<FileId> workspace_id;
  std::optional<FileId> cwd_id;
  // False when the cwd was found outside the workspace by identity (".."
  // from its descriptor never met the workspace).
  bool cwd_within_workspace = true;
  // The homes besides $HOME whose credential stores are hidden; default:
  // login_homes() of /etc/passwd.
  std::optional<std::vector<std::string>> other_homes;
};

HostFacts gather_host_facts(const Policy& policy, const FactsRequest& request);

}  // namespace holdfast::sandbox
