#include "launcher/sandbox/protection_facts.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include "base/fd.hpp"
#include "base/system_error.hpp"
#include "launcher/sandbox/paths.hpp"

namespace holdfast::sandbox {

namespace {

bool exists_no_follow(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Looks at a path named by project content: a path that cannot be looked
// at (EACCES on the way, a loop) protects nothing and stops nothing.
const PathFacts* probe_quietly(const Probe& probe, const std::string& path) {
  try {
    return &probe(path);
  } catch (const base::SystemError&) {
    return nullptr;
  }
}

}  // namespace

void gather_name_facts(const Policy& policy, HostFacts& facts, const Probe& probe) {
  for (const auto& root : facts.writable_roots) {
    const bool listed = facts.tree.listed.contains(root);
    for (const ProtectedName* name :
         names_at_root(policy.protected_names, root == facts.tokens.home)) {
      const std::string path = join_path(root, name->name);
      // The walk lists every-directory names; a home name is looked up. A
      // name of several components is always looked at: the rules need to
      // know whether its parent exists.
      const bool in_listing = listed && name->scope == NameScope::every_directory;
      const bool exists = name->name.find('/') != std::string::npos ||
                          (in_listing ? has_path(facts.tree.names, path) : exists_no_follow(path));
      if (!exists) continue;
      const PathFacts& f = probe(path);
      if (f.gitdir) probe(*f.gitdir);
    }
  }
  for (const auto& path : facts.tree.names) {
    if (has_path(facts.writable_roots, parent_path(path))) continue;
    if (split_path(path).back() == ".git") continue;  // a nested repository (nested_git)
    if (probe_quietly(probe, path) != nullptr) facts.protected_found.push_back(path);
  }
  for (const auto& dir : facts.tree.bare) {
    if (dir == facts.workspace.canonical) {
      facts.workspace_is_bare = true;
    } else if (!has_path(facts.writable_roots, dir) && probe_quietly(probe, dir) != nullptr) {
      facts.bare_repositories.push_back(dir);
    }
  }
}

namespace {

struct Repository {
  std::string gitdir;  // canonical
  std::string top;     // the working tree's top; empty for a bare repository
};

// The git directory a ".git" entry stands for (a directory, or a file's
// gitdir:), or nullopt.
std::optional<std::string> gitdir_of(const PathFacts& git, const Probe& probe) {
  if (git.kind == Kind::directory) return git.canonical;
  if (git.kind == Kind::file && git.gitdir) {
    if (const PathFacts* target = probe_quietly(probe, *git.gitdir)) return target->canonical;
  }
  return std::nullopt;
}

// The configuration files' text, read once each.
class ConfigReader {
 public:
  // The entries of `file`; none when it is missing, not a regular file or
  // over the limits.
  const std::vector<GitConfigEntry>& entries(const std::string& file, HostFacts& facts) {
    if (const auto it = cache_.find(file); it != cache_.end()) return it->second;
    std::vector<GitConfigEntry>& out = cache_[file];
    if (cache_.size() > kMaxGitConfigFiles) return out;
    const base::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    struct stat st {};
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return out;
    std::string text(
        std::min<std::size_t>(static_cast<std::size_t>(st.st_size), kMaxGitConfigBytes), '\0');
    std::size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd.get(), text.data() + got, text.size() - got);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    facts.git_config_files.push_back(file);
    out = parse_git_config(text);
    return out;
  }

 private:
  std::map<std::string, std::vector<GitConfigEntry>> cache_;
};

class GitTargets {
 public:
  GitTargets(HostFacts& facts, const Probe& probe) : facts_(facts), probe_(probe) {}

  // The settings of `file` and of what it includes, for `repo`, each file
  // once per repository (a file that includes itself many times over costs
  // one read).
  void read(const std::string& file, const Repository& repo, bool repository_config, int depth) {
    if (depth > 10) return;  // git's own include depth
    if (!done_.insert({repo.gitdir, file}).second) return;
    for (const auto& setting : git_path_settings(reader_.entries(file, facts_))) {
      std::string base;
      switch (setting.kind) {
        case GitPathKind::include:
          base = parent_path(file);
          break;
        case GitPathKind::worktree:
          if (!repository_config) continue;  // only a repository's own config sets it
          base = repo.gitdir;
          break;
        case GitPathKind::hooks:
        case GitPathKind::program:
          base = repo.top.empty() ? repo.gitdir : repo.top;
          break;
      }
      const auto path = resolve_git_path(setting.path, base, facts_.tokens.home);
      if (!path) continue;
      add({*path, setting.setting, file, setting.kind, setting.first_word});
      if (setting.kind == GitPathKind::include) read(*path, repo, repository_config, depth + 1);
    }
  }

 private:
  void add(GitTarget target) {
    const bool known = std::any_of(facts_.git_targets.begin(), facts_.git_targets.end(),
                                   [&](const GitTarget& t) { return t.path == target.path; });
    if (known || probe_quietly(probe_, target.path) == nullptr) return;
    facts_.git_targets.push_back(std::move(target));
  }

