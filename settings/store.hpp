// The settings store: what a GUI, an agent or the CLI links to read and
// change settings.
//
//   holdfast::settings::Store store(scope_paths_from_environment(workspace));
//   Snapshot snapshot = store.snapshot();                // effective, origins, digest
//   ScopeFile user = store.load(Scope::user);            // diagnostics, revision
//   store.set(Scope::user, parse_key_path("tools.executionSandbox.network"),
//             "closed", Expectation::unchanged_since(user));
//
// Every read goes through the snapshot reader (settings/snapshot.hpp): a
// file caught in the middle of another program's save is waited for, and a
// file holdfast has seen before that goes missing is never read as "no
// settings".
//
// Every save is a read-modify-write under the scope's lock, bumps the
// file's "$revision" counter and goes through the durable atomic writer. A
// save into a file that is currently invalid is refused (nothing is lost); a
// save whose expectation no longer holds throws RevisionConflict.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "settings/atomic_writer.hpp"
#include "settings/file_lock.hpp"
#include "settings/key_path.hpp"
#include "settings/merge.hpp"
#include "settings/scope_file.hpp"
#include "settings/scopes.hpp"
#include "settings/snapshot.hpp"

namespace holdfast::settings {

// What a save expects the file to be when it lands. Empty: no expectation
// (the save still never loses a concurrent save's keys, because it
// re-reads under the lock).
struct Expectation {
  std::optional<std::uint64_t> revision;  // the "$revision" counter
  std::optional<std::string> sha256;      // exact bytes, as loaded ("" = file absent)

  // Everything about `loaded`: the save fails if anyone changed the file
  // since, even a hand edit that left "$revision" alone.
  static Expectation unchanged_since(const ScopeFile& loaded);
};

struct SaveResult {
  std::filesystem::path path;
  std::uint64_t revision = 0;  // the new revision
};

struct StoreOptions {
  SnapshotOptions read;  // how every read of this store settles files
  bool durable = true;
  bool keep_backup = false;
  std::function<void(WriteStep)> after_write_step;  // for crash tests
  // How long a save waits for the scope's lock, and whom it tells that it
  // waits (file_lock.hpp); past the bound it throws LockTimeout.
  LockWait lock_wait;
};

// The mode of a settings file and of the directories a save creates for
// it. Private (0600, 0700) for the user's and a workspace's scope: the
// policy says what is denied and where the secrets are. A system scope
// (/etc/holdfast) is 0644 and 0755: every user's launches read it, and
// only root can write it.
mode_t new_file_mode_for(Scope scope);
mode_t new_directory_mode_for(Scope scope);

class Store {
 public:
  explicit Store(ScopePaths paths, StoreOptions options = {});

  const ScopePaths& paths() const { return paths_; }
  // The file of `scope`; throws UsageError for the workspace scope when no
  // workspace was given.
  std::filesystem::path file(Scope scope) const;

  // One consistent reading of every scope (take_snapshot with this
  // store's options): the effective settings with origins and the digest.
  // Throws InvalidSettings naming every bad file, SnapshotError, ...
  Snapshot snapshot() const;
  // Reads one scope, settled; a file that stays invalid is returned with
  // its diagnostics (check valid()).
  ScopeFile load(Scope scope) const;

  // Read-modify-write. `mutate` receives the current document ({} when the
  // file is absent) and edits it in place.
  SaveResult update(Scope scope, const std::function<void(nlohmann::json&)>& mutate,
                    const Expectation& expected = {});
  SaveResult set(Scope scope, const KeyPath& key, nlohmann::json value,
                 const Expectation& expected = {});
  // Throws UsageError when the key is not set.
  SaveResult unset(Scope scope, const KeyPath& key, const Expectation& expected = {});

  // Confirms that a scope's file is gone on purpose: holdfast forgets that
  // it has seen it (the marker beside it and the state directory's record),
  // so a later reading takes it for absent.
  // With `remove_file` the file is first removed (under the scope's lock,
  // durably); without, a file that still exists is a UsageError. Returns
  // whether holdfast had remembered the file.
  bool forget(Scope scope, bool remove_file);

 private:
  ScopePaths paths_;
  StoreOptions options_;
};

}  // namespace holdfast::settings
