// Settling one scope file: reading it until it can be believed. The
// snapshot reader (settings/snapshot.hpp) settles every scope this way
// before it makes them one consistent reading.
//
//  * a file that reads complete and valid is taken;
//  * a file that holdfast has seen before (presence memory,
//    settings/presence.hpp) and now finds missing is *missing*, not absent:
//    the reader watches the way to it (settings/path_watch.hpp) and waits up
//    to max_wait for it to come back, then refuses and says how to confirm a
//    deliberate removal;
//  * a file never seen before that is missing, empty or invalid is judged
//    by evidence (settings/evidence.hpp): a directory unchanged for
//    evidence_age proves absence at once; otherwise the reader watches the
//    way, reads again whenever something happens on it, and calls a missing
//    file absent only after a settle window with nothing on the way and no
//    writer's names beside it; still empty or invalid, it fails closed.
//
// Only events about the way count (the next name on the way, a watched
// directory's own removal or move, a queue overflow): activity beside the
// settings is not a change of them.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "settings/scope_file.hpp"
#include "settings/scopes.hpp"

namespace holdfast::settings {

class PresenceMemory;

struct SnapshotOptions {
  // How long a missing or invalid file must stay so, with nothing happening
  // on the way to it, before it is believed.
  std::chrono::milliseconds settle_window{50};
  // Upper bound on waiting for a writer that keeps showing activity, and on
  // waiting for a remembered file to come back. A launch that finds its
  // settings replaced under it starts over within this budget too.
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

// Base of every reason a snapshot cannot be taken; what() says what was
// wrong and what to do.
class SnapshotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SettledFile {
  ScopeFile file;  // complete and valid, absent, or damaged (the caller fails closed)
  Settling settling = Settling::immediate;
};

// Reads the file of `scope` at `path` until it can be believed (see
// above). Throws SnapshotError when a remembered file stays missing or a
// write never finishes, SystemError when the file cannot be read.
SettledFile settle_scope_file(Scope scope, const std::filesystem::path& path,
                              const SnapshotOptions& options, const PresenceMemory& memory);

// The identity of the file at `file.path` now, when it holds exactly the
// bytes `file` was read with (after a same-content save, a new inode);
// nullopt when it is missing, unreadable, not a regular file or different.
std::optional<FileIdentity> identity_if_unchanged(const ScopeFile& file);

// Whether the path still reads as `file` did: both absent, or the same bytes.
bool same_content(const ScopeFile& file);

}  // namespace holdfast::settings
