// A small RAII wrapper over inotify: watches on directories, and a bounded
// wait for the next batch of events.
#pragma once

#include <sys/inotify.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "base/fd.hpp"

namespace holdfast::settings {

struct DirectoryEvent {
  int watch = -1;
  std::uint32_t mask = 0;
  std::string name;  // entry name inside the watched directory; empty for the directory itself
};

class Inotify {
 public:
  // Throws SystemError when inotify is unavailable (for example, the
  // per-user instance limit is reached).
  Inotify();

  // Watches `directory` for `mask`; returns the watch descriptor. Throws
  // SystemError (ENOENT when the directory does not exist).
  int watch(const std::filesystem::path& directory, std::uint32_t mask);
  // Like watch() but returns -1 instead of throwing when the directory is
  // missing or not a directory.
  int try_watch(const std::filesystem::path& directory, std::uint32_t mask);
  void remove(int watch);

  // Waits up to `timeout` (negative: forever) for events, then returns every
  // event queued. Returns an empty vector on timeout.
  std::vector<DirectoryEvent> wait(std::chrono::milliseconds timeout);
  // Returns the events already queued, without waiting.
  std::vector<DirectoryEvent> drain() { return wait(std::chrono::milliseconds(0)); }

  int fd() const { return fd_.get(); }

 private:
  std::vector<DirectoryEvent> read_events();
  base::UniqueFd fd_;
};

}  // namespace holdfast::settings
