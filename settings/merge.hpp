// Merging the four scopes into the effective settings, remembering where
// each value came from.
//
// Rules (documented in the README):
// * Objects merge deeply; for any other value the later scope wins.
// * permissions.allow / ask / deny lists, and tools.protectedNames /
//   tools.credentialStores add / lift lists, are concatenated across scopes
//   (a rule does not disappear because another scope has rules too).
// * tools.executionSandbox: the highest operator scope that sets it wins as
//   a whole object; two policies are never mixed key by key.
// * From the workspace scope, tools.executionSandbox, security,
//   permissions.allow, permissions.defaultMode and the lift lists of
//   tools.protectedNames and tools.credentialStores are ignored, each with a
//   warning naming the file and the key: a project cannot widen or replace
//   the operator's confinement.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "settings/scope_file.hpp"

namespace holdfast::settings {

struct Effective {
  nlohmann::json value = nlohmann::json::object();
  // Dotted key path of every leaf (and of every list element, "a.b.0") →
  // the scope it came from.
  std::map<std::string, Scope> origins;
  std::vector<Diagnostic> warnings;
};

// `files` in any order; absent files contribute nothing. Files with errors
// must not be passed (the caller fails closed before merging).
Effective merge_scopes(const std::vector<const ScopeFile*>& files);

}  // namespace holdfast::settings
