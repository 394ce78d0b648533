// The snapshot reader: one consistent reading of every scope. It is the
// only way holdfast reads settings — launches, the gatekeeper, the CLI, the
// watcher, doctor and the library API all come through here.
//
// Each scope is read once and settled before it is believed:
//  * a file that reads complete and valid is taken;
//  * an operator scope file that holdfast has seen before (presence memory,
//    settings/presence.hpp) and now finds missing is *missing*, not absent:
//    the reader watches its directory and every ancestor with inotify and
//    waits up to max_wait for it to come back, then refuses and says how to
//    confirm a deliberate removal;
//  * a file never seen before (the first read ever, and every workspace
//    file) that is missing, empty or invalid is judged by evidence: a
//    directory unchanged for evidence_age proves absence at once; otherwise
//    the reader watches the directory, looks for the names writers use
//    while saving, and reads again when the file is renamed in or closed
//    after writing. Missing counts as absent only after a quiet settle
//    window; still empty or invalid, it fails closed.
//
// Then every scope is read again and compared by content (not by inode: a
// writer that re-saves the same bytes has changed nothing). When every
// scope reads the same, the reading is consistent. When exactly one scope
// changed, that scope is read once more and the others a third time: if
// they are still the same, the others held their content all around that
// last reading, and it is taken. More movement retries the whole reading,
// within a bound. The result carries a digest over the effective policy and
// each scope's hash.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "settings/merge.hpp"
#include "settings/scope_file.hpp"
#include "settings/scopes.hpp"

namespace holdfast::settings {

struct SnapshotOptions {
  // How long a missing or invalid file must stay so, with no writer
  // activity, before it is believed.
  std::chrono::milliseconds settle_window{50};
  // Upper bound on waiting for a writer that keeps showing activity.
  std::chrono::milliseconds max_wait{2000};
  // Evidence names newer than this count as a write in progress.
  std::chrono::milliseconds evidence_age{5000};
  // Names other writers use while saving NAME; "{}" stands for NAME, a
  // trailing "*" matches any suffix.
  std::vector<std::string> evidence_patterns = default_evidence_patterns();
  // Consistency passes before giving up.
  int max_attempts = 20;
  // Refuse operator scope files that others could write (StrictModes).
  bool strict_modes = true;
  uid_t invoking_uid = static_cast<uid_t>(-1);  // -1: getuid()
  // Keep a file that stays invalid in the result, with its diagnostics,
  // instead of throwing InvalidSettings; the snapshot then has no
  // effective settings and no digest (Snapshot::complete() is false). For
  // views that show problems (validate, doctor, a GUI), never for a launch.
  bool keep_invalid = false;

  static std::vector<std::string> default_evidence_patterns();
};

// Why a scope file that was found missing or damaged was finally accepted.
enum class Settling {
  immediate,          // read complete and valid at once
  waited_for_writer,  // missing or damaged, then complete after a write finished
  waited_for_return,  // a remembered file was missing and came back
  proven_absent,      // never seen before, and no writer showed itself
};

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

// Base of every reason a snapshot cannot be taken; what() says what was
// wrong and what to do.
class SnapshotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws InvalidSettings (fail closed), UnsafeSettingsFile, SystemError, or
// SnapshotError (required policy missing, a write that never finished,
// settings that kept changing).
Snapshot take_snapshot(const ScopePaths& paths, const SnapshotOptions& options = {});

// One scope, settled the same way (for a save's read-modify-write and for
// one-scope views). Throws like take_snapshot; an invalid file is thrown
// unless options.keep_invalid.
ScopeFile read_scope_settled(const ScopePaths& paths, Scope scope,
                             const SnapshotOptions& options = {});

}  // namespace holdfast::settings
