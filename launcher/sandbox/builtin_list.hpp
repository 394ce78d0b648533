// A built-in list that the settings extend and lift: the protected names
// (protected_names.hpp) and the hidden credential stores
// (credential_stores.hpp) are both one table compiled into holdfast, each
// entry with its reason, plus what the settings say under one key:
//
//   "tools": {"protectedNames":   {"add": [...], "lift": [...]},
//             "credentialStores": {"add": [...], "lift": [...]}}
//
// Both lists are concatenated over the scopes (settings/merge.cpp), so
// every scope's additions count. A workspace scope may only add: its
// "lift" is dropped by the merge with a warning, as it would widen the
// operator's policy. Pure: data in, data out.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/sandbox/refusal.hpp"
#include "settings/key_path.hpp"
#include "settings/merge.hpp"
#include "settings/scopes.hpp"

namespace holdfast::sandbox {

// One element of KEY.add or KEY.lift, as written, and the scope it came from.
struct ListItem {
  std::string text;
  std::optional<settings::Scope> origin;
  bool operator==(const ListItem&) const = default;
};

struct ListSettings {
  std::vector<ListItem> add;
  std::vector<ListItem> lift;
  settings::KeyPath add_key;   // KEY.add, for messages
  settings::KeyPath lift_key;  // KEY.lift
  bool operator==(const ListSettings&) const = default;
};

// At most this many additions per list: each added name or path costs a
// probe per writable root (or home) and possibly a mount per launch.
inline constexpr std::size_t kMaxListAdditions = 64;

// KEY.add and KEY.lift of the effective settings. A value of the wrong
// shape (not an object, unknown member, not a list of strings, a control
// character, more than kMaxListAdditions additions) appends a
// "policy-malformed" refusal naming the key and leaves the list out.
// `own_members` are further members of KEY that the caller reads itself.
ListSettings read_list_settings(const settings::Effective& effective, const settings::KeyPath& key,
                                std::vector<Refusal>& refusals,
                                std::span<const std::string_view> own_members = {});

// "policy-malformed" at `key` about `entry`, with the remedy of editing the
// operator settings.
Refusal malformed_list(const settings::KeyPath& key, const std::string& entry, std::string message);

// "built in" or "SCOPE scope".
std::string origin_text(const std::optional<settings::Scope>& origin);

}  // namespace holdfast::sandbox
