// What bwrap --seccomp FD needs of a program's memfd, checked the same way
// for a filter exported by libseccomp and for a baked program.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>

namespace holdfast::seccomp {

// Offset 0 (bwrap reads from the current offset), sealed against any change
// before bwrap reads it, and close-on-exec (no leak into other children).
inline void expect_ready_for_bwrap(int fd) {
  EXPECT_EQ(::lseek(fd, 0, SEEK_CUR), 0) << "bwrap reads from the current offset";
  const int seals = ::fcntl(fd, F_GET_SEALS);
  ASSERT_GE(seals, 0);
  constexpr int kAll = F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL;
  EXPECT_EQ(seals & kAll, kAll);
  errno = 0;
  EXPECT_EQ(::write(fd, "x", 1), -1);
  EXPECT_EQ(errno, EPERM) << "a sealed program cannot be changed before bwrap reads it";
  EXPECT_TRUE(::fcntl(fd, F_GETFD) & FD_CLOEXEC) << "must not leak into other children";
}

}  // namespace holdfast::seccomp
