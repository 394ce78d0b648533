// The four settings scopes, in precedence order (later wins), and where
// their files live.
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <string_view>

#include "settings/errors.hpp"

namespace holdfast::settings {

enum class Scope { system_defaults, user, workspace, system };

inline constexpr std::array<Scope, 4> kScopesInPrecedenceOrder = {
    Scope::system_defaults, Scope::user, Scope::workspace, Scope::system};

// "system-defaults", "user", "workspace", "system".
std::string_view scope_name(Scope scope);
std::optional<Scope> parse_scope(std::string_view name);

// Operator scopes carry the confinement policy; the workspace does not.
constexpr bool is_operator_scope(Scope scope) { return scope != Scope::workspace; }
// System scopes are the files apart from the user file that GUIs rewrite.
constexpr bool is_system_scope(Scope scope) {
  return scope == Scope::system_defaults || scope == Scope::system;
}

struct ScopePaths {
  std::filesystem::path system_dir;  // $HOLDFAST_SYSTEM_DIR, default /etc/holdfast
  std::filesystem::path config_dir;  // $HOLDFAST_CONFIG_DIR, default $XDG_CONFIG_HOME/holdfast
  std::optional<std::filesystem::path> workspace;  // no workspace scope without one
  // holdfast's own state (presence memory, launch records). Empty: the
  // snapshot reader keeps no presence memory and judges every missing file
  // by first-read evidence alone; scope_paths_from_environment always sets it.
  std::filesystem::path state_dir;

  // The settings file of `scope`; nullopt for the workspace scope when no
  // workspace is set.
  std::optional<std::filesystem::path> file(Scope scope) const;
};

// Resolves the directories from the environment (HOLDFAST_SYSTEM_DIR,
// HOLDFAST_CONFIG_DIR, XDG_CONFIG_HOME, HOME). Throws UsageError when no
// user configuration directory can be determined.
ScopePaths scope_paths_from_environment(std::optional<std::filesystem::path> workspace);

// holdfast's state directory: $HOLDFAST_STATE_DIR, else $XDG_STATE_HOME/holdfast,
// else ~/.local/state/holdfast. Throws UsageError when none can be determined.
std::filesystem::path state_dir_from_environment();

// state_dir_from_environment, or nullopt when none can be determined.
std::optional<std::filesystem::path> optional_state_dir();

// The state directory (launch records, presence memory, the mount-point
// lock) is not fit for use: someone else owns it, others can read or write
// it, it is a symlink, or a directory above it is unsafe. The message says
// which and what to do.
class UnsafeStateDir : public UsageError {
 public:
  using UsageError::UsageError;
};

// Makes the state directory ready: creates it (and the missing directories
// above it) private to the caller, as the XDG base directories are, then
// checks it through descriptors like the settings directories: the
// directory itself owned by the caller, mode 0700 or stricter, not a
// symlink; every directory above owned by root or the caller and not
// writable by group or others unless sticky and root's. Throws
// UnsafeStateDir otherwise, and base::SystemError when it cannot be made.
void prepare_state_dir(const std::filesystem::path& dir);

}  // namespace holdfast::settings
