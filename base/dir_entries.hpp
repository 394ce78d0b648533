// The entries of an open directory, read with getdents64 into one stack
// buffer: readdir() would allocate a buffer per directory, and a launch
// lists directories on its way to the command.
#pragma once

#include <dirent.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

namespace holdfast::base {

// struct linux_dirent64, as getdents64 fills it.
struct DirEntry64 {
  ino64_t d_ino;
  off64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

// Calls `visit(name, type)` for each entry of the directory `fd` but "."
// and "..", from where its offset stands, until the end or until `visit`
// returns false. `type` is the listing's DT_* (DT_UNKNOWN where the file
// system does not say); `name` is NUL-terminated. Returns 0, or the errno
// of a failed listing.
template <class Visit>
int for_each_entry(int fd, Visit&& visit) {
  alignas(8) char buffer[16384];
  for (;;) {
    const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
    if (n < 0) return errno;
    if (n == 0) return 0;
    for (long at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const DirEntry64*>(buffer + at);
      at += entry->d_reclen;
      const std::string_view name = entry->d_name;
      if (name == "." || name == "..") continue;
      if (!visit(name, entry->d_type)) return 0;
    }
  }
}

}  // namespace holdfast::base
