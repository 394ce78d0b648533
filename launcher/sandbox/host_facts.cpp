#include "launcher/sandbox/host_facts.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <stdexcept>

#include "base/fd.hpp"
#include "base/system_error.hpp"
#include "launcher/sandbox/network_inside.hpp"
#include "launcher/sandbox/paths.hpp"
#include "launcher/sandbox/protection_facts.hpp"
#include "launcher/sandbox/refusal.hpp"
#include "launcher/sandbox/submounts.hpp"

extern char** environ;

namespace holdfast::sandbox {

const PathFacts& HostFacts::at(const std::string& path) const {
  const auto it = paths.find(path);
  if (it == paths.end()) {
    throw std::logic_error("host facts do not cover " + path +
                           " (gather_host_facts was called for another policy)");
  }
  return it->second;
}

bool is_inherited_env(std::string_view name) {
  return name == "PATH" || name == "HOME" || name == "LANG" || name == "TERM" || name == "USER" ||
         name.starts_with("LC_");
}

namespace {

Kind kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return Kind::directory;
  if (S_ISREG(mode)) return Kind::file;
  return Kind::other;
}

// "gitdir: PATH" of a .git file, made absolute against the file's directory.
[[noreturn]] void throw_path_changed(const std::string& path) {
  throw Refused({{"path-changed-during-launch", path, "",
                  "the path changed while holdfast was looking at the host (it is now another "
                  "file than a moment ago)",
                  "start the launch again; if this repeats, find what keeps moving it (anything "
                  "that can write its parent directory can)"}});
}

// The gitdir a ".git" file names, read from the file that was looked at
// (`seen`): O_NONBLOCK, so that a FIFO swapped in since cannot hold the
// launch in open(), and the descriptor must be that regular file.
std::optional<std::string> read_gitdir(const std::string& git_file, const struct stat& seen) {
  base::UniqueFd fd(::open(git_file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd.valid()) base::throw_errno("open", git_file);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) base::throw_errno("stat", git_file);
  if (!S_ISREG(st.st_mode) || st.st_dev != seen.st_dev || st.st_ino != seen.st_ino) {
    throw_path_changed(git_file);
  }
  std::string text = base::read_all(fd.get(), git_file);
  if (!text.starts_with("gitdir:")) return std::nullopt;
  text.erase(0, 7);
  const auto first = text.find_first_not_of(" \t");
  const auto last = text.find_last_not_of(" \t\r\n");
  if (first == std::string::npos) return std::nullopt;
  text = text.substr(first, last - first + 1);
  const std::string absolute =
      text.starts_with("/") ? text : join_path(parent_path(git_file), text);
  // A ".." in the gitdir is resolved by probe_path (against real
  // directories), not lexically.
  return absolute;
}

// Records what `path` is now; a path met before as another file (a
// directory since swapped for a symlink, say) makes the facts disagree
// with each other, and the launch is refused rather than built from both.
void remember(std::map<std::string, FileId>* identities,
              std::map<std::string, Ownership>* ownership, const std::string& path,
              const struct stat& st) {
  if (ownership != nullptr) (*ownership)[path] = Ownership{st.st_uid, st.st_gid, st.st_mode};
  if (identities == nullptr) return;
  const FileId id{st.st_dev, st.st_ino};
  const auto [it, inserted] = identities->emplace(path, id);
  if (inserted || it->second == id) return;
  throw_path_changed(path);
}

// lstat(2) through `cache` (when given): 0, or -1 with errno set.
int lstat_once(const std::string& path, struct stat& st, LstatCache* cache) {
  if (cache != nullptr) {
    if (const auto it = cache->find(path); it != cache->end()) {
      if (it->second.first != 0) {
        errno = it->second.first;
        return -1;
      }
      st = it->second.second;
      return 0;
    }
  }
  const int result = ::lstat(path.c_str(), &st);
  if (cache != nullptr) cache->emplace(path, std::make_pair(result == 0 ? 0 : errno, st));
  return result;
}

}  // namespace