  HostFacts& facts_;
  const Probe& probe_;
  ConfigReader reader_;
  std::set<std::pair<std::string, std::string>> done_;  // (gitdir, file)
};

}  // namespace

void gather_git_facts(HostFacts& facts, const Probe& probe, const std::string& xdg_config_home,
                      const ProtectedNames& names) {
  std::vector<Repository> repositories;
  const auto add = [&](const std::optional<std::string>& gitdir, const std::string& top) {
    if (!gitdir) return;
    const bool known = std::any_of(repositories.begin(), repositories.end(),
                                   [&](const Repository& r) { return r.gitdir == *gitdir; });
    if (!known) repositories.push_back({*gitdir, top});
  };
  for (const auto& root : facts.writable_roots) {
    // The root's own repository, or the one it lies in (git looks up from
    // the current directory to /).
    for (std::string dir = root;; dir = parent_path(dir)) {
      const std::string git = join_path(dir, ".git");
      const auto known = facts.paths.find(git);
      const bool present =
          known != facts.paths.end() ? known->second.exists() : exists_no_follow(git);
      if (present) {
        if (const PathFacts* f = probe_quietly(probe, git)) add(gitdir_of(*f, probe), dir);
        break;
      }
      if (dir == "/") break;
    }
  }
  for (const auto& git : facts.nested_git) {
    if (const PathFacts* f = probe_quietly(probe, git)) add(gitdir_of(*f, probe), parent_path(git));
  }
  for (const auto& dir : facts.bare_repositories) add(dir, "");

  const std::string& home = facts.tokens.home;
  std::vector<std::string> global = {"/etc/gitconfig"};
  if (!home.empty()) global.push_back(join_path(home, ".gitconfig"));
  if (!xdg_config_home.empty() && xdg_config_home.front() == '/') {
    global.push_back(join_path(xdg_config_home, "git/config"));
  } else if (!home.empty()) {
    global.push_back(join_path(home, ".config/git/config"));
  }
  GitTargets targets(facts, probe);
  for (const auto& repo : repositories) {
    for (const auto& file : global) targets.read(file, repo, false, 0);
    targets.read(join_path(repo.gitdir, "config"), repo, true, 0);
  }
  // A working tree set by core.worktree in a writable directory: git looks
  // for .gitattributes, .gitmodules and the rest at its top.
  for (const auto& target : std::vector<GitTarget>(facts.git_targets)) {
    if (target.kind != GitPathKind::worktree) continue;
    const PathFacts& f = probe(target.path);
    if (f.kind != Kind::directory) continue;
    const bool writable =
        std::any_of(facts.writable_roots.begin(), facts.writable_roots.end(),
                    [&](const std::string& r) { return is_within(f.canonical, r); });
    if (!writable || has_path(facts.writable_roots, f.canonical)) continue;
    TreeScan top;
    std::size_t one = 1;
    scan_tree(f.canonical, names, one, top);
    for (const auto& path : top.names) {
      if (split_path(path).back() == ".git" || has_path(facts.protected_found, path)) continue;
      if (probe_quietly(probe, path) != nullptr) facts.protected_found.push_back(path);
    }
  }
}

CallerIds current_caller() {
  CallerIds caller{::geteuid(), ::getegid(), {}};
  const int count = ::getgroups(0, nullptr);
  if (count > 0) {
    caller.groups.resize(static_cast<std::size_t>(count));
    const int got = ::getgroups(count, caller.groups.data());
    caller.groups.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  }
  return caller;
}

bool may_read(const struct stat& st, const CallerIds& caller) {
  if (caller.uid == 0) return true;
  // A directory is open to whoever may list it or enter it (a key's name
  // is easy to guess); a file to whoever may read it.
  const mode_t want = S_ISDIR(st.st_mode) ? (S_IRUSR | S_IXUSR) : S_IRUSR;
  if (st.st_uid == caller.uid) return (st.st_mode & want) != 0;
  const bool in_group =
      st.st_gid == caller.gid ||
      std::find(caller.groups.begin(), caller.groups.end(), st.st_gid) != caller.groups.end();
  if (in_group) return (st.st_mode & (want >> 3)) != 0;
  return (st.st_mode & (want >> 6)) != 0;
}

void gather_credential_facts(const Policy& policy, HostFacts& facts, const Probe& probe,
                             const std::vector<std::string>& other_homes, const CallerIds& caller) {
  const auto found = [&](const std::string& store, const std::string& path, bool keep) {
    if (probe_quietly(probe, path) == nullptr) return;
    facts.credentials.push_back({store, path, keep});
  };
  std::vector<std::string> homes;
  if (!facts.tokens.home.empty()) homes.push_back(facts.tokens.home);
  for (const auto& home : other_homes) {
    if (!has_path(homes, home)) homes.push_back(home);
  }
  for (const auto& home : homes) {
    const base::UniqueFd dir(::open(home.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    struct stat st {};
    if (!dir.valid() || ::fstat(dir.get(), &st) != 0 || !may_read(st, caller)) continue;
    facts.homes.push_back(home);
    for (const auto& store : policy.credential_stores.stores) {
      bool hidden = false;
      for (const auto& path : store.paths) {
        if (!path.starts_with("~/")) continue;
        // Following symlinks: a store that is a link is hidden at its target.
        if (::fstatat(dir.get(), path.c_str() + 2, &st, 0) != 0 || !may_read(st, caller)) continue;
        found(store.name, join_path(home, path.substr(2)), false);
        hidden = true;
      }
      if (!hidden) continue;
      for (const auto& path : store.keep_readable) {
        if (!path.starts_with("~/") || ::fstatat(dir.get(), path.c_str() + 2, &st, 0) != 0)
          continue;
        found(store.name, join_path(home, path.substr(2)), true);
      }
    }
  }
  for (const auto& store : policy.credential_stores.stores) {
    for (const auto& path : store.paths) {
      struct stat st {};
      if (!path.starts_with("/") || ::stat(path.c_str(), &st) != 0 || !may_read(st, caller)) {
        continue;
      }
      found(store.name, path, false);
    }
  }
}

}  // namespace holdfast::sandbox
