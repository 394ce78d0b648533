// Hand-written host facts for the pure tests: the builder never looks at
// the host, so exact-argv tests describe the host they mean.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "launcher/sandbox/bwrap_args.hpp"
#include "launcher/sandbox/host_facts.hpp"
#include "launcher/sandbox/policy.hpp"

namespace holdfast::sandbox::testing {

// A split-form policy with these filesystem entries (sorted by key, as
// policy_from_settings leaves them) and this network.
inline Policy split(std::vector<std::pair<std::string, Access>> entries,
                    Network network = Network::closed) {
  Policy p;
  p.form = PolicyForm::split;
  p.network = network;
  for (auto& [key, access] : entries) p.filesystem.push_back(Entry{key, access, key, {}});
  // The two names every writable root needs; the whole table where a test
  // says so (protection_rules_test.cpp).
  p.protected_names = core_protected_names();
  std::sort(p.filesystem.begin(), p.filesystem.end(),
            [](const Entry& a, const Entry& b) { return a.key < b.key; });
  return p;
}

inline BuildOptions options(std::optional<int> empty_file_fd, std::optional<int> seccomp_fd = {},
                            std::string bwrap_path = "bwrap") {
  BuildOptions o;
  o.bwrap_path = std::move(bwrap_path);
  o.seccomp_fd = seccomp_fd;
  o.empty_file_fd = empty_file_fd;
  return o;
}

class FakeHost {
 public:
  FakeHost(std::string workspace, std::string cwd) {
    facts_.tokens.workspace = workspace;
    facts_.tokens.home = "/home/u";
    facts_.tokens.tmpdir = "/tmp";
    facts_.workspace = make(workspace, workspace, Kind::directory);
    facts_.cwd = make(cwd, cwd, Kind::directory);
    facts_.operator_dirs = {make("/etc/holdfast", "/etc/holdfast", Kind::directory),
                            make("/home/u/.config/holdfast", "/home/u/.config/holdfast",
                                 Kind::missing, "/home/u/.config")};
    facts_.environment = {{"PATH", "/usr/bin:/bin"}, {"HOME", "/home/u"}, {"TERM", "xterm"}};
    dir("/");
  }

  FakeHost& dir(const std::string& path) { return add(make(path, path, Kind::directory)); }
  FakeHost& file(const std::string& path) { return add(make(path, path, Kind::file)); }
  FakeHost& missing(const std::string& path, const std::string& existing_ancestor) {
    return add(make(path, path, Kind::missing, existing_ancestor));
  }
  // `path`'s last component is a symlink in `parent` pointing at `target`
  // (a canonical directory).
  FakeHost& symlink_dir(const std::string& path, const std::string& raw_target,
                        const std::string& canonical) {
    PathFacts f = make(path, canonical, Kind::directory);
    f.symlinks = {
        {path, path.substr(0, path.rfind('/')).empty() ? "/" : path.substr(0, path.rfind('/'))}};
    f.link_target = raw_target;
    return add(f);
  }
  FakeHost& git_file(const std::string& path, const std::string& gitdir) {
    PathFacts f = make(path, path, Kind::file);
    f.gitdir = gitdir;
    return add(f);
  }
  FakeHost& add(PathFacts f) {
    facts_.paths[f.path] = f;
    return *this;
  }
  FakeHost& workspace(PathFacts f) {
    facts_.workspace = f;
    facts_.tokens.workspace = f.canonical;
    return *this;
  }
  FakeHost& cwd(PathFacts f) {
    facts_.cwd = f;
    return *this;
  }
  // The operator settings directories exist (both are directories).
  FakeHost& operator_dirs_exist() {
    for (auto& dir : facts_.operator_dirs) dir = make(dir.path, dir.canonical, Kind::directory);
    return *this;
  }
  // holdfast's state directory at `path` (canonical, as given).
  FakeHost& state_dir(PathFacts f) {
    facts_.state_dir = f;
    return *this;
  }
  // A repository below a writable root: its .git (a directory here).
  FakeHost& nested_git(const std::string& git) {
    dir(git);
    facts_.nested_git.push_back(git);
    return *this;
  }
  // The device and inode holdfast met at `path`.
  FakeHost& identity(const std::string& path, FileId id) {
    facts_.identities[path] = id;
    return *this;
  }
  // An operator settings file the snapshot read as `read`; `now` is what
  // the path shows now.
  FakeHost& settings_file(PathFacts now, FileId read) {
    facts_.settings_files.push_back({std::move(now), read});
    return *this;
  }
  HostFacts& facts() { return facts_; }

  static PathFacts make(const std::string& path, const std::string& canonical, Kind kind,
                        const std::string& existing_ancestor = "") {
    PathFacts f;
    f.path = path;
    f.canonical = canonical;
    f.kind = kind;
    f.existing_ancestor = kind == Kind::missing ? existing_ancestor : canonical;
    return f;
  }

 private:
  HostFacts facts_;
};

}  // namespace holdfast::sandbox::testing