PathFacts probe_path(const std::string& absolute_path, std::map<std::string, FileId>* identities,
                     std::map<std::string, Ownership>* ownership, LstatCache* cache) {
  PathFacts facts;
  facts.path = absolute_path;
  struct Item {
    std::string name;
    bool original_last;
  };
  std::deque<Item> todo;
  const auto parts = split_path(absolute_path);
  for (std::size_t i = 0; i < parts.size(); ++i) todo.push_back({parts[i], i + 1 == parts.size()});

  std::string current = "/";
  bool exists = true;
  int hops = 0;
  struct stat last {};
  if (lstat_once("/", last, cache) != 0) base::throw_errno("lstat", "/");
  remember(identities, ownership, "/", last);
  while (!todo.empty()) {
    const Item item = todo.front();
    todo.pop_front();
    if (item.name == "..") {
      current = parent_path(current);
      continue;
    }
    const std::string next = join_path(current, item.name);
    if (!exists) {
      current = next;
      continue;
    }
    struct stat st {};
    if (lstat_once(next, st, cache) != 0) {
      if (errno != ENOENT && errno != ENOTDIR) base::throw_errno("lstat", next);
      exists = false;
      facts.existing_ancestor = current;
      current = next;
      continue;
    }
    remember(identities, ownership, next, st);
    if (!S_ISLNK(st.st_mode)) {
      current = next;
      last = st;
      continue;
    }
    if (++hops > 40) {
      errno = ELOOP;
      base::throw_errno("resolve symlinks of", absolute_path);
    }
    std::string target(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 255) + 1, '\0');
    const ssize_t n = ::readlink(next.c_str(), target.data(), target.size());
    if (n < 0) base::throw_errno("readlink", next);
    target.resize(static_cast<std::size_t>(n));
    facts.symlinks.push_back({next, current});
    if (item.original_last) facts.link_target = target;
    if (target.starts_with("/")) current = "/";
    const auto target_parts = split_path(target);
    for (auto it = target_parts.rbegin(); it != target_parts.rend(); ++it) {
      todo.push_front({*it, false});
    }
  }
  facts.canonical = current;
  if (exists) {
    facts.existing_ancestor = current;
    facts.kind = kind_of(last.st_mode);
    facts.id = FileId{last.st_dev, last.st_ino};
    facts.links = last.st_nlink;
    if (facts.kind == Kind::file && split_path(current).back() == ".git") {
      facts.gitdir = read_gitdir(current, last);
    }
  }
  return facts;
}

std::vector<std::string> find_nested_repositories(const std::string& root, std::size_t& budget,
                                                  RepoScan& scan) {
  TreeScan tree;
  scan_tree(root, ProtectedNames{}, budget, tree);
  scan.directories += tree.directories;
  scan.complete = scan.complete && tree.complete;
  return tree.git;
}

