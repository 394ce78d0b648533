// The snapshot reader: one consistent reading of every scope. It is the
// only way holdfast reads settings — launches, the gatekeeper, the CLI, the
// watcher, doctor and the library API all come through here.
//
// Each scope is first settled on its own (settings/settle.hpp: a file in
// the middle of a save is waited for, a remembered file that went missing is
// never "no settings"). Then every scope is read again and compared by
// content (not by inode: a writer that re-saves the same bytes has changed
// nothing). When every scope reads the same, the reading is consistent.
// When exactly one scope changed, that scope is read once more and the
// others a third time: if they are still the same, the others held their
// content all around that last reading, and it is taken. More movement
// retries the whole reading, within a bound. Every file read is remembered
// (settings/presence.hpp). Then the scopes are merged; the result carries a
// digest over the effective policy and each scope's hash.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "settings/merge.hpp"
#include "settings/scope_file.hpp"
#include "settings/scopes.hpp"
#include "settings/settle.hpp"

namespace holdfast::settings {

struct Snapshot {
  std::vector<ScopeFile> scopes;   // precedence order; workspace only with a workspace
  std::vector<Settling> settling;  // parallel to scopes
  Effective effective;
  std::string digest;  // SHA-256 over the effective policy and every scope hash
  int attempts = 1;
  bool policy_required = false;  // security.requireExecutionSandbox from an operator scope

  const ScopeFile* scope(Scope which) const;
  // Every scope valid, so `effective` and `digest` are meaningful (always
  // true unless SnapshotOptions::keep_invalid).
  bool complete() const;
};

// Throws InvalidSettings (fail closed), UnsafeSettingsFile, SystemError, or
// SnapshotError (required policy missing, a write that never finished,
// settings that kept changing).
Snapshot take_snapshot(const ScopePaths& paths, const SnapshotOptions& options = {});

// The two halves of take_snapshot, for a view that shows every file before
// it judges the whole (doctor): every scope settled and read consistently,
// ownership checked (options.strict_modes) and every file remembered, files
// that stay invalid kept with their diagnostics, nothing merged yet ...
Snapshot read_scopes_consistently(const ScopePaths& paths, const SnapshotOptions& options = {});
// ... then the effective settings, the required-policy check and the
// digest of that same reading. Throws InvalidSettings naming every file
// that stays invalid, SnapshotError for a required policy that is missing.
void merge_snapshot(Snapshot& snapshot);

// One scope, settled the same way (for a save's read-modify-write and for
// one-scope views). Throws like take_snapshot; an invalid file is thrown
// unless options.keep_invalid.
ScopeFile read_scope_settled(const ScopePaths& paths, Scope scope,
                             const SnapshotOptions& options = {});

}  // namespace holdfast::settings
