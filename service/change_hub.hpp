// The settings watchers behind GET /api/v1/events, shared: one
// settings::Watcher (one thread, one inotify descriptor) per workspace
// followed, however many event streams follow it. A stream is a
// subscription, not a thread: the watcher's callback hands each event's
// text to every subscriber's `send`, which queues it on that connection.
//
// Each stream starts with the latest state (the event the watcher would
// send first: "initial": true), or with the latest error while the
// settings cannot be read, then gets one event per effective change. A
// client that saves after its first event sees the save as a later event.
//
// The watchers also keep each scope file's history (scope_history.hpp).
// The one for no workspace (the user and system scopes) runs from start to
// end; a workspace's runs while followed, and the longest-unfollowed one
// is stopped when more than `max_watchers` would run.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "service/scope_history.hpp"
#include "settings/scopes.hpp"
#include "settings/watcher.hpp"

namespace holdfast::service {

class ChangeHub {
 public:
  using Send = std::function<void(std::string)>;

  explicit ChangeHub(std::size_t max_watchers);
  ~ChangeHub();
  ChangeHub(const ChangeHub&) = delete;
  ChangeHub& operator=(const ChangeHub&) = delete;

  // A watcher runs for `paths` when this returns (started if needed; may
  // stop an unfollowed one, which waits for its thread). Call it where
  // blocking is fine, then subscribe().
  void watch(const settings::ScopePaths& paths);

  // Follows the watcher for `paths` (watch() first). `send` is called with
  // each event's text, first the latest state if one is known, from the
  // watcher's thread or the caller's; it must not block. Dropping the
  // returned handle ends the subscription.
  std::shared_ptr<void> subscribe(const settings::ScopePaths& paths, Send send);

  // The history of a scope file, newest first (history_json), and one
  // entry's document.
  nlohmann::json history(const std::filesystem::path& file) const;
  std::optional<HistoryEntry> history_entry(const std::filesystem::path& file,
                                            std::uint64_t id) const;

  // Stops every watcher (at shutdown); subscriptions get nothing more.
  void stop();

 private:
  struct Feed;
  void deliver(Feed& feed, const std::string& text);
  void record(const settings::SettingsChange& change);

  std::size_t max_watchers_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Feed>> feeds_;  // by workspace ("" for none)
  std::map<std::filesystem::path, ScopeHistory> histories_;
  std::uint64_t next_history_id_ = 1;
  std::uint64_t next_subscriber_ = 1;
  std::uint64_t clock_ = 0;  // for "longest unfollowed"
  bool stopped_ = false;
};

// "event: NAME\ndata: JSON\n\n"
std::string event_text(const std::string& name, const nlohmann::json& data);

}  // namespace holdfast::service
