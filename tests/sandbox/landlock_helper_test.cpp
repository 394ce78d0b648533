// The Landlock helper as a program of its own (no sandbox around it): how it
// finds and starts the command — its own PATH search, without a C library —
// what it answers when it cannot, and that the rules it is given hold for
// the command it starts. Real processes, the real kernel's Landlock.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "launcher/landlock/second_layer.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::landlock {
namespace {

namespace fs = std::filesystem;
using holdfast::testing::CommandResult;
using holdfast::testing::run_command;

void write_text(const fs::path& path, const std::string& text, fs::perms mode) {
  std::ofstream(path) << text;
  fs::permissions(path, mode);
}

class LandlockHelperTest : public ::testing::Test {
 protected:
  // The helper with `options`, then `--`, then `command`, in `dir_`.
  CommandResult helper(const std::vector<std::string>& options,
                       const std::vector<std::string>& command,
                       const std::map<std::string, std::string>& env = {}) const {
    std::vector<std::string> argv = {HOLDFAST_LANDLOCK_HELPER};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.emplace_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    return run_command(argv, env, dir_.path());
  }

  // "--cwd DEV:INO" of `path`.
  static std::vector<std::string> cwd_option(const fs::path& path) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0);
    return {"--cwd", std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino)};
  }

  holdfast::testing::TempDir dir_;
};

TEST_F(LandlockHelperTest, ACommandNamedWithoutASlashIsFoundOnPath) {
  const fs::path bin = dir_.path() / "bin";
  fs::create_directory(bin);
  write_text(bin / "hello", "#!/bin/sh\necho found \"$@\"\n", fs::perms(0755));
  // An empty element and a directory without the program come first.
  const auto result =
      helper({"--abi", "0"}, {"hello", "a b"}, {{"PATH", ":/nonexistent:" + bin.string()}});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "found a b\n");
}

TEST_F(LandlockHelperTest, AnExitStatusIsTheCommands) {
  const auto result = helper({"--abi", "0"}, {"sh", "-c", "exit 7"});
  EXPECT_EQ(result.exit_code, 7) << result.err;
}

TEST_F(LandlockHelperTest, ACommandThatIsNotThereIs127WithTheReason) {
  const auto result = helper({"--abi", "0"}, {"holdfast-no-such-program"});
  EXPECT_EQ(result.exit_code, 127);
  EXPECT_EQ(result.err,
            "holdfast: cannot execute holdfast-no-such-program: No such file or directory\n");
}

TEST_F(LandlockHelperTest, AFileThatCannotBeExecutedIs126) {
  write_text(dir_.path() / "data", "not a program\n", fs::perms(0644));
  const auto result = helper({"--abi", "0"}, {(dir_.path() / "data").string()});
  EXPECT_EQ(result.exit_code, 126);
  EXPECT_NE(result.err.find("Permission denied"), std::string::npos) << result.err;
}

// As execvp does: a file the kernel cannot execute is read by /bin/sh.
TEST_F(LandlockHelperTest, AnExecutableWithoutAnInterpreterLineRunsInTheShell) {
  write_text(dir_.path() / "plain", "echo shell ran \"$1\"\n", fs::perms(0755));
  const auto result = helper({"--abi", "0"}, {(dir_.path() / "plain").string(), "x"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "shell ran x\n");
}

TEST_F(LandlockHelperTest, ADirectoryThatIsNotTheCheckedOneStopsTheCommand) {
  const fs::path other = dir_.path() / "other";
  fs::create_directory(other);
  auto options = cwd_option(other);
  options.insert(options.begin(), {"--abi", "0"});
  const auto result = helper(options, {"sh", "-c", "echo ran"});
  EXPECT_EQ(result.exit_code, 125);
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find("not the one the launch checked"), std::string::npos) << result.err;

  auto same = cwd_option(dir_.path());
  same.insert(same.begin(), {"--abi", "0"});
  EXPECT_EQ(helper(same, {"sh", "-c", "echo ran"}).out, "ran\n");
}

TEST_F(LandlockHelperTest, BadArgumentsStopTheCommand) {
  const auto result = helper({"--abi", "x"}, {"sh", "-c", "echo ran"});
  EXPECT_EQ(result.exit_code, 125);
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find("bad arguments"), std::string::npos) << result.err;
}

// The rules reach the command: write only beneath the granted directory,
// and a split leaves the skipped entry unreadable while its siblings read.
TEST_F(LandlockHelperTest, TheCommandKeepsTheRules) {
  const int abi = kernel_abi(nullptr);
  if (abi <= 0) GTEST_SKIP() << "this kernel has no Landlock";
  const fs::path tree = dir_.path() / "tree";
  const fs::path open_dir = tree / "open";
  fs::create_directories(open_dir);
  write_text(tree / "secret", "key\n", fs::perms(0644));
  write_text(tree / "plain", "text\n", fs::perms(0644));
  const std::string script = "cat " + (tree / "plain").string() + "; cat " +
                             (tree / "secret").string() +
                             " 2>/dev/null || echo secret-denied; echo x > " +
                             (open_dir / "f").string() + " && echo open-written; echo x > " +
                             (tree / "g").string() + " 2>/dev/null || echo tree-denied";
  const auto result = helper({"--abi",
                              std::to_string(abi),
                              "--beneath",
                              "xrl",
                              "/usr",
                              "--beneath",
                              "xrl",
                              "/bin",
                              "--beneath",
                              "xrl",
                              "/lib",
                              "--beneath",
                              "xrl",
                              "/lib64",
                              "--beneath",
                              "xrl",
                              "/etc",
                              "--beneath",
                              "xwrR",
                              "/dev/null",
                              "--split",
                              "l",
                              "xrl",
                              tree.string(),
                              "1",
                              "secret",
                              "--beneath",
                              "xwrleuR",
                              open_dir.string()},
                             {"/bin/sh", "-c", script});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "text\nsecret-denied\nopen-written\ntree-denied\n");
  EXPECT_FALSE(fs::exists(tree / "g"));
}

}  // namespace
}  // namespace holdfast::landlock
