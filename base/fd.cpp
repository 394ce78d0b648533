#include "base/fd.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/system_error.hpp"

namespace holdfast::base {

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);  // close errors on a read fd or an fsynced fd carry no news
  fd_ = fd;
}

Pipe make_pipe(const std::string& purpose, int extra_flags) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | extra_flags) != 0) throw_errno("cannot make a pipe for", purpose);
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

std::string read_all(int fd, const std::filesystem::path& path, std::size_t limit) {
  std::string out;
  char buffer[16384];
  while (out.size() < limit) {
    const ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, limit - out.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_errno("cannot read", path);
    }
    if (n == 0) return out;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return out;
}

void write_all(int fd, std::string_view bytes, const std::filesystem::path& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_errno("cannot write", path);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

UniqueFd sealed_memfd(const char* name, std::string_view bytes) {
  UniqueFd fd(::memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd.valid()) throw_errno("cannot create a memfd", name);
  write_all(fd.get(), bytes, name);
  if (::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) <
      0) {
    throw_errno("cannot seal the memfd", name);
  }
  if (::lseek(fd.get(), 0, SEEK_SET) != 0) throw_errno("cannot rewind the memfd", name);
  return fd;
}

}  // namespace holdfast::base
