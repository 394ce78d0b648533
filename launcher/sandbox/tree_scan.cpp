#include "launcher/sandbox/tree_scan.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <deque>

#include "base/dir_entries.hpp"
#include "base/fd.hpp"
#include "launcher/sandbox/host_facts.hpp"
#include "launcher/sandbox/paths.hpp"

namespace holdfast::sandbox {

namespace {

bool skipped(std::string_view name) {
  return std::find(std::begin(kRepoScanSkipped), std::end(kRepoScanSkipped), name) !=
         std::end(kRepoScanSkipped);
}

// Kernel and control file systems: they never hold a project, bubblewrap
// gives the sandbox its own /proc and /dev, and /sys alone has thousands of
// directories that would spend a wide root's budget.
bool is_pseudo_file_system(int dir_fd) {
  struct statfs fs {};
  if (::fstatfs(dir_fd, &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
    case DEVPTS_SUPER_MAGIC:
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case SECURITYFS_MAGIC:
    case PSTOREFS_MAGIC:
    case BPF_FS_MAGIC:
    case BINFMTFS_MAGIC:
    case HUGETLBFS_MAGIC:
      return true;
    default:
      return false;
  }
}

// The parts of the bare-repository layout seen in one directory.
struct BareLayout {
  bool head = false;
  bool objects = false;
  bool refs = false;
  bool complete() const { return head && objects && refs; }
};

}  // namespace

void scan_tree(const std::string& root, const ProtectedNames& names, std::size_t& budget,
               TreeScan& scan, WalkEnd end) {
  scan.roots.push_back(root);
  if (end == WalkEnd::best_effort) scan.best_effort.insert(root);
  struct Pending {
    std::string dir;
    std::size_t depth;  // levels below the root
  };
  std::deque<Pending> todo = {{root, 0}};
  const std::size_t limit = end == WalkEnd::best_effort ? kWideRootWalk : budget;
  std::size_t read_here = 0;
  while (!todo.empty()) {
    const bool is_root = todo.front().dir == root && scan.listed.count(root) == 0;
    if ((budget == 0 || read_here >= limit) && !is_root) {
      // Breadth first: every directory above the first one left was read,
      // so every entry down to its level was seen.
      if (end == WalkEnd::must_finish) {
        if (scan.complete) scan.unfinished = root;
        scan.complete = false;
      } else {
        scan.partial.push_back({root, todo.front().depth});
      }
      break;
    }
    const std::string dir = std::move(todo.front().dir);
    const std::size_t depth = todo.front().depth;
    todo.pop_front();
    // O_NOFOLLOW: a directory swapped for a symlink since it was listed is
    // not followed out of the root. Gone, replaced or unreadable to this
    // user: nothing of it can be protected, and the launch does not stop
    // for what it cannot see.
    if (budget > 0) --budget;
    ++read_here;
    ++scan.directories;
    const base::UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid() || is_pseudo_file_system(fd.get())) continue;
    scan.listed.insert(dir);
    BareLayout bare;
    base::for_each_entry(fd.get(), [&](std::string_view name, unsigned char type) {
      if (type == DT_UNKNOWN) {
        struct stat st {};
        if (::fstatat(fd.get(), name.data(), &st, AT_SYMLINK_NOFOLLOW) != 0) return true;
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
      }
      if (name == "HEAD") bare.head = type == DT_REG || type == DT_LNK;
      if (name == "objects") bare.objects = type == DT_DIR;
      if (name == "refs") bare.refs = type == DT_DIR;
      if (is_protected_component(names, name)) scan.names.push_back(join_path(dir, name));
      if (name == ".git") {
        if (dir != root && (type == DT_DIR || type == DT_REG)) {
          scan.git.push_back(join_path(dir, name));
        }
        return true;
      }
      if (type != DT_DIR) return true;
      std::string sub = join_path(dir, name);
      scan.subdirs.insert(sub);
      // Read by an earlier root's walk (the workspace inside ":home").
      if (skipped(name) || scan.listed.contains(sub)) return true;
      todo.push_back({std::move(sub), depth + 1});
      return true;
    });
    if (bare.complete()) scan.bare.push_back(dir);
  }
}

namespace {

// True when `dir` did not exist at the first walk, as far as it can tell.
bool is_new_directory(const TreeScan& before, const std::string& dir) {
  for (std::string at = dir;; at = parent_path(at)) {
    if (before.listed.contains(at) || before.subdirs.contains(at)) return false;
    if (has_path(before.roots, at) || at == "/") return false;
    const std::string parent = parent_path(at);
    if (before.listed.contains(parent)) return true;  // read then, and `at` was not in it
  }
}

bool created(const TreeScan& before, const std::vector<std::string>& known,
             const std::string& path) {
  if (has_path(known, path)) return false;
  const std::string dir = parent_path(path);
  return before.listed.contains(dir) || is_new_directory(before, dir);
}

}  // namespace

TreeChanges compare_scans(const TreeScan& before, const TreeScan& after) {
  TreeChanges changes;
  for (const auto& dir : after.bare) {
    if (has_path(before.bare, dir)) continue;
    if (before.listed.contains(dir) || is_new_directory(before, dir)) changes.bare.push_back(dir);
  }
  for (const auto& git : after.git) {
    if (created(before, before.git, git)) changes.git.push_back(git);
  }
  for (const auto& name : after.names) {
    // A .git is reported as a repository (a root's own .git cannot be
    // created: it is guarded).
    if (split_path(name).back() == ".git") continue;
    if (created(before, before.names, name)) changes.names.push_back(name);
  }
  return changes;
}

namespace {

bool is_empty_directory(const std::string& path) {
  const base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return false;
  bool empty = true;
  base::for_each_entry(fd.get(), [&](std::string_view, unsigned char) { return empty = false; });
  return empty;
}

void drop_empty(std::vector<std::string>& paths) { std::erase_if(paths, is_empty_directory); }

}  // namespace

TreeChanges changes_since(const TreeScan& before, const ProtectedNames& names, std::size_t budget) {
  TreeScan after;
  for (const auto& root : before.roots) {
    scan_tree(root, names, budget, after,
              before.best_effort.contains(root) ? WalkEnd::best_effort : WalkEnd::must_finish);
  }
  TreeChanges changes = compare_scans(before, after);
  drop_empty(changes.git);
  drop_empty(changes.names);
  return changes;
}

}  // namespace holdfast::sandbox
