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
// network closed, and with the network closed Unix sockets only as
// connected pairs): a partial policy never means "open".
//
// "limits" bounds what the command may use: the size of each private tmpfs
// (/tmp, /dev/shm), and optionally processes, memory and CPU time (rlimits
// set on bubblewrap, inherited by everything inside).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/unix_sockets.hpp"
#include "launcher/network/network_rules.hpp"
#include "launcher/sandbox/credential_stores.hpp"
#include "launcher/sandbox/protected_names.hpp"
#include "settings/merge.hpp"
#include "settings/scopes.hpp"

namespace holdfast::sandbox {

// Tie order: when two entries name the same path, deny beats write beats
// read. The enumerator values encode that order (higher wins).
enum class Access { read = 0, write = 1, deny = 2 };
// allow_list: a network namespace of its own whose only way out is the
// launch's proxy, to the hosts Policy::network_rules lists
// (launcher/network/network_rules.hpp).
enum class Network { open, closed, allow_list };
// Which AF_UNIX sockets (base/unix_sockets.hpp). Not set: pairs with the
// network closed, allow with it open.
using holdfast::unix_sockets_name;
using holdfast::UnixSockets;
enum class PolicyForm { builtin_default, simple, split };

std::string_view access_name(Access access);  // "read", "write", "deny"
std::string_view network_name(Network network);
std::string_view form_name(PolicyForm form);  // "built-in default", "simple", "split"

struct Entry {
  std::string key;  // normal form: "/abs", ":token" or ":token/rel"
  Access access = Access::deny;
  std::string written;                    // the key as the operator wrote it (for messages)
  std::optional<settings::Scope> origin;  // nullopt: built in

  bool operator==(const Entry&) const = default;
};

// The largest values a limit accepts (beyond them a number means nothing
// useful, and multiplying MiB into bytes must not overflow).
inline constexpr std::uint64_t kMaxTmpfsMiB = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kMaxProcesses = 4194304;  // the kernel's PID_MAX_LIMIT
inline constexpr std::uint64_t kMaxMemoryMiB = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kMaxCpuSeconds = std::uint64_t{1} << 31;

// The processes and threads a sandbox may have at once when the policy
// does not say: more than a build or a test run starts, far fewer than a
// fork bomb, and a small part of the host's pids.
inline constexpr std::uint64_t kDefaultProcesses = 4096;

// Bounds on what the command uses. Unset optional limits are not applied
// (the caller's own limits are inherited).
struct Limits {
  // Size of each private tmpfs (/tmp, /dev/shm), in MiB.
  std::uint64_t tmpfs_mib = 1024;
  // Processes and threads of the whole sandbox (its cgroup's pids.max).
  // Unset: the built-in default (launcher/run/cgroup.hpp).
  std::optional<std::uint64_t> processes;
  // Memory of the whole sandbox in MiB (its cgroup's memory limit: anonymous
  // memory, tmpfs and /dev/shm files, memfds). Unset: half of the host's.
  std::optional<std::uint64_t> memory_mib;
  // RLIMIT_CPU, per process: CPU seconds, then SIGKILL.
  std::optional<std::uint64_t> cpu_seconds;
  // Core files of crashes inside (RLIMIT_CORE); off by default, since the
  // host's core handler (kernel.core_pattern) runs outside the sandbox.
  bool core_dumps = false;

  bool operator==(const Limits&) const = default;
};

struct Policy {
  // The value (canonical JSON and digest cover exactly these).
  std::vector<Entry> filesystem;  // sorted by key, keys unique
  Network network = Network::closed;
  network::NetworkRules network_rules;  // Network::allow_list: its entries
  UnixSockets unix_sockets = UnixSockets::pairs;
  Limits limits;
  // Names read-only in every writable directory, and the credential stores
  // hidden (from tools.protectedNames and tools.credentialStores, which
  // every scope may extend and operator scopes may lift). Empty in a
  // Policy{}: default_policy() and policy_from_settings() fill them.
  ProtectedNames protected_names;
  CredentialStores credential_stores;

  // Provenance, for --explain; not part of the value.
  PolicyForm form = PolicyForm::builtin_default;
  std::string simple_filesystem;  // "read-only" / "workspace-write" for simple and default forms
  std::string backend;            // "auto" / "bwrap" / "" (accepted, always bubblewrap)
  std::optional<settings::Scope> filesystem_origin;
  std::optional<settings::Scope> network_origin;
  std::optional<settings::Scope> unix_sockets_origin;  // nullopt: the default for the network
  std::optional<settings::Scope> limits_origin;
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

// Normal form of an entry key, or nullopt with `why` set. A control
// character (below U+0020, or U+007F) is refused: the argv handed to
// bubblewrap is made of C strings, which a NUL would cut short.
std::optional<std::string> normalize_entry_key(std::string_view written, std::string& why);

// The key as text that is safe to print: control characters as \xNN.
std::string printable_key(std::string_view written);

// {"filesystem": {KEY: ACCESS...}, "network": "open" | "closed" |
//  {"allow": [ENTRY...], "deny": [ENTRY...]}, "unixSockets": ...,
//  "limits": {"tmpfsMiB": N, ...}, "protectedNames": [NAME...],
//  "credentialStores": {NAME: [PATH...]}}
nlohmann::json canonical_json(const Policy& policy);
// The "network" member of canonical_json: a name, or the allow-list's
// entries as written.
nlohmann::json network_json(const Policy& policy);
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
