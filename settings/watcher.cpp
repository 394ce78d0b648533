#include "settings/watcher.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <set>
#include <thread>

#include "base/fd.hpp"
#include "base/system_error.hpp"
#include "settings/inotify.hpp"
#include "settings/key_path.hpp"

namespace holdfast::settings {

namespace fs = std::filesystem;

std::vector<std::string> changed_keys(const nlohmann::json& before, const nlohmann::json& after) {
  const nlohmann::json flat_before = before.flatten();
  const nlohmann::json flat_after = after.flatten();
  std::set<std::string> keys;
  for (const auto& [pointer, value] : flat_before.items()) {
    if (!flat_after.contains(pointer) || flat_after[pointer] != value) keys.insert(pointer);
  }
  for (const auto& [pointer, value] : flat_after.items()) {
    if (!flat_before.contains(pointer)) keys.insert(pointer);
  }
  std::vector<std::string> dotted;
  for (const auto& pointer : keys) {
    // flatten() turns an empty document into {"": {}}; that is no key.
    if (!pointer.empty()) dotted.push_back(pointer_to_dotted(pointer));
  }
  return dotted;
}

namespace {

constexpr std::uint32_t kWatchMask = IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MOVED_FROM |
                                     IN_DELETE | IN_MODIFY | IN_DELETE_SELF | IN_MOVE_SELF |
                                     IN_ATTRIB;

std::vector<fs::path> scope_directories(const ScopePaths& paths) {
  std::set<fs::path> directories;
  for (Scope scope : kScopesInPrecedenceOrder) {
    if (auto file = paths.file(scope)) directories.insert(file->parent_path());
  }
  return {directories.begin(), directories.end()};
}

std::vector<Scope> changed_scopes(const Snapshot& before, const Snapshot& after) {
  std::vector<Scope> changed;
  for (const auto& file : after.scopes) {
    const ScopeFile* old = before.scope(file.scope);
    if (old == nullptr || old->exists != file.exists ||
        old->identity.sha256 != file.identity.sha256) {
      changed.push_back(file.scope);
    }
  }
  return changed;
}

}  // namespace

struct Watcher::State {
  ScopePaths paths;
  SnapshotOptions options;
  OnChange on_change;
  OnError on_error;
  Inotify inotify;
  base::UniqueFd stop_event{::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};
  std::optional<Snapshot> last;
  std::thread thread;

  // Watches every scope directory, or for a missing one its nearest
  // existing ancestor (whose IN_CREATE tells us when to look again).
  // Re-adding a watch on an inode already watched is a no-op, so this runs
  // after every batch of events.
  void establish_watches() {
    for (const auto& directory : scope_directories(paths)) {
      for (fs::path dir = directory;; dir = dir.parent_path()) {
        if (inotify.try_watch(dir, kWatchMask) >= 0) break;
        if (dir == dir.root_path() || dir.empty()) break;
      }
    }
  }

  void deliver() {
    try {
      Snapshot snapshot = take_snapshot(paths, options);
      if (last && last->digest == snapshot.digest) return;
      SettingsChange change;
      change.initial = !last.has_value();
      if (last) {
        change.changed_scopes = changed_scopes(*last, snapshot);
        change.changed_keys = changed_keys(last->effective.value, snapshot.effective.value);
      }
      change.snapshot = snapshot;
      last = std::move(snapshot);
      on_change(change);
    } catch (const std::exception& e) {
      if (on_error) on_error(e);
    }
  }

  void run() {
    establish_watches();
    deliver();
    for (;;) {
      pollfd fds[2] = {{inotify.fd(), POLLIN, 0}, {stop_event.get(), POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if ((fds[1].revents & POLLIN) != 0) return;
      inotify.drain();  // the events only say "look again"; the snapshot says what changed
      establish_watches();
      deliver();
    }
  }
};

Watcher::Watcher(ScopePaths paths, SnapshotOptions options, OnChange on_change, OnError on_error)
    : state_(std::make_unique<State>()) {
  if (!state_->stop_event.valid()) base::throw_errno("cannot create an eventfd for", "the watcher");
  state_->paths = std::move(paths);
  state_->options = std::move(options);
  state_->on_change = std::move(on_change);
  state_->on_error = std::move(on_error);
  state_->thread = std::thread([state = state_.get()] { state->run(); });
}

Watcher::~Watcher() { stop(); }

void Watcher::stop() {
  if (!state_ || !state_->thread.joinable()) return;
  const std::uint64_t one = 1;
  if (::write(state_->stop_event.get(), &one, sizeof one) < 0) {
    // An eventfd write fails only on counter overflow; the thread is
    // already signalled then.
  }
  state_->thread.join();
}

nlohmann::json change_json(const SettingsChange& change) {
  nlohmann::json revisions = nlohmann::json::object();
  for (const auto& file : change.snapshot.scopes) {
    revisions[std::string(scope_name(file.scope))] =
        file.exists ? nlohmann::json(file.revision) : nlohmann::json();
  }
  nlohmann::json scopes = nlohmann::json::array();
  for (Scope scope : change.changed_scopes) scopes.push_back(std::string(scope_name(scope)));
  return nlohmann::json{{"initial", change.initial},
                        {"digest", change.snapshot.digest},
                        {"revisions", revisions},
                        {"scopes", scopes},
                        {"keys", change.changed_keys}};
}

}  // namespace holdfast::settings
