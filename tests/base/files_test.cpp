// Whole files by path on the real file system.
#include "base/files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>

#include "base/system_error.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::base {
namespace {

TEST(Files, WrittenBytesReadBackAndATruncatedFileLosesItsTail) {
  testing::TempDir dir;
  const auto file = dir / "f";
  const std::string binary("a\0b\nc", 5);
  write_file(file, binary);
  EXPECT_EQ(read_file(file), binary);
  write_file(file, "x");
  EXPECT_EQ(read_file(file), "x");
}

TEST(Files, ANewFileGetsTheModeGivenLessTheUmask) {
  testing::TempDir dir;
  const mode_t old_umask = ::umask(022);
  write_file(dir / "a", "", 0640);
  write_file(dir / "b", "");
  ::umask(old_umask);
  struct stat st {};
  ASSERT_EQ(::stat((dir / "a").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640U);
  ASSERT_EQ(::stat((dir / "b").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644U);
}

TEST(Files, FailuresNameThePathAndCarryErrno) {
  testing::TempDir dir;
  try {
    (void)read_file(dir / "missing");
    FAIL() << "read a missing file";
  } catch (const SystemError& e) {
    EXPECT_EQ(e.error_number(), ENOENT);
    EXPECT_EQ(e.path(), dir / "missing");
  }
  try {
    write_file(dir / "no-such-dir" / "f", "x");
    FAIL() << "wrote into a missing directory";
  } catch (const SystemError& e) {
    EXPECT_EQ(e.error_number(), ENOENT);
    EXPECT_EQ(e.path(), dir / "no-such-dir" / "f");
  }
  try {
    (void)read_file(dir.path());  // a directory opens, but read fails
    FAIL() << "read a directory as a file";
  } catch (const SystemError& e) {
    EXPECT_EQ(e.error_number(), EISDIR);
  }
}

}  // namespace
}  // namespace holdfast::base