std::vector<std::string> submodule_paths(std::string_view gitmodules) {
  std::vector<std::string> paths;
  std::size_t start = 0;
  while (start < gitmodules.size() && paths.size() < kMaxSubmodules) {
    std::size_t end = gitmodules.find('\n', start);
    if (end == std::string_view::npos) end = gitmodules.size();
    std::string_view line = gitmodules.substr(start, end - start);
    start = end + 1;
    const auto trim = [](std::string_view text) {
      const auto first = text.find_first_not_of(" \t\r");
      if (first == std::string_view::npos) return std::string_view();
      return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
    };
    line = trim(line);
    if (!line.starts_with("path")) continue;
    line = trim(line.substr(4));
    if (!line.starts_with("=")) continue;
    std::string_view value = trim(line.substr(1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    if (value.empty() || value.front() == '/') continue;
    const auto parts = split_path(value);
    if (parts.empty() || std::find(parts.begin(), parts.end(), "..") != parts.end()) continue;
    std::string relative;
    for (const auto& part : parts) relative += (relative.empty() ? "" : "/") + part;
    paths.push_back(relative);
  }
  return paths;
}

namespace {

// The .gitmodules of the repository checked out at `dir`, if any: read
// whole but at most 1 MiB (project content).
std::string read_gitmodules(const std::string& dir) {
  const std::string path = join_path(dir, ".gitmodules");
  const base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  std::string text(static_cast<std::size_t>(std::min<off_t>(st.st_size, 1 << 20)), '\0');
  const ssize_t n = ::read(fd.get(), text.data(), text.size());
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return text;
}

// /etc/passwd, whole but at most 4 MiB; empty when it cannot be read.
std::string read_passwd() {
  const base::UniqueFd fd(::open("/etc/passwd", O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  std::string text(static_cast<std::size_t>(std::min<off_t>(st.st_size, 4 << 20)), '\0');
  const ssize_t n = ::read(fd.get(), text.data(), text.size());
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return text;
}

}  // namespace

HostFacts gather_host_facts(const Policy& policy, const FactsRequest& request) {
  HostFacts facts;
  facts.cwd_within_workspace = request.cwd_within_workspace;
  facts.caller_uid = ::geteuid();
  facts.caller_gid = ::getegid();
  if (policy.network == Network::allow_list) {
    std::error_code ignored;
    facts.holdfast_executable = std::filesystem::read_symlink("/proc/self/exe", ignored).string();
  }
  const bool stub_resolv_conf = policy.network == Network::allow_list;
  const auto absolute = [&](const std::filesystem::path& p) {
    const std::filesystem::path full = p.is_absolute() ? p : request.cwd / p;
    // No lexical clean-up: probe_path drops "." and empty components and
    // resolves ".." against the real directories, as the kernel does.
    return full.string();
  };
  LstatCache looked;  // one lstat per path for the whole gathering
  const auto probe_once = [&](const std::string& path) {
    return probe_path(path, &facts.identities, &facts.ownership, &looked);
  };
  const auto probe = [&](const std::string& path) -> const PathFacts& {
    auto it = facts.paths.find(path);
    if (it == facts.paths.end()) it = facts.paths.emplace(path, probe_once(path)).first;
    return it->second;
  };

  if (request.workspace_id) facts.identities[absolute(request.workspace)] = *request.workspace_id;
  if (request.cwd_id) facts.identities[absolute(request.cwd)] = *request.cwd_id;
  facts.workspace = probe_once(absolute(request.workspace));
  facts.cwd = probe_once(absolute(request.cwd));
  facts.tokens.workspace = facts.workspace.canonical;

  const char* env_home = std::getenv("HOME");
  const std::string home = request.home.value_or(env_home != nullptr ? env_home : "");
  if (!home.empty() && home.front() == '/') facts.tokens.home = probe_once(home).canonical;
  const char* env_tmp = std::getenv("TMPDIR");
  std::string tmpdir = request.tmpdir.value_or(env_tmp != nullptr ? env_tmp : "/tmp");
  if (tmpdir.empty() || tmpdir.front() != '/') tmpdir = "/tmp";
  facts.tokens.tmpdir = probe_once(tmpdir).canonical;
  for (const auto dir : kMinimalDirs) {
    // :minimal keeps the lexical names (/bin stays /bin) so that the builder
    // can recreate top-level symlinks such as /bin -> usr/bin.
    if (probe(std::string(dir)).exists()) facts.tokens.minimal.emplace_back(dir);
  }
  for (const auto& dir : {request.scope_paths.system_dir, request.scope_paths.config_dir}) {
    if (!dir.empty()) facts.operator_dirs.push_back(probe_once(absolute(dir)));
  }
  if (request.state_dir) facts.state_dir = probe_once(absolute(*request.state_dir));
  for (const auto& [path, read] : request.settings_files) {
    facts.settings_files.push_back({probe_once(absolute(path)), read});
  }

  // Every entry, and the writable directory roots (protection_facts.hpp
  // looks at the protected names there once the walk has listed them).
  std::vector<std::string> writable_roots;
  for (const auto& entry : policy.filesystem) {
    for (const auto& path : expand_key(entry, facts.tokens)) {
      const PathFacts& root = probe(path);
      if (entry.access != Access::write || root.kind != Kind::directory) continue;
      if (std::find(writable_roots.begin(), writable_roots.end(), root.canonical) ==
          writable_roots.end()) {
        writable_roots.push_back(root.canonical);
      }
    }
  }
  facts.writable_roots = writable_roots;
  facts.scan_budget = request.repo_scan_budget;
  // The repositories below them, each root walked once (a root inside
  // another is covered by the outer walk). The project first, whole: the
  // workspace when a writable root holds it, and the writable roots inside
  // it. Then the roots wider than or beside it, shallow first, with what
  // the budget has left (tree_scan.hpp: WalkEnd).
  const std::string& project = facts.workspace.canonical;
  const auto in_project = [&](const std::string& root) { return is_within(root, project); };
  std::vector<std::pair<std::string, WalkEnd>> walks;
  if (std::any_of(writable_roots.begin(), writable_roots.end(),
                  [&](const std::string& root) { return is_within(project, root); })) {
    walks.emplace_back(project, WalkEnd::must_finish);
  }
  std::sort(writable_roots.begin(), writable_roots.end(),
            [](const std::string& a, const std::string& b) {
              return path_depth(a) != path_depth(b) ? path_depth(a) < path_depth(b) : a < b;
            });
  for (const auto& root : writable_roots) {
    if (in_project(root)) walks.emplace_back(root, WalkEnd::must_finish);
  }
  for (const auto& root : writable_roots) {
    if (!in_project(root)) walks.emplace_back(root, WalkEnd::best_effort);
  }
  std::vector<std::string> walked;
  std::size_t budget = request.repo_scan_budget;
  for (const auto& walk : walks) {
    const std::string& root = walk.first;
    if (std::any_of(walked.begin(), walked.end(),
                    [&](const std::string& w) { return is_within(root, w); })) {
      continue;
    }
    walked.push_back(root);
    // The walk, then the submodule checkouts each repository found names
    // (wherever they are, within the budget or not).
    std::deque<std::string> repositories = {root};
    const std::size_t known = facts.tree.git.size();
    scan_tree(root, policy.protected_names, budget, facts.tree, walk.second);
    std::vector<std::string> found(facts.tree.git.begin() + static_cast<std::ptrdiff_t>(known),
                                   facts.tree.git.end());
    // The walk leaves out a root's own .git (the rules guard it there); the
    // workspace below a wider writable root is no root of the rules, and
    // its repository is one found below that root.
    if (!has_path(facts.writable_roots, root)) found.push_back(join_path(root, ".git"));
    for (const auto& git : found) repositories.push_back(parent_path(git));
    std::size_t submodules = 0;
    while (!repositories.empty() && submodules < kMaxSubmodules) {
      const std::string repo = repositories.front();
      repositories.pop_front();
      for (const auto& sub : submodule_paths(read_gitmodules(repo))) {
        const std::string git = join_path(join_path(repo, sub), ".git");
        if (std::find(found.begin(), found.end(), git) != found.end()) continue;
        if (++submodules > kMaxSubmodules) break;
        const PathFacts& git_facts = probe(git);
        // Only a real entry right there: a symlink on the way is not
        // followed out of the root.
        if (!git_facts.exists() || !git_facts.symlinks.empty()) continue;
        found.push_back(git);
        repositories.push_back(parent_path(git));
      }
    }
    for (const auto& git : found) {
      const PathFacts& git_facts = probe(git);
      if (!git_facts.exists()) continue;  // gone since the walk
      facts.nested_git.push_back(git);
      if (git_facts.gitdir) probe(*git_facts.gitdir);
    }
  }

  // The mount table, once: the mounts below the bound paths and the places
  // where a bind shows a denied path again are looked at like the entries.
  try {
    facts.mounts = parse_mountinfo(read_mountinfo("self"));
  } catch (const MountTableError& e) {
    throw Refused({{"mount-table-unreadable", "/proc/self/mountinfo", "",
                    std::string("the mount table cannot be read: ") + e.what(),
                    "check that /proc is mounted; holdfast plans every launch from it"}});
  }
  std::vector<std::pair<std::string, Access>> entries;
  std::vector<std::string> denied;
  bool tmp_named = false;
  for (const auto& entry : policy.filesystem) {
    for (const auto& path : expand_key(entry, facts.tokens)) {
      const PathFacts& f = probe(path);
      if (!f.exists()) continue;
      entries.emplace_back(f.canonical, entry.access);
      if (entry.access == Access::deny) denied.push_back(f.canonical);
      tmp_named = tmp_named || f.canonical == "/tmp";
    }
  }
  if (!tmp_named) denied.emplace_back("/tmp");  // the private /tmp hides the host's
  for (const auto special : kMaskedSpecialFiles) probe(std::string(special));
  if (stub_resolv_conf) probe(std::string(kResolvConf));
  for (const auto& path : submount_paths_to_probe(facts.mounts, entries, denied)) probe(path);
  facts.repo_scan = RepoScan{facts.tree.directories, facts.tree.complete};
  gather_name_facts(policy, facts, probe);
  const char* xdg_config = std::getenv("XDG_CONFIG_HOME");
  gather_git_facts(facts, probe, xdg_config != nullptr ? xdg_config : "", policy.protected_names);
  std::vector<std::string> other_homes;
  if (request.other_homes) {
    other_homes = *request.other_homes;
  } else if (!policy.credential_stores.stores.empty()) {
    other_homes = login_homes(read_passwd());
  }
  gather_credential_facts(policy, facts, probe, other_homes, current_caller());

  std::vector<std::pair<std::string, std::string>> environment;
  if (request.environment) {
    environment = *request.environment;
  } else {
    for (char** env = environ; env != nullptr && *env != nullptr; ++env) {
      const std::string_view item(*env);
      const std::size_t eq = item.find('=');
      if (eq == std::string_view::npos) continue;
      environment.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    }
  }
  for (auto& [name, value] : environment) {
    if (is_inherited_env(name)) facts.environment.emplace_back(name, value);
  }
  return facts;
}

}  // namespace holdfast::sandbox
