// Evidence: what a violation or a writer's finding leaves behind for a
// person to look at. Each is counted in its phase with a one-line note (an
// excerpt of the bytes in printable form) and, in full, in a file under
// the campaign's evidence directory (--evidence): a start's record (the
// probe's results, what the launcher reported reading, its exit and
// stderr) or the exact bytes a writer left on disk.
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace holdfast::race {

// At most this many pieces of evidence are kept per phase and shard.
inline constexpr std::size_t kMaxEvidence = 10;

struct Evidence {
  std::string kind;  // what was seen, as the phase counts it
  std::string note;  // one line: what happened, with an excerpt of the bytes
  std::string file;  // where it is kept in full; empty when it could not be
};

nlohmann::json to_json(const Evidence& evidence);
Evidence evidence_from(const nlohmann::json& json);

// `bytes` as printable ASCII, whatever they hold: a byte outside 0x20-0x7e
// as \n, \t, \r or \xNN, and a backslash as \\; past `limit` bytes, the
// start and the last few bytes with "... (N bytes) ..." between. Safe in
// JSON, XML and a CI log.
std::string printable(std::string_view bytes, std::size_t limit = 160);

// A phase's name as a file name: "launcher-cmd vs rename-backup (control)"
// → "launcher-cmd-vs-rename-backup-control".
std::string slug(std::string_view name);

// Writes `contents` to DIR/NAME (making DIR) and returns its path; an empty
// string when it could not be written (losing evidence must not end a
// campaign: its note is still counted and printed).
std::string keep_evidence(const std::filesystem::path& dir, const std::string& name,
                          std::string_view contents);

}  // namespace holdfast::race
