// Watching the way to one file: every directory from the root down to the
// file's own, for the path as named and for where its symlinks lead now.
//
// Only events about the way count: an entry named like the next step
// (created, removed, renamed in or out, written), a watched directory's own
// removal or move, and a queue overflow. A browser, an IDE or a build that
// churns its own files beside the settings directory, in the workspace root
// or in the parent of an absent system directory is no sign that the
// settings are changing, and must neither keep a reader waiting nor cut its
// quiet window short.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "settings/inotify.hpp"

namespace holdfast::settings {

class PathWatch {
 public:
  // Watches every existing directory on the way to `file`. Throws
  // SystemError when inotify is unavailable.
  explicit PathWatch(std::filesystem::path file);

  // Waits up to `timeout` for an event about the way. True when one came
  // (directories that appeared on the way are watched from then on); false
  // when `timeout` passed with none, however much else happened nearby.
  bool wait(std::chrono::milliseconds timeout);

  // Whether the file's own directory exists and is watched.
  bool watches_file_directory() const { return file_directory_watched_; }

 private:
  void watch_the_way();
  bool about_the_way(const DirectoryEvent& event) const;

  std::filesystem::path file_;
  Inotify inotify_;
  // For each watch, the names in that directory that lead on to the file
  // (one directory can be on the way twice: as named and through a link).
  std::map<int, std::set<std::string>> next_names_;
  bool file_directory_watched_ = false;
};

}  // namespace holdfast::settings
