#include "launcher/sandbox/submounts.hpp"

#include <algorithm>
#include <map>

#include "launcher/sandbox/paths.hpp"

namespace holdfast::sandbox {

namespace {

// /proc and /dev are fresh inside the sandbox: nothing the host mounted
// there is shown.
bool under_fresh_mount(const std::string& path) {
  return is_within(path, "/proc") || is_within(path, "/dev");
}

// `path` relative to `root` (which contains it): "" when equal.
std::string relative_to(const std::string& path, const std::string& root) {
  if (path == root) return "";
  return root == "/" ? path.substr(1) : path.substr(root.size() + 1);
}

// The mount tree by parent: which mount the reader meets at a path.
class MountTree {
 public:
  explicit MountTree(const MountTable& table) {
    for (const auto& entry : table) {
      if (entry.id != entry.parent_id) children_[entry.parent_id].push_back(&entry);
    }
    // The root: a mount at "/" that is not mounted on another mount at "/".
    for (const auto& entry : table) {
      if (entry.mount_point != "/") continue;
      const bool on_another = std::any_of(table.begin(), table.end(), [&](const MountEntry& e) {
        return e.id == entry.parent_id && e.mount_point == "/" && &e != &entry;
      });
      if (!on_another) {
        root_ = &entry;
        break;
      }
    }
  }

  // The mount met at `path`: from the root, down through the topmost mount
  // at each component (a mount made on top of another at the same place
  // has that one as its parent). nullptr for an empty table.
  const MountEntry* visible(const std::string& path) const {
    const MountEntry* current = root_;
    if (current == nullptr) return nullptr;
    climb(current, "/");
    std::string at = "/";
    for (const auto& part : split_path(path)) {
      at = join_path(at, part);
      climb(current, at);
    }
    return current;
  }

  const std::vector<const MountEntry*>& children(int id) const {
    static const std::vector<const MountEntry*> kNone;
    const auto it = children_.find(id);
    return it == children_.end() ? kNone : it->second;
  }

 private:
  void climb(const MountEntry*& current, const std::string& at) const {
    for (bool moved = true; moved;) {
      moved = false;
      for (const MountEntry* child : children(current->id)) {
        if (child->mount_point == at) {
          current = child;
          moved = true;
          break;
        }
      }
    }
  }

