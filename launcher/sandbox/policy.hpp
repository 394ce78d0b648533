// The confinement policy value: what a confined command may read, write and
// reach. One value, whatever form the operator wrote:
//
//   simple:  "filesystem": "read-only"       → {":root": read, ":workspace": read}
//            "filesystem": "workspace-write" → {":root": read, ":workspace": write}
//   split:   "filesystem": {PATH-OR-TOKEN: "read" | "write" | "deny" | "none"}
//
// Keys are absolute paths, "~" / "~/x" (the home directory), or tokens:
// :root (/), :minimal (the usual system directories), :workspace, :tmpdir,
// :home, optionally followed by a relative path (":workspace/.git").
// Missing fields take the built-in default's values (workspace-write,
// network closed, unix sockets allowed): a partial policy never means "open".
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "settings/merge.hpp"
#include "settings/scopes.hpp"

namespace holdfast::sandbox {

// Tie order: when two entries name the same path, deny beats write beats
// read. The enumerator values encode that order (higher wins).
enum class Access { read = 0, write = 1, deny = 2 };
enum class Network { open, closed };
enum class UnixSockets { allow, deny };
enum class PolicyForm { builtin_default, simple, split };

std::string_view access_name(Access access);  // "read", "write", "deny"
std::string_view network_name(Network network);
std::string_view unix_sockets_name(UnixSockets sockets);
std::string_view form_name(PolicyForm form);  // "built-in default", "simple", "split"

struct Entry {
  std::string key;  // normal form: "/abs", ":token" or ":token/rel"
  Access access = Access::deny;
  std::string written;                    // the key as the operator wrote it (for messages)
  std::optional<settings::Scope> origin;  // nullopt: built in

  bool operator==(const Entry&) const = default;
};

struct Policy {
  // The value (canonical JSON and digest cover exactly these).
  std::vector<Entry> filesystem;  // sorted by key, keys unique
  Network network = Network::closed;
  UnixSockets unix_sockets = UnixSockets::allow;

  // Provenance, for --explain; not part of the value.
  PolicyForm form = PolicyForm::builtin_default;
  std::string simple_filesystem;  // "read-only" / "workspace-write" for simple and default forms
  std::string backend;            // "auto" / "bwrap" / "" (accepted, always bubblewrap)
  std::optional<settings::Scope> filesystem_origin;
  std::optional<settings::Scope> network_origin;
  std::optional<settings::Scope> unix_sockets_origin;
};

inline constexpr std::string_view kTokens[] = {":root", ":minimal", ":workspace", ":tmpdir",
                                               ":home"};
// What :minimal means; those that do not exist on the host are left out.
inline constexpr std::string_view kMinimalDirs[] = {"/bin",   "/sbin",  "/usr",    "/lib",
                                                    "/lib32", "/lib64", "/libx32", "/etc"};

// The policy when no operator scope sets tools.executionSandbox:
// workspace-write, network closed.
Policy default_policy();

// From the effective settings (tools.executionSandbox is already whole from
// the highest operator scope). Throws Refused for a malformed policy (wrong
// type, unknown token, relative path, "..") naming the entry.
Policy policy_from_settings(const settings::Effective& effective);

// Normal form of an entry key, or nullopt with `why` set.
std::optional<std::string> normalize_entry_key(std::string_view written, std::string& why);

// {"filesystem": {KEY: ACCESS...}, "network": ..., "unixSockets": ...}
nlohmann::json canonical_json(const Policy& policy);
// Compact dump with sorted keys; equal policies give equal bytes.
std::string canonical_text(const Policy& policy);
// "sha256:" + hex of canonical_text.
std::string policy_digest(const Policy& policy);

// Values the tokens stand for on this host (canonical paths).
struct TokenValues {
  std::string workspace;
  std::string tmpdir;
  std::string home;  // empty when unknown
  std::vector<std::string> minimal;
};

// The absolute (lexical, not yet canonical) paths an entry key names: one,
// or one per :minimal directory. Throws Refused for ":home" without a home.
std::vector<std::string> expand_key(const Entry& entry, const TokenValues& tokens);

}  // namespace holdfast::sandbox
