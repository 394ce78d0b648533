// The snapshot reader: one consistent reading of every scope, from which a
// launch builds its confinement and nothing else.
//
// take_snapshot() reads each scope once. A scope file that is missing, empty
// or invalid is not believed at once (invariant 5): other programs leave
// gaps while they save — an old writer that renames the live file to a
// backup before renaming the new one in, editors that truncate and rewrite
// in place. So the reader looks for evidence of a write in progress (the
// names such writers use, recently changed; a recently changed directory),
// watches the directory with inotify, and reads again when the file is
// renamed in or closed after writing. A missing file counts as absent only
// when no writer shows itself for a whole settle window; a file that is
// still empty or invalid fails closed (invariant 4).
//
// Then every scope is checked again — same inode, same bytes, still absent
// — and the whole reading is retried, within a bound, if anything moved
// (invariant 6). The result carries a digest over the effective settings
// and each scope's hash.
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

  static std::vector<std::string> default_evidence_patterns();
};

// Why a scope file that was found missing or damaged was finally accepted.
enum class Settling { immediate, waited_for_writer, proven_absent };

struct Snapshot {
  std::vector<ScopeFile> scopes;  // precedence order; workspace only with a workspace
  std::vector<Settling> settling; // parallel to scopes
  Effective effective;
  std::string digest;             // SHA-256 over the effective policy and every scope hash
  int attempts = 1;
  bool policy_required = false;   // security.requireExecutionSandbox from an operator scope

  const ScopeFile* scope(Scope which) const;
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

}  // namespace holdfast::settings
