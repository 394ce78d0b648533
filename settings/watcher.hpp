// The settings watcher: calls back with each new effective snapshot.
//
// It watches the scope *directories* with inotify, not the files: a save
// renames a new inode over the name, so a watch on the old inode would go
// quiet. A directory that does not exist yet is waited for through its
// nearest existing ancestor. Any event (including a queue overflow) leads
// to a fresh snapshot; the callback runs only when the snapshot's digest
// differs from the last one delivered, so a burst of saves ends with the
// final state. No polling.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "settings/snapshot.hpp"

namespace holdfast::settings {

struct SettingsChange {
  Snapshot snapshot;
  bool initial = false;                    // the first snapshot, before any change
  std::vector<Scope> changed_scopes;       // whose file bytes or presence changed
  std::vector<std::string> changed_keys;   // dotted effective keys added, removed or changed
};

// The dotted keys whose effective value differs between two documents.
std::vector<std::string> changed_keys(const nlohmann::json& before, const nlohmann::json& after);

class Watcher {
 public:
  using OnChange = std::function<void(const SettingsChange&)>;
  using OnError = std::function<void(const std::exception&)>;

  // Starts watching on a background thread; the initial snapshot is
  // delivered first (initial == true). Errors taking a snapshot (an invalid
  // file while someone edits it) go to `on_error` and watching goes on.
  // Callbacks run on the watcher's thread, one at a time.
  Watcher(ScopePaths paths, SnapshotOptions options, OnChange on_change, OnError on_error = {});
  ~Watcher();
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  // Stops the thread; no callback runs after stop() returns.
  void stop();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// One change of the effective settings as `settings watch --json` prints it
// and the settings service sends it: {initial, digest, revisions (scope →
// revision, null when absent), scopes (changed), keys (changed, dotted)}.
nlohmann::json change_json(const SettingsChange& change);

}  // namespace holdfast::settings
