#include "launcher/sandbox/host_facts.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <stdexcept>

#include "launcher/sandbox/paths.hpp"
#include "settings/errors.hpp"
#include "settings/fd.hpp"

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
std::optional<std::string> read_gitdir(const std::string& git_file) {
  settings::UniqueFd fd(::open(git_file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) settings::throw_errno("open", git_file);
  std::string text = settings::read_all(fd.get(), git_file);
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

}  // namespace

PathFacts probe_path(const std::string& absolute_path) {
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
  mode_t last_mode = S_IFDIR;
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
    if (::lstat(next.c_str(), &st) != 0) {
      if (errno != ENOENT && errno != ENOTDIR) settings::throw_errno("lstat", next);
      exists = false;
      facts.existing_ancestor = current;
      current = next;
      continue;
    }
    if (!S_ISLNK(st.st_mode)) {
      current = next;
      last_mode = st.st_mode;
      continue;
    }
    if (++hops > 40) {
      errno = ELOOP;
      settings::throw_errno("resolve symlinks of", absolute_path);
    }
    std::string target(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 255) + 1, '\0');
    const ssize_t n = ::readlink(next.c_str(), target.data(), target.size());
    if (n < 0) settings::throw_errno("readlink", next);
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
    facts.kind = kind_of(last_mode);
    if (facts.kind == Kind::file && split_path(current).back() == ".git") {
      facts.gitdir = read_gitdir(current);
    }
  }
  return facts;
}

HostFacts gather_host_facts(const Policy& policy, const FactsRequest& request) {
  HostFacts facts;
  const auto absolute = [&](const std::filesystem::path& p) {
    const std::filesystem::path full = p.is_absolute() ? p : request.cwd / p;
    // No lexical clean-up: probe_path drops "." and empty components and
    // resolves ".." against the real directories, as the kernel does.
    return full.string();
  };
  const auto probe = [&](const std::string& path) -> const PathFacts& {
    auto it = facts.paths.find(path);
    if (it == facts.paths.end()) it = facts.paths.emplace(path, probe_path(path)).first;
    return it->second;
  };

  facts.workspace = probe_path(absolute(request.workspace));
  facts.cwd = probe_path(absolute(request.cwd));
  facts.tokens.workspace = facts.workspace.canonical;

  const char* env_home = std::getenv("HOME");
  const std::string home = request.home.value_or(env_home != nullptr ? env_home : "");
  if (!home.empty() && home.front() == '/') facts.tokens.home = probe_path(home).canonical;
  const char* env_tmp = std::getenv("TMPDIR");
  std::string tmpdir = request.tmpdir.value_or(env_tmp != nullptr ? env_tmp : "/tmp");
  if (tmpdir.empty() || tmpdir.front() != '/') tmpdir = "/tmp";
  facts.tokens.tmpdir = probe_path(tmpdir).canonical;
  for (const auto dir : kMinimalDirs) {
    // :minimal keeps the lexical names (/bin stays /bin) so that the builder
    // can recreate top-level symlinks such as /bin -> usr/bin.
    if (probe(std::string(dir)).exists()) facts.tokens.minimal.emplace_back(dir);
  }
  for (const auto& dir : {request.scope_paths.system_dir, request.scope_paths.config_dir}) {
    if (!dir.empty()) facts.operator_dirs.push_back(probe_path(absolute(dir)));
  }

  // Every entry, and under every writable directory the protected names
  // (and the gitdir a .git file points to).
  for (const auto& entry : policy.filesystem) {
    for (const auto& path : expand_key(entry, facts.tokens)) {
      const PathFacts& root = probe(path);
      if (entry.access != Access::write || root.kind != Kind::directory) continue;
      const std::string canonical_root = root.canonical;
      for (const auto name : kProtectedNames) {
        const PathFacts& name_facts = probe(join_path(canonical_root, name));
        if (name_facts.gitdir) probe(*name_facts.gitdir);
      }
    }
  }

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
