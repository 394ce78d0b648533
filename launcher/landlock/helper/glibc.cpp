// The helper's system interface (freestanding.hpp) over glibc, for the
// machines whose system calls freestanding.cpp does not make itself. The
// program is then a static glibc one, larger and slower to start.
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launcher/landlock/helper/freestanding.hpp"

namespace holdfast::landlock::sys {

namespace {

long result_of(long value) { return value < 0 ? -errno : value; }

}  // namespace

long call(long number, long a, long b, long c, long d, long e, long f) {
  return result_of(::syscall(number, a, b, c, d, e, f));
}

long stat_fd(int fd, struct statx& out) {
  return result_of(
      ::statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_INO, &out));
}

long stat_path(const char* path, struct statx& out) {
  return result_of(::statx(AT_FDCWD, path, 0, STATX_TYPE | STATX_INO, &out));
}

long open_at(int dir, const char* path, int flags) { return result_of(::openat(dir, path, flags)); }

void close(int fd) { ::close(fd); }

void say(const char* text, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(2, text, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    text += n;
    size -= static_cast<std::size_t>(n);
  }
}

void say(const char* text) { say(text, ::strlen(text)); }

void exit(int status) { ::_exit(status); }

int exec_command(char* const* argv, char* const* envp) {
  ::execvpe(argv[0], argv, envp);
  return errno;
}

const char* describe(int error) { return ::strerror(error); }

void say_error(int error) { say(describe(error)); }

}  // namespace holdfast::landlock::sys
