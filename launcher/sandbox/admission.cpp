#include "launcher/sandbox/admission.hpp"

#include <algorithm>
#include <optional>

#include "launcher/sandbox/paths.hpp"
#include "launcher/sandbox/resolve.hpp"

namespace holdfast::sandbox {

namespace {

// The system's own trees: a workspace may be neither inside one nor
// contain one.
constexpr std::string_view kSystemDirs[] = {"/proc",   "/dev",  "/sys", "/etc",   "/usr",
                                            "/bin",    "/sbin", "/lib", "/lib32", "/lib64",
                                            "/libx32", "/boot", "/efi"};

// Directories that hold system state or other users' files as a whole.
// Projects live below them (/var/tmp/build, /home/me/src, /srv/www/site),
// so only the directory itself is refused — with `children`, each entry
// directly inside it too (/home/other is someone's whole home, /run/user/N
// a session's sockets and secrets) — and anything that contains it.
struct SharedDir {
  std::string_view path;
  bool children;
  std::string_view holds;
};
constexpr SharedDir kSharedDirs[] = {
    {"/var", false, "system state"},
    {"/var/lib", true, "the state of system services"},
    {"/var/cache", false, "system caches"},
    {"/var/log", false, "system logs"},
    {"/var/spool", false, "queued mail and jobs of every user"},
    {"/var/mail", false, "every user's mail"},
    {"/var/tmp", false, "every user's temporary files"},
    {"/var/home", true, "every user's home directory"},
    {"/tmp", false, "every user's temporary files"},
    {"/run", false, "runtime state and service sockets"},
    {"/run/user", true, "every user's session (sockets, keyrings, secrets)"},
    {"/run/media", true, "every user's mounted media"},
    {"/home", true, "every user's home directory"},
    {"/root", false, "the root user's home directory"},
    {"/srv", false, "the data of every served site"},
    {"/opt", false, "installed software"},
    {"/mnt", false, "mounted file systems"},
    {"/media", true, "mounted media"},
    {"/snap", false, "installed software"},
};

void check_workspace(const HostFacts& facts, std::vector<Refusal>& out) {
  const PathFacts& ws = facts.workspace;
  const std::string& path = ws.canonical;
  const std::string pick = "choose a project directory with --workspace DIR";
  if (ws.kind != Kind::directory) {
    out.push_back(
        {"workspace-missing", ws.path, "",
         ws.exists() ? "the workspace is not a directory" : "the workspace does not exist",
         "create it or " + pick});
    return;  // the other rules need a real directory
  }
  if (facts.workspace_is_bare) {
    out.push_back({"workspace-is-bare-repository", path, "",
                   "the workspace has the layout of a bare git repository (HEAD, objects/ and "
                   "refs/ outside .git): git run there takes the directory itself for a "
                   "repository, whose config and hooks the command could write and git would "
                   "then obey, unconfined",
                   "move HEAD, objects, refs and config into .git (or remove them) if they are "
                   "not meant to be a repository; set git config --global "
                   "safe.bareRepository explicit; or choose a project directory with "
                   "--workspace DIR"});
  }
  if (path == "/") {
    out.push_back(
        {"workspace-is-root", path, "", "the workspace is the whole filesystem (/)", pick});
    return;
  }
  if (!facts.tokens.home.empty() && is_within(facts.tokens.home, path)) {
    out.push_back({"workspace-contains-home", path, "",
                   "the workspace contains the home directory " + facts.tokens.home,
                   "use a project directory below your home instead: " + pick});
  }
  for (const auto dir : kSystemDirs) {
    if (overlaps(path, dir)) {
      out.push_back({"workspace-overlaps-system", path, "",
                     "the workspace overlaps the system directory " + std::string(dir),
                     "use a project directory outside the system directories: " + pick});
    }
  }
  for (const auto& dir : kSharedDirs) {
    const bool is_child = dir.children && path != dir.path && parent_path(path) == dir.path;
    if (is_within(dir.path, path) || is_child) {
      out.push_back({"workspace-holds-shared-state", path, "",
                     "the workspace " +
                         std::string(is_child ? "is a whole entry of " : "contains ") +
                         std::string(dir.path) + ", which holds " + std::string(dir.holds) +
                         "; making it writable would expose them",
                     "use a project directory below it: " + pick});
    }
  }
  for (const auto& dir : facts.operator_dirs) {
    if (overlaps(path, dir.canonical)) {
      out.push_back({"workspace-overlaps-settings", path, "",
                     "the workspace overlaps holdfast's operator settings directory " +
                         dir.canonical + ", which must never be writable inside",
                     "use a project directory apart from the settings directories: " + pick});
    }
  }
  if (!facts.cwd.exists() || !is_within(facts.cwd.canonical, path) || !facts.cwd_within_workspace) {
    out.push_back({"cwd-outside-workspace", facts.cwd.canonical, "",
                   "the current directory is not inside the workspace " + path,
                   "cd into the workspace, or pass --workspace with a directory that contains "
                   "the current one"});
  }
}

void check_entries(const ResolvedPolicy& resolved, const HostFacts& facts,
                   std::vector<Refusal>& out) {
  for (const auto& rule : resolved.rules) {
    if (rule.source != RuleSource::entry) continue;
    if (rule.path != "/" && (is_within(rule.path, "/proc") || is_within(rule.path, "/dev"))) {
      out.push_back({"entry-in-fresh-mount", rule.path, rule.entry,
                     "/proc and /dev are always fresh inside the sandbox; an entry there cannot "
                     "be enforced",
                     "remove the entry"});
      continue;
    }
    if (rule.access == Access::write) {
      for (const auto& dir : facts.operator_dirs) {
        if (is_within(rule.path, dir.canonical)) {
          out.push_back({"settings-dir-writable", rule.path, rule.entry,
                         "holdfast's operator settings directory " + dir.canonical +
                             " is never writable inside the sandbox",
                         "change the entry to read or deny, or remove it"});
        }
      }
    }
  }
  // Carve-outs (read/deny entries) and protected names, by the path the
  // operator wrote, because that is where the symlinks are.
  for (const auto& entry : resolved.entries) {
    if (entry.access == Access::write) continue;
    const PathFacts& f = entry.facts;
    for (const auto& hop : f.symlinks) {
      if (resolved.access_at(hop.parent) == Access::write) {
        out.push_back({"carve-out-through-writable-symlink", entry.path, entry.written,
                       "the path goes through the symlink " + hop.link +
                           ", which lies in a writable directory and could be retargeted from "
                           "inside the sandbox",
                       "write the entry with the symlink's target (" + f.canonical + "), or make " +
                           hop.parent + " read-only"});
        break;
      }
    }
    if (!f.exists() && resolved.access_at(f.existing_ancestor) == Access::write) {
      out.push_back({"missing-carve-out-under-writable", f.canonical, entry.written,
                     "the path does not exist and its parent " + f.existing_ancestor +
                         " is writable: the sandboxed command could create it, and bubblewrap "
                         "can only mask paths that exist",
                     "create it first (mkdir or touch), or remove the entry"});
    }
  }
  for (const auto& rule : resolved.rules) {
    if (rule.source != RuleSource::protected_name) continue;
    const auto known = facts.paths.find(rule.path);
    if (known == facts.paths.end() || !known->second.link_target) continue;
    const bool git = split_path(rule.path).back() == ".git";
    // Another user's symlink in a shared directory: the caller cannot
    // replace it, its owner can retarget it at any time.
    const auto owner = facts.ownership.find(rule.path);
    const bool others = owner != facts.ownership.end() && owner->second.owner != facts.caller_uid &&
                        owner->second.owner != 0;
    std::string remedy;
    if (others) {
      remedy = "ask uid " + std::to_string(owner->second.owner) + " to remove it (rm " + rule.path +
               "), or work in a directory only you can write";
    } else if (git) {
      remedy = "replace the symlink with a gitdir: file or a real directory, or make " +
               rule.entry + " read-only";
    } else {
      remedy = "replace the symlink with what it points to, make " + rule.entry +
               " read-only, or lift the name in an operator scope (tools.protectedNames.lift)";
    }
    out.push_back(
        {"protected-name-is-symlink", rule.path, rule.entry,
         "the protected name is a symlink (to " + *known->second.link_target +
             ") inside the writable root " + rule.entry +
             (others ? "; it belongs to uid " + std::to_string(owner->second.owner) +
                           ", who can retarget it at any time, and you may not be able to "
                           "remove it"
                     : "; it could be replaced from inside the sandbox"),
         remedy});
  }
  // Paths read again after this launch must not go through a symlink the
  // command could retarget.
  const auto trusted_path = [&](const PathFacts& f, const std::string& what,
                                const std::string& entry) {
    for (const auto& hop : f.symlinks) {
      if (resolved.access_at(hop.parent) != Access::write) continue;
      out.push_back({"trusted-path-through-writable-symlink", f.path, entry,
                     what + " goes through the symlink " + hop.link +
                         ", which lies in a writable directory: the command could retarget it "
                         "and choose what is read there next time",
                     "replace the symlink with the real directory (" + f.canonical + "), or make " +
                         hop.parent + " read-only"});
      return;
    }
  };
  for (const auto& dir : facts.operator_dirs) {
    trusted_path(dir, "holdfast's operator settings directory", "");
  }
  for (const auto& rule : resolved.rules) {
    if (!protects_repository(rule.source)) continue;
    // A protected name the host facts do not have is missing (no gitdir).
    const auto known = facts.paths.find(
        rule.source == RuleSource::nested_repo ? join_path(rule.entry, ".git") : rule.path);
    if (known == facts.paths.end()) continue;
    const PathFacts& git = known->second;
    if (git.gitdir) {
      trusted_path(facts.at(*git.gitdir), "the gitdir of the protected " + rule.path, rule.entry);
    }
  }
  if (facts.state_dir) trusted_path(*facts.state_dir, "holdfast's state directory", "");
  // A missing protected path under a writable parent is kept from being
  // created by an empty read-only directory mounted there; bubblewrap can
  // create that mount point, but not a missing directory above it that must
  // also be pinned (it resolves bind sources before mounting anything).
  for (const auto& rule : resolved.rules) {
    if (rule.source != RuleSource::operator_dir && rule.source != RuleSource::gitdir &&
        rule.source != RuleSource::state_dir && rule.source != RuleSource::git_config) {
      continue;
    }
    if (rule.kind != Kind::missing) continue;
    const PathFacts& f =
        rule.source == RuleSource::gitdir      ? facts.at(rule.entry)
        : rule.source == RuleSource::state_dir ? *facts.state_dir
        : rule.source == RuleSource::git_config
            ? facts.at(std::find_if(facts.git_targets.begin(), facts.git_targets.end(),
                                    [&](const GitTarget& t) {
                                      return facts.at(t.path).canonical == rule.path;
                                    })
                           ->path)
            : *std::find_if(facts.operator_dirs.begin(), facts.operator_dirs.end(),
                            [&](const PathFacts& d) { return d.canonical == rule.path; });
    if (f.existing_ancestor == parent_path(f.canonical)) continue;
    const char* what = rule.source == RuleSource::gitdir ? "the gitdir of a protected .git file"
                       : rule.source == RuleSource::state_dir ? "holdfast's state directory"
                       : rule.source == RuleSource::git_config
                           ? "a path git's configuration names"
                           : "holdfast's operator settings directory";
    out.push_back(
        {"trusted-path-missing-under-writable", rule.path, rule.entry,
         std::string(what) + " does not exist, nor does its parent, and " + f.existing_ancestor +
             " is writable: the sandboxed command could create it",
         "create it (mkdir -p " + rule.path + ") or make " + f.existing_ancestor + " read-only"});
  }
  if (resolved.access_at(facts.cwd.canonical) == Access::deny && facts.cwd.exists()) {
    out.push_back({"cwd-denied", facts.cwd.canonical, "",
                   "the policy denies the current directory, so the command could not start there",
                   "add a read or write entry for the workspace (\":workspace\") or cd elsewhere"});
  }
}

// holdfast's state directory holds the launch records: like the settings
// directories, nothing inside may write it (build_rules keeps it read-only
// under a writable root; the symlink checks are in check_entries).
void check_workspace_apart_from_state_dir(const HostFacts& facts, std::vector<Refusal>& out) {
  if (!facts.state_dir) return;
  const std::string& dir = facts.state_dir->canonical;
  if (overlaps(facts.workspace.canonical, dir)) {
    out.push_back({"workspace-overlaps-state", facts.workspace.canonical, "",
                   "the workspace overlaps holdfast's state directory " + dir +
                       " (launch records), which must never be writable inside",
                   "use a project directory apart from the state directory, or set "
                   "HOLDFAST_STATE_DIR elsewhere"});
  }
}

void check_state_dir_entries(const ResolvedPolicy& resolved, const HostFacts& facts,
                             std::vector<Refusal>& out) {
  if (!facts.state_dir) return;
  const std::string& dir = facts.state_dir->canonical;
  for (const auto& entry : resolved.entries) {
    if (entry.access != Access::write) continue;
    const std::string& canonical = entry.facts.canonical;
    if (!is_within(canonical, dir)) continue;
    out.push_back({"state-dir-writable", canonical, entry.written,
                   "holdfast's state directory " + dir +
                       " (launch records) is never writable inside the sandbox",
                   "change the entry to read or deny, or remove it"});
  }
}

// The next launch reads the operator settings files: the command must not
// be able to write the file that was read, under any of its names.
void check_settings_files(const ResolvedPolicy& resolved, const HostFacts& facts,
                          std::vector<Refusal>& out) {
  const auto& rules = resolved.rules;
  // The devices that writable binds expose.
  std::vector<std::pair<dev_t, std::string>> writable_devices;
  for (const auto& rule : rules) {
    if (rule.access != Access::write || rule.kind == Kind::missing) continue;
    if (const auto it = facts.identities.find(rule.path); it != facts.identities.end()) {
      writable_devices.emplace_back(it->second.device, rule.path);
    }
  }
  for (const auto& file : facts.settings_files) {
    const PathFacts& f = file.facts;
    if (!f.exists() || f.id != file.read) {
      out.push_back(
          {"settings-file-changed", f.path, "",
           "the settings file is no longer the file that was read a moment ago",
           "start the launch again; if this repeats, find what keeps replacing the file"});
      continue;
    }
    if (resolved.access_at(f.canonical) == Access::write) {
      out.push_back({"settings-file-writable-inside", f.path, "",
                     "the settings file " +
                         (f.canonical == f.path ? std::string("is writable inside the sandbox")
                                                : "is a symlink to " + f.canonical +
                                                      ", which is writable inside the sandbox") +
                         ": the command could rewrite the policy of the next launch",
                     "keep settings files in the settings directory itself, not linked to a path "
                     "the policy makes writable"});
      continue;
    }
    for (const auto& hop : f.symlinks) {
      if (resolved.access_at(hop.parent) != Access::write) continue;
      out.push_back({"trusted-path-through-writable-symlink", f.path, "",
                     "the settings file goes through the symlink " + hop.link +
                         ", which lies in a writable directory: the command could retarget it "
                         "and choose what the next launch reads",
                     "replace the symlink with the real file (" + f.canonical + ")"});
      break;
    }
    if (f.links <= 1) continue;
    for (const auto& [device, path] : writable_devices) {
      if (device != f.id.device) continue;
      out.push_back({"settings-file-linked-into-writable", f.path, "",
                     "the settings file has " + std::to_string(f.links) +
                         " names (hard links) on the file system of the writable path " + path +
                         ": one of them could be inside the sandbox, where the command could "
                         "rewrite the policy of the next launch",
                     "remove the other names (find / -xdev -samefile " + f.canonical +
                         "), or save the settings again (holdfast writes a new file)"});
      break;
    }
  }
}

}  // namespace

// The walk for protected names and repositories did not finish: what lies
// deeper would stay writable, so the launch does not start (fail closed).
void check_protection_scan(const HostFacts& facts, std::vector<Refusal>& out) {
  if (facts.tree.complete) return;
  const std::string& root =
      facts.tree.unfinished.empty() ? facts.workspace.canonical : facts.tree.unfinished;
  out.push_back(
      {"protection-scan-incomplete", root, "",
       "the project's writable directories hold more than " + std::to_string(facts.scan_budget) +
           " directories (.git and node_modules not counted); holdfast walks them before every "
           "launch to keep the existing protected names (.envrc, .vscode, .claude, nested .git, "
           "...) read-only, and what lies past the limit would stay writable",
       "choose a smaller project directory with --workspace DIR, or raise "
       "tools.protectedNames.scanLimit in the user or system settings (holdfast settings edit; "
       "each 1,000 directories add about 15-25 ms to every launch, see README)"});
}

bool workspace_holds_rules(const HostFacts& facts) {
  return facts.workspace.kind == Kind::directory && facts.workspace.canonical != "/";
}

void check_workspace_admission(const HostFacts& facts, std::vector<Refusal>& out) {
  check_workspace(facts, out);
  check_protection_scan(facts, out);
  if (workspace_holds_rules(facts)) check_workspace_apart_from_state_dir(facts, out);
}

void check_rule_admission(const ResolvedPolicy& resolved, const HostFacts& facts,
                          std::vector<Refusal>& out) {
  check_entries(resolved, facts, out);
  check_state_dir_entries(resolved, facts, out);
  check_settings_files(resolved, facts, out);
}

}  // namespace holdfast::sandbox
