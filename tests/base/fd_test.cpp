// Descriptors that close themselves, and whole-buffer reads and writes
// through real pipes and files.
#include "base/fd.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>

#include "base/process.hpp"
#include "base/system_error.hpp"

namespace holdfast::base {
namespace {

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

struct PipeFds {
  UniqueFd read;
  UniqueFd write;
};

PipeFds make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw_errno("cannot make", "a pipe");
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

TEST(UniqueFd, ClosesOnDestructionResetAndNotOnRelease) {
  int raw = -1;
  {
    PipeFds pipe = make_pipe();
    raw = pipe.read.get();
    EXPECT_TRUE(is_open(raw));
  }
  EXPECT_FALSE(is_open(raw));

  PipeFds pipe = make_pipe();
  raw = pipe.write.get();
  pipe.write.reset();
  EXPECT_FALSE(pipe.write.valid());
  EXPECT_FALSE(is_open(raw));

  raw = pipe.read.release();
  EXPECT_FALSE(pipe.read.valid());
  EXPECT_TRUE(is_open(raw));
  ::close(raw);
}

TEST(UniqueFd, MovingHandsOverTheDescriptorAndClosesTheOneReplaced) {
  PipeFds pipe = make_pipe();
  const int read_raw = pipe.read.get();
  const int write_raw = pipe.write.get();
  UniqueFd moved(std::move(pipe.read));
  EXPECT_EQ(moved.get(), read_raw);
  EXPECT_FALSE(pipe.read.valid());  // NOLINT(bugprone-use-after-move): what a move leaves
  moved = std::move(pipe.write);
  EXPECT_EQ(moved.get(), write_raw);
  EXPECT_FALSE(is_open(read_raw));
  EXPECT_TRUE(is_open(write_raw));
}

// More than a pipe holds, written by a child while we read: every byte
// arrives, in order, through short reads and writes.
TEST(ReadWriteAll, EveryByteThroughAPipe) {
  std::string bytes;
  for (int i = 0; i < 300000; ++i) bytes += static_cast<char>('a' + i % 26);
  PipeFds pipe = make_pipe();
  Child writer = fork_call([&] {
    pipe.read.reset();
    write_all(pipe.write.get(), bytes, "the pipe");
    return 0;
  });
  pipe.write.reset();
  EXPECT_EQ(read_all(pipe.read.get(), "the pipe"), bytes);
  EXPECT_EQ(exit_code(writer.wait()), 0);
}

TEST(ReadWriteAll, ReadStopsAtTheLimit) {
  PipeFds pipe = make_pipe();
  write_all(pipe.write.get(), "0123456789", "the pipe");
  pipe.write.reset();
  EXPECT_EQ(read_all(pipe.read.get(), "the pipe", 4), "0123");
  EXPECT_EQ(read_all(pipe.read.get(), "the pipe"), "456789");
}

TEST(ReadWriteAll, FailuresNameThePathAndCarryErrno) {
  PipeFds pipe = make_pipe();
  try {
    (void)read_all(pipe.write.get(), "the write end");  // EBADF: not open for reading
    FAIL() << "read from a write end";
  } catch (const SystemError& e) {
    EXPECT_EQ(e.error_number(), EBADF);
    EXPECT_EQ(e.path(), "the write end");
    EXPECT_EQ(e.operation(), "cannot read");
  }
  try {
    write_all(pipe.read.get(), "x", "the read end");
    FAIL() << "wrote to a read end";
  } catch (const SystemError& e) {
    EXPECT_EQ(e.error_number(), EBADF);
    EXPECT_EQ(e.operation(), "cannot write");
  }
}

TEST(SystemError, MessageNamesOperationPathErrorAndConsequence) {
  const SystemError plain("cannot open", "/some/file", ENOENT);
  EXPECT_STREQ(plain.what(), "cannot open /some/file: No such file or directory");
  const SystemError with_consequence("cannot fsync", "/d", EIO, "the old file is in place");
  EXPECT_STREQ(with_consequence.what(),
               "cannot fsync /d: Input/output error; the old file is in place");
  const SystemError reason("refusing", "/f", "it is a FIFO");
  EXPECT_STREQ(reason.what(), "refusing /f: it is a FIFO");
  EXPECT_EQ(reason.error_number(), 0);
  errno = EACCES;
  try {
    throw_errno("cannot enter", "/x");
  } catch (const SystemError& e) {
    EXPECT_EQ(e.error_number(), EACCES);
    EXPECT_STREQ(e.what(), "cannot enter /x: Permission denied");
  }
}

}  // namespace
}  // namespace holdfast::base
