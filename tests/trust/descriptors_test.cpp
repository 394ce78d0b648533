// Descriptors 0-2 the caller hands in (issue 20.5). A descriptor keeps the
// host mount it was opened on, which the sandbox's read-only binds do not
// cover: reopening /proc/self/fd/N inside opens the host file again, with
// whatever the file's permissions allow. And a directory is a starting
// point for paths anywhere.
#include <sys/stat.h>

#include "escape_support.hpp"

namespace holdfast::run::testing {
namespace {

class DescriptorsTest : public EscapeTest {};

// `holdfast run -- CMD < ~/notes`: CMD reopened /proc/self/fd/0 for writing
// and appended to the host file.
TEST_P(DescriptorsTest, InputFileCannotBeReopenedForWriting) {
  const fs::path notes = outside_ / "notes";
  write_file(notes, "secret notes\n");
  give_to_caller(notes);
  Launch launch;
  launch.in = notes;
  const auto result = run_as_caller(
      {"/bin/sh", "-c", "cat; echo evil >> /proc/self/fd/0; echo \"reopen: $?\" >&2"}, {}, launch);
  EXPECT_EQ(read_file(notes), "secret notes\n") << "the command wrote the caller's input file";
  EXPECT_EQ(result.out, "secret notes\n") << "the command must still read its input";
  EXPECT_EQ(result.exit_code, 0) << result.err;
}

// `holdfast run -- CMD >> ~/log`: the output descriptor is the command's to
// write, but a reopen of it with O_TRUNC emptied what was there before.
TEST_P(DescriptorsTest, OutputFileCannotBeReopenedAndTruncated) {
  const fs::path log = outside_ / "log";
  write_file(log, "earlier\n");
  give_to_caller(log);
  Launch launch;
  launch.out = log;
  const auto result =
      run_as_caller({"/bin/sh", "-c", "echo new; : > /proc/self/fd/1; echo after"}, {}, launch);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(read_file(log), "earlier\nnew\nafter\n")
      << "the command emptied (or lost the output to) the caller's file";
}

// A directory as input: from /proc/self/fd/0 (or openat(0, "../x")) the
// command reached the host directory itself, writable whatever the policy.
TEST_P(DescriptorsTest, DirectoryOnADescriptorIsRefused) {
  Launch launch;
  launch.in = outside_;
  const auto result = run_as_caller(
      {"/bin/sh", "-c", "cd /proc/self/fd/0 && echo x > escaped && ls / > listing"}, {}, launch);
  EXPECT_FALSE(fs::exists(outside_ / "escaped")) << "the command wrote through the directory";
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_NE(result.err.find("descriptor 0 is the directory " + outside_.string()),
            std::string::npos)
      << result.err;
}

// Control: a file the policy lets the command write anyway is handed in as
// it is (a regular file, seekable), not relayed.
TEST_P(DescriptorsTest, FileTheCommandMayWriteIsPassedAsItIs) {
  const fs::path input = workspace_ / "input";
  write_file(input, "data\n");
  give_to_caller(input);
  Launch launch;
  launch.in = input;
  const auto result = run_as_caller(
      {"/bin/sh", "-c", "if test -f /proc/self/fd/0; then echo regular; else echo relayed; fi"}, {},
      launch);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "regular\n");
}

HOLDFAST_ESCAPE_SUITE(DescriptorsTest);

}  // namespace
}  // namespace holdfast::run::testing
