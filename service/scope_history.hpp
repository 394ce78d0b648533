// The saves of one scope file that the service has seen: each content the
// file had (revision, when it was seen, the keys that changed from the one
// before), kept so that the page can show the last saves and take the
// operator back to an earlier one. Going back is an ordinary save of the
// earlier document (PUT with If-Match of the current revision): it gets a
// new revision, and a save made in between is a conflict as always.
//
// The service records what its watchers see while it runs (the user and
// system scopes from its start, a workspace's scope while the page
// follows it); it keeps no file of its own, so a restart starts afresh.
#pragma once

#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "settings/scope_file.hpp"

namespace holdfast::service {

struct HistoryEntry {
  std::uint64_t id = 0;  // unique within the service's life
  std::uint64_t revision = 0;
  bool exists = false;
  std::int64_t seen_unix_ms = 0;
  std::vector<std::string> keys;  // dotted, changed from the entry before
  nlohmann::json document;        // without $revision
  std::string sha256;             // of the file's bytes
};

class ScopeHistory {
 public:
  explicit ScopeHistory(std::size_t capacity) : capacity_(capacity) {}

  // Records `file` as it was read at `now_ms`, unless its bytes are those
  // of the last entry. The oldest entry goes beyond the capacity. `next_id`
  // is advanced for each entry recorded.
  bool record(const settings::ScopeFile& file, std::int64_t now_ms, std::uint64_t& next_id);

  const std::deque<HistoryEntry>& entries() const { return entries_; }
  const HistoryEntry* find(std::uint64_t id) const;

 private:
  std::size_t capacity_;
  std::deque<HistoryEntry> entries_;
};

// {id, revision, exists, seenUnixMs, keys}, newest first, without the
// documents.
nlohmann::json history_json(const ScopeHistory& history);

}  // namespace holdfast::service
