// Presence memory: which operator scope files holdfast has seen.
//
// A reader that finds a settings file missing cannot tell from the file
// system alone whether the operator removed it or a program is in the
// middle of saving it: writers leave gaps of any length under any names
// (rename the live file to a backup, swap the whole directory, flip a
// symlink). No list of names or window length covers them all. So holdfast
// remembers: once a snapshot has read an operator scope file, a record of
// that path is kept in holdfast's state directory, and from then on the
// file's disappearance means "missing" (wait for it, then refuse), never
// "absent". Only the operator ends that, by confirming the removal
// (`holdfast settings forget`).
//
// One small file per remembered path, named by the SHA-256 of the path, so
// that asking costs one stat and records for different paths never contend.
// Records are written with the durable atomic writer. The state directory
// is never writable inside a sandbox, so a confined command cannot make
// holdfast forget.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace holdfast::settings {

class PresenceMemory {
 public:
  // Keeps records under `state_dir`/presence. An empty `state_dir` keeps
  // none: remembers() is always false and remember() does nothing.
  explicit PresenceMemory(std::filesystem::path state_dir);

  bool enabled() const { return !directory_.empty(); }
  // True when `scope_file` has been seen and not forgotten since.
  bool remembers(const std::filesystem::path& scope_file) const;
  // When it was first seen (UTC, ISO 8601), if remembered.
  std::optional<std::string> first_seen(const std::filesystem::path& scope_file) const;
  // Records `scope_file` durably, unless it is already recorded. Throws
  // SystemError when the record cannot be written.
  void remember(const std::filesystem::path& scope_file) const;
  // Drops the record durably; returns whether there was one.
  bool forget(const std::filesystem::path& scope_file) const;

  // The record file of `scope_file` (for messages and tests).
  std::filesystem::path record_path(const std::filesystem::path& scope_file) const;

 private:
  std::filesystem::path directory_;
};

}  // namespace holdfast::settings
