// One scope's settings file as read from disk: its identity, its bytes and
// what they mean.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/system_error.hpp"
#include "settings/errors.hpp"
#include "settings/jsonc.hpp"
#include "settings/scopes.hpp"

namespace holdfast::settings {

// What identifies the file that was read: if any of these differ between two
// reads, the path was replaced or rewritten in between.
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  timespec mtime{};
  std::string sha256;  // of the bytes read
  uid_t owner = 0;     // of the inode read, for the ownership checks
  mode_t mode = 0;

  bool operator==(const FileIdentity& other) const;
};

struct ScopeFile {
  Scope scope = Scope::user;
  std::filesystem::path path;
  bool exists = false;
  FileIdentity identity;                // meaningful when exists
  std::string bytes;                    // exactly what was read
  nlohmann::json document;              // the parsed object; {} when the file is absent
  LocationIndex locations;              // where each value starts in the file
  std::vector<Diagnostic> diagnostics;  // parse and schema findings
  std::uint64_t revision = 0;           // "$revision", 0 when absent

  bool valid() const { return !has_errors(diagnostics); }
  // Present and whole: what a reader can act on (a missing or damaged file
  // may be a save in progress).
  bool usable() const { return exists && valid(); }
};

// The key that holds a scope file's save counter.
inline constexpr const char* kRevisionKey = "$revision";
// The highest revision: 2^53 - 1, the largest integer that every JSON reader
// holds exactly (a browser's numbers are doubles). The schema says so, a
// file with a higher one is invalid, and a save at this revision is refused
// rather than wrapped to 0, where it could match a stale expectation.
inline constexpr std::uint64_t kMaxRevision = (std::uint64_t{1} << 53) - 1;

namespace detail {
// One open and read of `path`, believed as found: a missing file reads as
// exists == false. That is NOT a way to read settings — a file caught in
// the middle of someone's save reads as missing here. Read settings with
// take_snapshot() or read_scope_settled() (settings/snapshot.hpp); only the
// snapshot reader, and tests that check the bytes on disk, call this.
// A file that is unreadable for another reason, or is not a regular file,
// throws SystemError. Parse and schema problems are recorded in
// `diagnostics`, never thrown and never repaired. A file larger than
// kMaxSettingsFileBytes is read only one byte past the limit (`bytes` holds
// that much) and is invalid.
ScopeFile read_scope_file_once(Scope scope, const std::filesystem::path& path);
}  // namespace detail

// Interprets bytes already read (used by the snapshot reader and by writers that
// must check the document they are about to save).
void interpret_scope_bytes(ScopeFile& file);

// Throws InvalidSettings when `file` has errors.
void require_valid(const ScopeFile& file);

}  // namespace holdfast::settings