  std::map<int, std::vector<const MountEntry*>> children_;
  const MountEntry* root_ = nullptr;
};

// The mounts a bind could show, shallow first: every mount but the root,
// not under /proc or /dev, that the reader can reach.
std::vector<const MountEntry*> shown_mounts(const MountTable& table) {
  const MountTree tree(table);
  std::vector<const MountEntry*> shown;
  for (const auto& entry : table) {
    if (entry.mount_point == "/" || under_fresh_mount(entry.mount_point)) continue;
    if (tree.visible(entry.mount_point) == &entry) shown.push_back(&entry);
  }
  std::stable_sort(shown.begin(), shown.end(), [](const MountEntry* a, const MountEntry* b) {
    return path_depth(a->mount_point) < path_depth(b->mount_point);
  });
  return shown;
}

bool masked_kernel_interface(const MountEntry& mount) {
  return is_kernel_interface(mount.fs_type) && !is_system_sysfs(mount);
}

}  // namespace

std::optional<FilesystemPath> filesystem_path(const MountTable& table, const std::string& path) {
  const MountEntry* mount = MountTree(table).visible(path);
  if (mount == nullptr) return std::nullopt;
  return FilesystemPath{mount->device,
                        join_path(mount->root, relative_to(path, mount->mount_point))};
}

std::vector<std::string> alias_paths(const MountTable& table, const std::string& denied,
                                     const std::vector<Window>& windows) {
  std::vector<std::string> aliases;
  const auto where = filesystem_path(table, denied);
  if (!where) return aliases;
  for (const auto& window : windows) {
    if (window.shows.device != where->device) continue;
    std::string alias;
    if (is_within(where->path, window.shows.path)) {
      // The window contains the denied content.
      alias = join_path(window.path, relative_to(where->path, window.shows.path));
    } else if (is_within(window.shows.path, where->path)) {
      // The window is part of the denied content; at its own place it
      // would be join(denied, rest) (a path reopened below a deny).
      if (window.path == join_path(denied, relative_to(window.shows.path, where->path))) continue;
      alias = window.path;
    } else {
      continue;
    }
    if (alias != denied && std::find(aliases.begin(), aliases.end(), alias) == aliases.end()) {
      aliases.push_back(alias);
    }
  }
  return aliases;
}

std::vector<const MountEntry*> mounts_below(const MountTable& table, const std::string& path) {
  std::vector<const MountEntry*> below;
  const MountTree tree(table);
  const MountEntry* top = tree.visible(path);
  if (top == nullptr) return below;
  // Descendants of the mount at `path` (parent links), below `path`.
  std::vector<const MountEntry*> todo = {top};
  while (!todo.empty()) {
    const MountEntry* at = todo.back();
    todo.pop_back();
    for (const MountEntry* child : tree.children(at->id)) {
      todo.push_back(child);
      if (child->mount_point != path && is_within(child->mount_point, path) &&
          !under_fresh_mount(child->mount_point)) {
        below.push_back(child);
      }
    }
  }
  std::sort(below.begin(), below.end(), [&](const MountEntry* a, const MountEntry* b) {
    return a - table.data() < b - table.data();
  });
  return below;
}

std::vector<Rule> submount_rules(const std::vector<Rule>& rules, const HostFacts& facts) {
  const MountTable& table = facts.mounts;
  std::vector<Rule> all = rules;
  std::vector<Rule> added;
  const auto named = [&](const std::string& path) {
    return std::any_of(all.begin(), all.end(), [&](const Rule& r) { return r.path == path; });
  };
  const auto add = [&](Rule rule) {
    all.push_back(rule);
    added.push_back(std::move(rule));
  };

  // Kernel interfaces, shallow first, so that a mount below a masked one is
  // seen as hidden; every other mount shown is a window.
  std::vector<const MountEntry*> shown;
  for (const MountEntry* mount : shown_mounts(table)) {
    const std::string& path = mount->mount_point;
    if (named(path)) continue;                                // the policy's own rule decides
    if (resolve(all, path).access == Access::deny) continue;  // hidden
    if (masked_kernel_interface(*mount)) {
      add(Rule{path, Access::deny, RuleSource::kernel_mount, mount->fs_type, facts.at(path).kind});
    } else {
      shown.push_back(mount);
    }
  }

  // Denied content shown again, through every place that shows host
  // content: before the mounts below writable paths become read-only, so
  // that a bind of ~/.ssh is masked, not merely read-only.
  std::vector<Window> windows;
  for (const auto& rule : all) {
    if (rule.access == Access::deny || rule.kind == Kind::missing) continue;
    if (resolve(all, rule.path).access == Access::deny) continue;
    if (auto shows = filesystem_path(table, rule.path)) windows.push_back({rule.path, *shows});
  }
  for (const MountEntry* mount : shown) {
    if (resolve(all, mount->mount_point).access == Access::deny) continue;
    windows.push_back({mount->mount_point, {mount->device, mount->root}});
  }
  for (const auto& rule : rules) {
    if (rule.access != Access::deny || rule.kind == Kind::missing ||
        (rule.source != RuleSource::entry && rule.source != RuleSource::private_tmp)) {
      continue;
    }
    for (const auto& alias : alias_paths(table, rule.path, windows)) {
      if (named(alias) || resolve(all, alias).access == Access::deny) continue;
      add(Rule{alias, Access::deny, RuleSource::denied_alias, rule.path, rule.kind});
    }
  }

  // The other mounts below writable paths, read-only.
  for (const MountEntry* mount : shown) {
    const std::string& path = mount->mount_point;
    if (named(path) || resolve(all, path).access != Access::write) continue;
    add(Rule{path, Access::read, RuleSource::submount, mount->fs_type, facts.at(path).kind});
  }
  return added;
}

std::vector<std::string> submount_paths_to_probe(
    const MountTable& table, const std::vector<std::pair<std::string, Access>>& entries,
    const std::vector<std::string>& denied) {
  // The access of `path` by the entries alone: the deepest containing
  // entry, ties deny > write > read; nullopt when none contains it.
  const auto access_of = [&](const std::string& path) -> std::optional<Access> {
    std::optional<Access> best;
    std::size_t depth = 0;
    for (const auto& [entry, access] : entries) {
      if (!is_within(path, entry)) continue;
      const std::size_t d = path_depth(entry);
      if (!best || d > depth || (d == depth && access > *best)) {
        best = access;
        depth = d;
      }
    }
    return best;
  };
  std::vector<std::string> paths;
  std::vector<Window> windows;
  for (const auto& [path, access] : entries) {
    if (access == Access::deny) continue;
    if (auto shows = filesystem_path(table, path)) windows.push_back({path, *shows});
  }
  for (const MountEntry* mount : shown_mounts(table)) {
    const auto access = access_of(mount->mount_point);
    if (!access || *access == Access::deny) continue;
    windows.push_back({mount->mount_point, {mount->device, mount->root}});
    if (masked_kernel_interface(*mount) || *access == Access::write) {
      paths.push_back(mount->mount_point);
    }
  }
  for (const auto& path : denied) {
    for (auto& alias : alias_paths(table, path, windows)) paths.push_back(std::move(alias));
  }
  return paths;
}

}  // namespace holdfast::sandbox
