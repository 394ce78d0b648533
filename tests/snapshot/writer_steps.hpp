// Steps the snapshot suites' writer processes share: a forked writer
// writes its files with plain syscalls and exits with a code of its own on
// failure (it must not run the test framework's code after fork).
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace holdfast::testing {

// A writer's own new file: created (or truncated) and written whole; exits
// 2 when it cannot be opened, 3 when it cannot be written.
inline void write_new(const std::filesystem::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) _exit(2);
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) _exit(3);
  ::close(fd);
}

// True while `pid` (our child) has not exited: a writer that died early
// would make every count of a test meaningless.
inline bool still_running(pid_t pid) {
  int status = 0;
  return ::waitpid(pid, &status, WNOHANG) == 0;
}

}  // namespace holdfast::testing
