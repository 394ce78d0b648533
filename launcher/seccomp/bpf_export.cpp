#include "launcher/seccomp/bpf_export.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "base/fd.hpp"
#include "base/system_error.hpp"

namespace holdfast::seccomp {
namespace {

constexpr const char* memfd_name = "holdfast-seccomp-bpf";

UniqueFd create_memfd() {
  UniqueFd fd{::memfd_create(memfd_name, MFD_CLOEXEC | MFD_ALLOW_SEALING)};
  if (!fd.valid()) base::throw_errno("cannot create a memfd for the seccomp filter", memfd_name);
  return fd;
}

// Seals the written program and rewinds: bwrap reads from the current
// offset, and writing left it at the end.
void seal_and_rewind(int fd) {
  if (::fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
    base::throw_errno("cannot seal the seccomp filter memfd", memfd_name);
  }
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size < 0) base::throw_errno("cannot size the seccomp filter memfd", memfd_name);
  if (size == 0) throw SeccompError("the exported seccomp filter is empty", EINVAL);
  if (::lseek(fd, 0, SEEK_SET) != 0) {
    base::throw_errno("cannot rewind the seccomp filter memfd", memfd_name);
  }
}

}  // namespace

UniqueFd export_bpf_to_memfd(const Filter& filter) {
  UniqueFd fd = create_memfd();
  const int rc = seccomp_export_bpf(filter.get(), fd.get());
  if (rc < 0) throw SeccompError("cannot export the filter as BPF (seccomp_export_bpf)", -rc);
  seal_and_rewind(fd.get());
  return fd;
}

UniqueFd program_to_memfd(std::string_view program) {
  UniqueFd fd = create_memfd();
  base::write_all(fd.get(), program, memfd_name);
  seal_and_rewind(fd.get());
  return fd;
}

std::string export_bpf(const Filter& filter) {
  UniqueFd fd = export_bpf_to_memfd(filter);
  return base::read_all(fd.get(), memfd_name);
}

bool allow_inherit(int fd) noexcept {
  const int flags = ::fcntl(fd, F_GETFD);
  if (flags < 0) return false;
  return ::fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) == 0;
}

}  // namespace holdfast::seccomp
