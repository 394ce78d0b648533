// The programs holdfast executes on the way to a command: the pure
// judgement of a walk, a script's interpreter, real lookups in directories
// only root can change and in one another user could, and the exec through
// the descriptor that was judged.
#include "launcher/run/trusted_executable.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/run/bubblewrap.hpp"
#include "launcher/run/supervise.hpp"
#include "tests/support/files.hpp"
#include "tests/support/trusted_dir.hpp"

namespace holdfast::launcher {
namespace {

namespace fs = std::filesystem;
using base::PathStep;
using Result = ExecutableLookup::Result;

const PathStep kRoot{"/", 0, S_IFDIR | 0755};
const PathStep kUsr{"/usr", 0, S_IFDIR | 0755};
const PathStep kBin{"/usr/bin", 0, S_IFDIR | 0755};
const PathStep kBwrap{"/usr/bin/bwrap", 0, S_IFREG | 0755};

TEST(TrustedExecutable, RootsFileInRootsDirectoriesIsTrusted) {
  EXPECT_EQ(distrust({kRoot, kUsr, kBin, kBwrap}), std::nullopt);
}

TEST(TrustedExecutable, AnythingOthersCouldReplaceIsNot) {
  const PathStep users_file{"/usr/bin/bwrap", 1000, S_IFREG | 0755};
  const PathStep writable_file{"/usr/bin/bwrap", 0, S_IFREG | 0757};
  const PathStep users_dir{"/usr/bin", 1000, S_IFDIR | 0755};
  const PathStep group_dir{"/usr/bin", 0, S_IFDIR | 0775};
  const PathStep sticky_dir{"/usr/bin", 0, S_IFDIR | 01777};
  const PathStep users_link{"/usr/bin/bwrap", 1000, S_IFLNK | 0777};
  EXPECT_NE(distrust({kRoot, kUsr, kBin, users_file})->find("owned by uid 1000"),
            std::string::npos);
  EXPECT_NE(distrust({kRoot, kUsr, kBin, writable_file})->find("mode 0757"), std::string::npos);
  EXPECT_NE(distrust({kRoot, kUsr, users_dir, kBwrap})->find("/usr/bin is owned by uid 1000"),
            std::string::npos);
  EXPECT_TRUE(distrust({kRoot, kUsr, group_dir, kBwrap}));
  EXPECT_TRUE(distrust({kRoot, kUsr, sticky_dir, kBwrap})) << "sticky is not enough here";
  EXPECT_TRUE(distrust({kRoot, kUsr, kBin, users_link, kBwrap}));
  EXPECT_NE(distrust({kRoot, kUsr, kBin, {"/usr/bin/bwrap", 0, S_IFDIR | 0755}})
                ->find("not a regular file"),
            std::string::npos);
  EXPECT_NE(
      distrust({kRoot, kUsr, kBin, {"/usr/bin/bwrap", 0, S_IFREG | 0644}})->find("not executable"),
      std::string::npos);
  // One owner besides root may be accepted (holdfast-serve beside a
  // holdfast a user built).
  EXPECT_EQ(distrust({kRoot, kUsr, users_dir, users_file}, 1000), std::nullopt);
  EXPECT_TRUE(distrust({kRoot, kUsr, users_dir, users_file}, 1001));
}

TEST(TrustedExecutable, InterpreterOfAScript) {
  EXPECT_EQ(interpreter_of("#!/bin/sh\necho\n"), "/bin/sh");
  EXPECT_EQ(interpreter_of("#! /usr/bin/env python3\n"), "/usr/bin/env");
  EXPECT_EQ(interpreter_of("#!\n"), "");
  EXPECT_EQ(interpreter_of("\x7f"
                           "ELF..."),
            std::nullopt);
  EXPECT_EQ(interpreter_of(""), std::nullopt);
}

TEST(TrustedExecutable, TheInstalledBubblewrapIsFoundAndTrusted) {
  const ExecutableLookup found = find_trusted_executable(kDefaultBubblewrap);
  ASSERT_EQ(found.result, Result::found) << found.problem;
  EXPECT_TRUE(found.executable->fd.valid());
  EXPECT_EQ(found.executable->chain.front().path, "/");
  EXPECT_NE(found.executable->why_trusted().find("owned by root"), std::string::npos);
}

TEST(TrustedExecutable, NothingThereIsMissingNotUntrusted) {
  EXPECT_EQ(find_trusted_executable("/nonexistent/bwrap").result, Result::missing);
  const ExecutableLookup relative = find_trusted_executable("bwrap");
  EXPECT_EQ(relative.result, Result::untrusted);
  EXPECT_NE(relative.problem.find("not an absolute path"), std::string::npos);
}

TEST(TrustedExecutable, ProgramInADirectoryAnotherUserOwnsIsUntrusted) {
  const testing::TrustedDir trusted;
  const testing::TestUser other;
  const fs::path theirs = trusted.path() / "theirs";
  fs::create_directory(theirs);
  const fs::path program = trusted.program("theirs/bwrap", "#!/bin/sh\nexit 0\n");
  ASSERT_EQ(find_trusted_executable(program.string()).result, Result::found) << "control";
  ASSERT_EQ(::chown(theirs.c_str(), other.uid(), other.gid()), 0);
  const ExecutableLookup lookup = find_trusted_executable(program.string());
  EXPECT_EQ(lookup.result, Result::untrusted);
  EXPECT_NE(
      lookup.problem.find(theirs.string() + " is owned by uid " + std::to_string(other.uid())),
      std::string::npos)
      << lookup.problem;
  EXPECT_NE(lookup.remedy.find("chown root"), std::string::npos) << lookup.remedy;
}

TEST(TrustedExecutable, ScriptWhoseInterpreterIsUntrustedIsUntrusted) {
  const testing::TrustedDir trusted;
  const testing::TempDir open;  // under /tmp, sticky: no interpreter of ours lives there
  const fs::path interpreter = open / "sh";
  fs::copy_file("/bin/sh", interpreter);
  const fs::path script = trusted.program("bwrap", "#!" + interpreter.string() + "\nexit 0\n");
  const ExecutableLookup lookup = find_trusted_executable(script.string());
  EXPECT_EQ(lookup.result, Result::untrusted);
  EXPECT_NE(lookup.problem.find("interpreter is not trusted"), std::string::npos) << lookup.problem;
}

// What is executed is the file that was judged: replacing the path after
// the lookup changes nothing.
TEST(TrustedExecutable, ExecutionUsesTheDescriptorNotThePath) {
  const testing::TrustedDir trusted;
  const testing::TempDir out;
  const fs::path said = out / "said";
  const fs::path program =
      trusted.program("bwrap", "#!/bin/sh\necho judged > '" + said.string() + "'\n");
  ExecutableLookup lookup = find_trusted_executable(program.string());
  ASSERT_EQ(lookup.result, Result::found) << lookup.problem;
  // Swapped after the check, as a rename by someone who could would.
  fs::remove(program);
  trusted.program("bwrap", "#!/bin/sh\necho swapped > '" + said.string() + "'\n");
  SuperviseRequest request;
  request.bwrap_path = program.string();
  request.bwrap_fd = lookup.executable->fd.get();
  request.bwrap_is_script = lookup.executable->interpreter.has_value();
  supervise(std::move(request));
  EXPECT_EQ(testing::read_file(said), "judged\n");
}

}  // namespace
}  // namespace holdfast::launcher
