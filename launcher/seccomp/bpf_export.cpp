#include "launcher/seccomp/bpf_export.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "settings/errors.hpp"

namespace holdfast::seccomp {
namespace {

constexpr const char* memfd_name = "holdfast-seccomp-bpf";

void export_into(const Filter& filter, int fd) {
  const int rc = seccomp_export_bpf(filter.get(), fd);
  if (rc < 0) throw SeccompError("cannot export the filter as BPF (seccomp_export_bpf)", -rc);
}

}  // namespace

UniqueFd export_bpf_to_memfd(const Filter& filter) {
  UniqueFd fd{::memfd_create(memfd_name, MFD_CLOEXEC | MFD_ALLOW_SEALING)};
  if (!fd.valid())
    settings::throw_errno("cannot create a memfd for the seccomp filter", memfd_name);
  export_into(filter, fd.get());
  if (::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) <
      0) {
    settings::throw_errno("cannot seal the seccomp filter memfd", memfd_name);
  }
  const off_t size = ::lseek(fd.get(), 0, SEEK_END);
  if (size < 0) settings::throw_errno("cannot size the seccomp filter memfd", memfd_name);
  if (size == 0) throw SeccompError("the exported seccomp filter is empty", EINVAL);
  // bwrap reads from the current offset; seccomp_export_bpf left it at the end.
  if (::lseek(fd.get(), 0, SEEK_SET) != 0) {
    settings::throw_errno("cannot rewind the seccomp filter memfd", memfd_name);
  }
  return fd;
}

std::string export_bpf(const Filter& filter) {
  UniqueFd fd = export_bpf_to_memfd(filter);
  return settings::read_all(fd.get(), memfd_name);
}

bool allow_inherit(int fd) noexcept {
  const int flags = ::fcntl(fd, F_GETFD);
  if (flags < 0) return false;
  return ::fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) == 0;
}

}  // namespace holdfast::seccomp
