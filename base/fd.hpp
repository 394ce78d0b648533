// A file descriptor that closes itself, and whole-buffer read and write that
// handle short transfers and EINTR.
#pragma once

#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

namespace holdfast::base {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(std::exchange(other.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// Both ends of a pipe, close-on-exec.
struct Pipe {
  UniqueFd read_end;
  UniqueFd write_end;
};

// pipe2(O_CLOEXEC | `extra_flags`). Throws SystemError "cannot make a pipe
// for `purpose`".
Pipe make_pipe(const std::string& purpose, int extra_flags = 0);

// BYTES in a sealed, close-on-exec memfd, rewound to offset 0: data a
// child reads through a descriptor (bubblewrap's --ro-bind-data) that
// nobody can change afterwards. Throws SystemError naming NAME.
UniqueFd sealed_memfd(const char* name, std::string_view bytes);

// Reads to end of file, or until `limit` bytes were read. Throws SystemError
// naming `path`.
std::string read_all(int fd, const std::filesystem::path& path,
                     std::size_t limit = std::numeric_limits<std::size_t>::max());
// Writes every byte. Throws SystemError naming `path` (ENOSPC, EFBIG, ...).
void write_all(int fd, std::string_view bytes, const std::filesystem::path& path);

}  // namespace holdfast::base
