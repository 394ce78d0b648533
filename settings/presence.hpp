// Presence memory: which scope files holdfast has seen.
//
// A reader that finds a settings file missing cannot tell from the file
// system alone whether the operator removed it or a program is in the
// middle of saving it: writers leave gaps of any length under any names
// (rename the live file to a backup, swap the whole directory, flip a
// symlink). No list of names or window length covers them all. So holdfast
// remembers: once a snapshot has read a scope file (or holdfast has saved
// it), its disappearance means "missing" (wait for it, then refuse), never
// "absent". Only the operator ends that, by confirming the removal
// (`holdfast settings forget`), so deleting a remembered file is an explicit,
// recorded act.
//
// The memory is kept in two places, and either one remembers:
//  * a marker beside the file, `.NAME.holdfast-seen` in the file's own
//    directory. Every reader of that file looks there, whatever its
//    environment (state directory, XDG variables, the service under
//    systemd, sudo), so every reader reaches the same verdict, and losing
//    holdfast's state never turns "vanished" into "absent". holdfast writes
//    it only into a directory owned by its own effective user (the
//    operator's own directory; for the workspace, a `.holdfast` that is no
//    symlink), created exclusively through a descriptor of that directory,
//    and synced;
//  * a record in holdfast's state directory (`presence/`, one 0600 file per
//    path named by the path's SHA-256). It outlives what the marker cannot:
//    a tool that renders the whole directory anew without the marker, and a
//    system directory that only root can write, read by a user.
//
// Both are checked with one stat each. A marker in a workspace can be made
// or removed by whoever owns the workspace: forging one only makes that
// workspace's own checks wait and refuse, and removing it together with the
// file is what deleting the file on purpose would do anyway; a save in
// progress never removes it. The state directory is never writable inside a
// sandbox, and neither is an operator scope's directory, so a confined
// command cannot make holdfast forget.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "settings/scopes.hpp"

namespace holdfast::settings {

class PresenceMemory {
 public:
  // Keeps markers beside the scope files and, unless `state_dir` is empty,
  // records under `state_dir`/presence.
  explicit PresenceMemory(std::filesystem::path state_dir);

  // True when `scope_file` has been seen and not forgotten since: its
  // marker or its record exists.
  bool remembers(const std::filesystem::path& scope_file) const;
  // When it was first seen (UTC, ISO 8601), if remembered.
  std::optional<std::string> first_seen(const std::filesystem::path& scope_file) const;
  // Records `scope_file` of `scope` durably where it is not yet recorded:
  // the marker where holdfast may write it, the state record when there is
  // a state directory. Throws SystemError when the state record cannot be
  // written and there is no marker either.
  void remember(const std::filesystem::path& scope_file, Scope scope) const;
  // Drops the marker and the record durably; returns whether there was
  // either.
  bool forget(const std::filesystem::path& scope_file) const;

  // The record file of `scope_file` in the state directory (empty without
  // one), and its marker (for messages and tests).
  std::filesystem::path record_path(const std::filesystem::path& scope_file) const;
  static std::filesystem::path marker_path(const std::filesystem::path& scope_file);

 private:
  std::filesystem::path directory_;  // state_dir/presence; empty: no records
};

}  // namespace holdfast::settings
