// Credential stores: the well-known places of keys, tokens and passwords
// (SSH and GPG keys, cloud and cluster credentials, git-host and registry
// tokens, password stores and keyrings, browser profiles, coding agents'
// own credentials, the system's password hashes and host keys). Whatever a
// confined command reads goes back to the agent, and from there to a model,
// so a closed network does not keep a secret on the machine: every policy
// hides these, in the caller's home and in every other home the policy lets
// it read, unless an operator scope lifts an entry by name.
//
// Hidden means denied: a directory becomes an empty tmpfs of mode 0000, a
// file an empty file of mode 0000 (mount_plan.hpp). An entry that does not
// exist, or that the caller could not read anyway (file modes), costs no
// mount. A symlink is followed: its target is hidden. Paths an entry keeps
// readable (~/.ssh/known_hosts, ~/.ssh/config: no secret in them) are
// reopened inside the hidden directory.
//
// An operator scope adds paths and lifts entries; a workspace scope may
// only add (builtin_list.hpp).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/sandbox/builtin_list.hpp"

namespace holdfast::sandbox {

struct CredentialRow {
  std::string_view name;           // what a lift names
  std::string_view paths;          // space-separated; "~/x" in every home, "/x" absolute
  std::string_view keep_readable;  // space-separated paths inside them that stay readable
  std::string_view reason;
};

// The built-in table, in the order the README lists it.
std::span<const CredentialRow> builtin_credential_rows();

struct CredentialStore {
  std::string name;
  std::vector<std::string> paths;          // "~/x" (every home) or "/x"
  std::vector<std::string> keep_readable;  // the same forms
  std::string reason;
  std::optional<settings::Scope> origin;  // nullopt: built in
  bool operator==(const CredentialStore&) const = default;
};

struct LiftedStore {
  std::string name;
  std::optional<settings::Scope> origin;
  bool operator==(const LiftedStore&) const = default;
};

struct CredentialStores {
  std::vector<CredentialStore> stores;  // in table order, then additions
  std::vector<LiftedStore> lifted;
  bool operator==(const CredentialStores&) const = default;
};

CredentialStores builtin_credential_stores();

// The built-in table with tools.credentialStores applied: paths added
// ("~/x" or "/x", each an entry named by the path as written) and entries
// lifted by name. Appends "policy-malformed" refusals for a relative path,
// "..", or lifting a name the table lacks.
CredentialStores credential_stores_from_settings(const settings::Effective& effective,
                                                 std::vector<Refusal>& refusals);

// The homes whose stores are hidden besides the caller's: from the text of
// /etc/passwd, root's and those of login users (uid 1000 to 59999), each
// absolute and not "/", in file order, without duplicates. System accounts'
// home directories hold services' state, not a person's credentials. At
// most kMaxHomes. Pure: the file is host content.
inline constexpr std::size_t kMaxHomes = 256;
std::vector<std::string> login_homes(std::string_view passwd);

}  // namespace holdfast::sandbox
