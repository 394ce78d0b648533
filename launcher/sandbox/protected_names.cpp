#include "launcher/sandbox/protected_names.hpp"

#include <algorithm>

#include "launcher/sandbox/paths.hpp"

namespace holdfast::sandbox {

namespace {

using enum NameScope;
using enum WhenMissing;

constexpr ProtectedNameRow kBuiltinProtectedNames[] = {
    // holdfast itself (an entry such as ":workspace/.git": "write" opens one path)
    {".git", every_directory, guard, false,
     "git: a repository's config and hooks; git looks for .git in the current directory and "
     "every parent, and runs core.fsmonitor, core.hooksPath and hooks on the next status or "
     "commit"},
    {".holdfast", every_directory, guard, false,
     "holdfast: the workspace scope (deny and ask rules, added protected names)"},
    // git's files in a worktree
    {".gitmodules", every_directory, guard, true,
     "git: submodule URLs and paths at a worktree's top; `git submodule update` clones and "
     "checks out what it names"},
    {".gitattributes", every_directory, guard, true,
     "git: attributes in every directory of a worktree choose the filter, diff and merge drivers "
     "that run on checkout, add and diff"},
    {".lfsconfig", every_directory, guard, true,
     "git-lfs: its settings at a worktree's top (endpoints, transfer agents) on every fetch and "
     "checkout"},
    // editors
    {".vscode", every_directory, guard, true,
     "VS Code: the opened folder's settings (interpreter and tool paths), tasks (runOn: "
     "folderOpen) and launch configurations"},
    {".idea", every_directory, guard, true,
     "JetBrains IDEs: project settings, run configurations and startup tasks"},
    {".zed", every_directory, guard, true,
     "Zed: project settings (language server binaries) and tasks"},
    {".helix", every_directory, guard, true,
     "Helix: workspace config and languages.toml (language server commands), found by walking up "
     "to a .git or .helix"},
    {".nvim.lua", every_directory, report, true,
     "Neovim 'exrc': run from the current directory (Neovim asks before running a new or changed "
     "file)"},
    {".exrc", every_directory, report, true,
     "Vim and Neovim 'exrc': run from the current directory (Neovim asks first)"},
    // direnv, version managers, package managers
    {".envrc", every_directory, report, true,
     "direnv: sourced on cd into the directory or below (only after `direnv allow` of that "
     "content)"},
    {".tool-versions", every_directory, report, true,
     "asdf and mise: the tool versions (and plugins) for the directory and below"},
    {".mise.toml", every_directory, report, true,
     "mise: environment, tasks and hooks for the directory and below (after `mise trust`)"},
    {"mise.toml", every_directory, report, true, "mise: as .mise.toml (after `mise trust`)"},
    {".npmrc", every_directory, guard, true,
     "npm: project configuration read by every npm command there (registry, script-shell, "
     "node-options, git)"},
    {".pre-commit-config.yaml", every_directory, report, true,
     "pre-commit: the hooks its git hook runs on every commit"},
    // coding agents
    {".qwen", every_directory, guard, true,
     "Qwen Code: settings.json sets its own sandbox, MCP server commands and hooks"},
    {".claude", every_directory, guard, true,
     "Claude Code: settings.json hooks and permissions, commands, agents"},
    {".codex", every_directory, guard, true,
     "Codex: project config.toml (sandbox mode, MCP servers) for trusted projects"},
    {".gemini", every_directory, guard, true,
     "Gemini CLI: settings.json (MCP servers, tool discovery command, sandbox)"},
    {".cursor", every_directory, guard, true, "Cursor: rules and mcp.json (MCP server commands)"},
    {".mcp.json", every_directory, guard, true,
     "Claude Code and other agents: the project's MCP servers (commands the agent starts)"},
    // the home directory (under a policy that makes it writable)
    {".bashrc", home, guard, true, "bash: run by every interactive shell"},
    {".bash_profile", home, guard, true, "bash: run by every login shell"},
    {".bash_login", home, guard, true, "bash: run by a login shell without .bash_profile"},
    {".bash_logout", home, guard, true, "bash: run when a login shell exits"},
    {".profile", home, guard, true, "sh, bash, dash: run by every login shell"},
    {".zshrc", home, guard, true, "zsh: run by every interactive shell"},
    {".zshenv", home, guard, true, "zsh: run by every zsh, scripts included"},
    {".zprofile", home, guard, true, "zsh: run by every login shell"},
    {".zlogin", home, guard, true, "zsh: run by every login shell"},
    {".zlogout", home, guard, true, "zsh: run when a login shell exits"},
    {".pam_environment", home, guard, true, "PAM: environment of the next login"},
    {".gitconfig", home, guard, true,
     "git: the global configuration (aliases, hooksPath, fsmonitor, includes) of every repository"},
    {".config/git", home, guard, true, "git: the global configuration, XDG location"},
    {".ssh", home, guard, true,
     "ssh: config (ProxyCommand, LocalCommand) and authorized_keys (who may log in)"},
    {".config/systemd", home, guard, true, "systemd: user units started at the next login"},
    {".config/autostart", home, guard, true,
     "desktop sessions: programs started at the next login"},
    {".config/environment.d", home, guard, true, "systemd: environment of the next user session"},
    {".config/fish", home, guard, true, "fish: config.fish, run by every shell"},
    {".config/nvim", home, guard, true, "Neovim: init.lua, run at every start"},
    {".vimrc", home, guard, true, "Vim: run at every start"},
    {".local/bin", home, guard, true,
     "on PATH in most distributions: a program placed here runs instead of the system's"},
};

const settings::KeyPath kNamesKey = {"tools", "protectedNames"};
constexpr std::string_view kScanLimit = "scanLimit";

// tools.protectedNames.scanLimit, or the default; a value that is not a
// whole number from 1 to kMaxScanLimit is refused.
std::size_t scan_limit_from_settings(const settings::Effective& effective,
                                     std::vector<Refusal>& refusals) {
  settings::KeyPath key = kNamesKey;
  key.emplace_back(kScanLimit);
  const nlohmann::json* value = settings::find_value(effective.value, key);
  if (value == nullptr) return kDefaultScanLimit;
  if (!value->is_number_integer() || value->get<long long>() < 1 ||
      value->get<long long>() > static_cast<long long>(kMaxScanLimit)) {
    refusals.push_back(malformed_list(
        key, value->dump(),
        "expected a whole number of directories from 1 to " + std::to_string(kMaxScanLimit)));
    return kDefaultScanLimit;
  }
  return static_cast<std::size_t>(value->get<long long>());
}

bool before(const ProtectedName& a, const ProtectedName& b) {
  return a.scope != b.scope ? a.scope < b.scope : a.name < b.name;
}

ProtectedName from_row(const ProtectedNameRow& row) {
  return ProtectedName{std::string(row.name), row.scope, row.when_missing, std::string(row.reason),
                       std::nullopt};
}

// An added name in its normal form, or nullopt with `why` set.
std::optional<ProtectedName> parse_added(const ListItem& item, std::string& why) {
  ProtectedName out;
  std::string_view text = item.text;
  if (text.starts_with("~/")) {
    out.scope = home;
    text.remove_prefix(2);
  } else if (text.starts_with("/") || text.starts_with("~")) {
    why =
        "a protected name is relative: \".name\" in every writable directory, or \"~/name\" "
        "in the home directory";
    return std::nullopt;
  }
  const auto parts = split_path(text);
  if (parts.empty() || std::find(parts.begin(), parts.end(), "..") != parts.end()) {
    why = "the name is empty or contains \"..\"";
    return std::nullopt;
  }
  if (out.scope == every_directory && parts.size() > 1) {
    why = "a name for every directory is one path component (no slash); write \"~/" +
          std::string(text) + "\" for a path in the home directory";
    return std::nullopt;
  }
  for (const auto& part : parts) out.name += (out.name.empty() ? "" : "/") + part;
  out.when_missing = guard;
  out.reason = "added by the " + origin_text(item.origin);
  out.origin = item.origin;
  return out;
}

}  // namespace

std::span<const ProtectedNameRow> builtin_protected_name_rows() { return kBuiltinProtectedNames; }

ProtectedNames builtin_protected_names() {
  ProtectedNames out;
  for (const auto& row : kBuiltinProtectedNames) out.names.push_back(from_row(row));
  std::sort(out.names.begin(), out.names.end(), before);
  return out;
}

ProtectedNames core_protected_names() {
  ProtectedNames out;
  for (const auto& row : kBuiltinProtectedNames) {
    if (!row.liftable) out.names.push_back(from_row(row));
  }
  std::sort(out.names.begin(), out.names.end(), before);
  return out;
}

std::string written_name(const ProtectedName& name) {
  return name.scope == home ? "~/" + name.name : name.name;
}

ProtectedNames protected_names_from_settings(const settings::Effective& effective,
                                             std::vector<Refusal>& refusals) {
  ProtectedNames out = builtin_protected_names();
  const std::string_view own_members[] = {kScanLimit};
  const ListSettings list = read_list_settings(effective, kNamesKey, refusals, own_members);
  out.scan_limit = scan_limit_from_settings(effective, refusals);
  for (const auto& item : list.lift) {
    const auto row = std::find_if(
        std::begin(kBuiltinProtectedNames), std::end(kBuiltinProtectedNames),
        [&](const ProtectedNameRow& r) { return written_name(from_row(r)) == item.text; });
    if (row == std::end(kBuiltinProtectedNames)) {
      refusals.push_back(
          malformed_list(list.lift_key, item.text,
                         "no built-in protected name is written so (home names start with ~/, e.g. "
                         "\"~/.bashrc\"); holdfast run --explain lists them"));
      continue;
    }
    if (!row->liftable) {
      refusals.push_back(malformed_list(
          list.lift_key, item.text,
          std::string(row->name) +
              " cannot be lifted by name; to let the command write one of them, add an entry "
              "for that path (e.g. \":workspace/" +
              std::string(row->name) + "\": \"write\")"));
      continue;
    }
    const auto it = std::find_if(out.names.begin(), out.names.end(), [&](const ProtectedName& n) {
      return written_name(n) == item.text && !n.origin;
    });
    if (it == out.names.end()) continue;  // lifted twice
    out.names.erase(it);
    out.lifted.push_back(LiftedName{item.text, item.origin});
  }
  for (const auto& item : list.add) {
    std::string why;
    auto added = parse_added(item, why);
    if (!added) {
      refusals.push_back(malformed_list(list.add_key, item.text, why));
      continue;
    }
    const bool known = std::any_of(out.names.begin(), out.names.end(), [&](const ProtectedName& n) {
      return n.scope == added->scope && n.name == added->name;
    });
    if (!known) out.names.push_back(std::move(*added));
  }
  std::sort(out.names.begin(), out.names.end(), before);
  return out;
}

std::vector<const ProtectedName*> names_at_root(const ProtectedNames& names, bool root_is_home) {
  std::vector<const ProtectedName*> out;
  for (const auto& name : names.names) {
    if (name.scope == every_directory || root_is_home) out.push_back(&name);
  }
  return out;
}

bool is_protected_component(const ProtectedNames& names, std::string_view name) {
  const auto it = std::lower_bound(names.names.begin(), names.names.end(), name,
                                   [](const ProtectedName& n, std::string_view v) {
                                     return n.scope != every_directory ? false : n.name < v;
                                   });
  return it != names.names.end() && it->scope == every_directory && it->name == name;
}

}  // namespace holdfast::sandbox
