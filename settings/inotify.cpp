#include "settings/inotify.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "base/system_error.hpp"

namespace holdfast::settings {

Inotify::Inotify() : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
  if (!fd_.valid())
    base::throw_errno("cannot create an inotify instance for", "settings directories");
}

int Inotify::watch(const std::filesystem::path& directory, std::uint32_t mask) {
  const int wd = ::inotify_add_watch(fd_.get(), directory.c_str(), mask | IN_ONLYDIR);
  if (wd < 0) base::throw_errno("cannot watch directory", directory);
  return wd;
}

int Inotify::try_watch(const std::filesystem::path& directory, std::uint32_t mask) {
  const int wd = ::inotify_add_watch(fd_.get(), directory.c_str(), mask | IN_ONLYDIR);
  if (wd >= 0) return wd;
  if (errno == ENOENT || errno == ENOTDIR || errno == EACCES) return -1;
  base::throw_errno("cannot watch directory", directory);
}

void Inotify::remove(int watch) { ::inotify_rm_watch(fd_.get(), watch); }

std::vector<DirectoryEvent> Inotify::wait(std::chrono::milliseconds timeout) {
  pollfd pfd{fd_.get(), POLLIN, 0};
  for (;;) {
    const int ready = ::poll(&pfd, 1, static_cast<int>(timeout.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) base::throw_errno("cannot poll inotify for", "settings directories");
    if (ready == 0) return {};
    return read_events();
  }
}

std::vector<DirectoryEvent> Inotify::read_events() {
  std::vector<DirectoryEvent> events;
  alignas(inotify_event) char buffer[16384];
  for (;;) {
    const ssize_t n = ::read(fd_.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return events;
      base::throw_errno("cannot read inotify events for", "settings directories");
    }
    for (ssize_t offset = 0; offset < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer + offset);
      events.push_back(DirectoryEvent{event->wd, event->mask,
                                      event->len > 0 ? std::string(event->name) : std::string()});
      offset += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
    }
  }
}

}  // namespace holdfast::settings
