// Small helpers for tests that use the real file system and real processes.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace holdfast::testing {

// A fresh directory under /tmp, removed with everything in it.
class TempDir {
 public:
  // `base`: where to make it; the default is the system temp directory.
  explicit TempDir(std::filesystem::path base = std::filesystem::temp_directory_path()) {
    std::string pattern = (base / "holdfast-test.XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
    std::filesystem::permissions(path_, std::filesystem::perms(0755));
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// A tmpfs directory when the machine has one (/dev/shm), else the temp
// directory. For tests about readers and writers racing, where a disk's
// journal would only add minutes, not meaning.
inline std::filesystem::path memory_backed_base() {
  std::error_code ec;
  return std::filesystem::is_directory("/dev/shm", ec) ? std::filesystem::path("/dev/shm")
                                                       : std::filesystem::temp_directory_path();
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A forked child running `body` until it returns (exit 0) or is stopped.
// The destructor kills (SIGKILL) and reaps it.
class Child {
 public:
  explicit Child(const std::function<void()>& body) {
    pid_ = ::fork();
    if (pid_ == 0) {
      body();
      ::_exit(0);
    }
  }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  pid_t pid() const { return pid_; }
  // Waits for the child and returns its raw wait status.
  int wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_ = -1;
};

// A pipe used as a one-shot "ready" signal between processes.
class Signal {
 public:
  Signal() {
    if (::pipe(fds_) != 0) std::abort();
  }
  ~Signal() {
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  void notify() {
    const char byte = 1;
    if (::write(fds_[1], &byte, 1) != 1) std::abort();
  }
  void wait() {
    char byte = 0;
    if (::read(fds_[0], &byte, 1) != 1) std::abort();
  }

 private:
  int fds_[2];
};

}  // namespace holdfast::testing
