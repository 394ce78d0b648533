#include "service/scope_history.hpp"

#include <algorithm>

#include "settings/watcher.hpp"

namespace holdfast::service {

bool ScopeHistory::record(const settings::ScopeFile& file, std::int64_t now_ms,
                          std::uint64_t& next_id) {
  const std::string sha = file.exists ? file.identity.sha256 : std::string();
  if (!entries_.empty() && entries_.back().sha256 == sha && entries_.back().exists == file.exists) {
    return false;
  }
  HistoryEntry entry;
  entry.id = next_id++;
  entry.revision = file.revision;
  entry.exists = file.exists;
  entry.seen_unix_ms = now_ms;
  entry.document = file.document.is_object() ? file.document : nlohmann::json::object();
  entry.document.erase(settings::kRevisionKey);
  entry.sha256 = sha;
  if (!entries_.empty()) {
    entry.keys = settings::changed_keys(entries_.back().document, entry.document);
  }
  entries_.push_back(std::move(entry));
  while (entries_.size() > capacity_) entries_.pop_front();
  return true;
}

const HistoryEntry* ScopeHistory::find(std::uint64_t id) const {
  const auto it = std::find_if(entries_.begin(), entries_.end(),
                               [&](const HistoryEntry& entry) { return entry.id == id; });
  return it == entries_.end() ? nullptr : &*it;
}

nlohmann::json history_json(const ScopeHistory& history) {
  nlohmann::json out = nlohmann::json::array();
  for (auto it = history.entries().rbegin(); it != history.entries().rend(); ++it) {
    out.push_back({{"id", it->id},
                   {"revision", it->revision},
                   {"exists", it->exists},
                   {"seenUnixMs", it->seen_unix_ms},
                   {"keys", it->keys}});
  }
  return out;
}

}  // namespace holdfast::service
