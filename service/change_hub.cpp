#include "service/change_hub.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

namespace holdfast::service {

namespace {

using nlohmann::json;

// Scope files whose history is kept (the user's and the system's, and a
// few workspaces').
constexpr std::size_t kMaxHistories = 64;
constexpr std::size_t kHistoryDepth = 50;

std::int64_t now_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string key_of(const settings::ScopePaths& paths) {
  return paths.workspace ? paths.workspace->string() : std::string();
}

}  // namespace

std::string event_text(const std::string& name, const json& data) {
  return "event: " + name + "\ndata: " + data.dump(-1, ' ', false, json::error_handler_t::replace) +
         "\n\n";
}

struct ChangeHub::Feed {
  std::unique_ptr<settings::Watcher> watcher;
  std::map<std::uint64_t, Send> subscribers;
  std::optional<std::string> latest;  // what a new subscriber starts with
  std::uint64_t last_used = 0;
  bool permanent = false;  // the one for no workspace
};

// Ends a subscription when the connection drops its handle.
struct Subscription {
  std::function<void()> end;
  ~Subscription() { end(); }
};

ChangeHub::ChangeHub(std::size_t max_watchers)
    : max_watchers_(std::max<std::size_t>(max_watchers, 2)) {}

ChangeHub::~ChangeHub() { stop(); }

void ChangeHub::deliver(Feed& feed, const std::string& text) {
  for (const auto& [id, send] : feed.subscribers) send(text);
}

void ChangeHub::record(const settings::SettingsChange& change) {
  const std::int64_t now = now_unix_ms();
  for (const auto& file : change.snapshot.scopes) {
    const bool changed =
        change.initial || std::find(change.changed_scopes.begin(), change.changed_scopes.end(),
                                    file.scope) != change.changed_scopes.end();
    if (!changed) continue;
    auto it = histories_.find(file.path);
    if (it == histories_.end()) {
      if (histories_.size() >= kMaxHistories) continue;
      it = histories_.emplace(file.path, ScopeHistory(kHistoryDepth)).first;
    }
    it->second.record(file, now, next_history_id_);
  }
}

void ChangeHub::watch(const settings::ScopePaths& paths) {
  const std::string key = key_of(paths);
  {
    const std::lock_guard lock(mutex_);
    if (stopped_) throw std::runtime_error("the service is stopping");
    if (auto it = feeds_.find(key); it != feeds_.end()) {
      it->second->last_used = ++clock_;
      return;
    }
  }
  auto feed = std::make_shared<Feed>();
  feed->permanent = key.empty();
  Feed* raw = feed.get();
  // The watcher starts at once; its callbacks wait for the lock, and reach
  // the feed through `raw`, which lives until the watcher has stopped.
  feed->watcher = std::make_unique<settings::Watcher>(
      paths, settings::SnapshotOptions{},
      [this, raw](const settings::SettingsChange& change) {
        const std::string text = event_text("change", settings::change_json(change));
        settings::SettingsChange state;
        state.snapshot = change.snapshot;
        state.initial = true;
        const std::string latest = event_text("change", settings::change_json(state));
        const std::lock_guard lock(mutex_);
        record(change);
        raw->latest = latest;
        deliver(*raw, text);
      },
      [this, raw](const std::exception& e) {
        const std::string text =
            event_text("error", {{"error", "settings_unavailable"}, {"message", e.what()}});
        const std::lock_guard lock(mutex_);
        raw->latest = text;
        deliver(*raw, text);
      });
  std::vector<std::shared_ptr<Feed>> stopping;
  {
    const std::lock_guard lock(mutex_);
    if (stopped_ || feeds_.contains(key)) {
      stopping.push_back(std::move(feed));  // stopping, or another caller was first
    } else {
      feed->last_used = ++clock_;
      feeds_.emplace(key, std::move(feed));
    }
    // Beyond the limit, the longest-unfollowed workspace watcher goes.
    while (feeds_.size() > max_watchers_) {
      auto victim = feeds_.end();
      for (auto it = feeds_.begin(); it != feeds_.end(); ++it) {
        if (it->second->permanent || !it->second->subscribers.empty()) continue;
        if (victim == feeds_.end() || it->second->last_used < victim->second->last_used) {
          victim = it;
        }
      }
      if (victim == feeds_.end()) break;
      stopping.push_back(std::move(victim->second));
      feeds_.erase(victim);
    }
  }
  // Outside the lock: a watcher's last callback may be waiting for it.
  for (auto& old : stopping) old->watcher->stop();
}

std::shared_ptr<void> ChangeHub::subscribe(const settings::ScopePaths& paths, Send send) {
  const std::string key = key_of(paths);
  const std::lock_guard lock(mutex_);
  const auto it = feeds_.find(key);
  if (stopped_ || it == feeds_.end()) return nullptr;
  Feed& feed = *it->second;
  const std::uint64_t id = next_subscriber_++;
  feed.last_used = ++clock_;
  if (feed.latest) send(*feed.latest);
  feed.subscribers.emplace(id, std::move(send));
  std::weak_ptr<Feed> weak = it->second;
  auto subscription = std::make_shared<Subscription>();
  subscription->end = [this, weak, id] {
    const std::lock_guard lock(mutex_);
    if (auto feed = weak.lock()) {
      feed->subscribers.erase(id);
      feed->last_used = ++clock_;
    }
  };
  return subscription;
}

json ChangeHub::history(const std::filesystem::path& file) const {
  const std::lock_guard lock(mutex_);
  const auto it = histories_.find(file);
  return it == histories_.end() ? json::array() : history_json(it->second);
}

std::optional<HistoryEntry> ChangeHub::history_entry(const std::filesystem::path& file,
                                                     std::uint64_t id) const {
  const std::lock_guard lock(mutex_);
  const auto it = histories_.find(file);
  if (it == histories_.end()) return std::nullopt;
  const HistoryEntry* entry = it->second.find(id);
  return entry ? std::optional<HistoryEntry>(*entry) : std::nullopt;
}

void ChangeHub::stop() {
  std::map<std::string, std::shared_ptr<Feed>> feeds;
  {
    const std::lock_guard lock(mutex_);
    stopped_ = true;
    feeds.swap(feeds_);
    for (auto& [key, feed] : feeds) feed->subscribers.clear();
  }
  for (auto& [key, feed] : feeds) feed->watcher->stop();
}

}  // namespace holdfast::service
