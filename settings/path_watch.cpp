#include "settings/path_watch.hpp"

#include "base/system_error.hpp"
#include "base/write_target.hpp"

namespace holdfast::settings {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Everything that can happen to an entry on the way, and to a watched
// directory itself (the directory may be swapped or removed).
constexpr std::uint32_t kEntryEvents =
    IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF;
// In the file's own directory, the file's writes too. Only there: a watch
// for writes makes the kernel mark every child of the directory it holds
// in its cache (fsnotify_set_children_dentry_flags), which in a busy /tmp
// or /var/tmp took 3 ms of a 9 ms launch; the entry events above do not.
constexpr std::uint32_t kFileDirectoryEvents = kEntryEvents | IN_CLOSE_WRITE | IN_MODIFY;
// What happens to the watched directory itself.
constexpr std::uint32_t kSelfEvents = IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT;

}  // namespace

PathWatch::PathWatch(fs::path file) : file_(std::move(file)) { watch_the_way(); }

// Watching an inode twice returns the same watch, so this is called again
// after every event about the way: directories that came back get watched.
void PathWatch::watch_the_way() {
  const fs::path target = base::current_write_target(file_);
  file_directory_watched_ = false;
  for (const fs::path& start : {file_, target}) {
    fs::path next = start.filename();
    std::uint32_t events = kFileDirectoryEvents;
    for (fs::path dir = start.parent_path();; dir = dir.parent_path()) {
      // IN_MASK_ADD: a directory on both ways (as named and through a
      // link) keeps what each needs.
      const int wd = inotify_.try_watch(dir, events | IN_MASK_ADD);
      events = kEntryEvents;
      if (wd >= 0) {
        next_names_[wd].insert(next.string());
        if (dir == target.parent_path()) file_directory_watched_ = true;
      }
      if (dir.empty() || dir == dir.parent_path()) break;
      next = dir.filename();
    }
  }
}

bool PathWatch::about_the_way(const DirectoryEvent& event) const {
  if ((event.mask & IN_Q_OVERFLOW) != 0) return true;  // events were lost: assume the worst
  const auto names = next_names_.find(event.watch);
  if (names == next_names_.end()) return false;
  if (event.name.empty()) return (event.mask & kSelfEvents) != 0;
  return names->second.contains(event.name);
}

bool PathWatch::wait(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() < 0) return false;
    const auto events = inotify_.wait(left);
    if (events.empty()) return false;
    for (const auto& event : events) {
      if (about_the_way(event)) {
        watch_the_way();
        return true;
      }
    }
    // Only noise beside the way: keep waiting out the same window.
  }
}

}  // namespace holdfast::settings
