// The second layer's rules on host files, added by holdfast to the launch's
// ruleset (launcher/landlock/host_rules.hpp), and the helper completing
// that ruleset inside: real files, real processes, the real kernel's
// Landlock.
#include "launcher/landlock/host_rules.hpp"

#include <fcntl.h>
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

sandbox::FileId id_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return {st.st_dev, st.st_ino};
}

PathRule on_host(const fs::path& path, Rights rights) {
  PathRule rule{path.string(), rights, false, 0, {}, std::nullopt};
  rule.on_host = true;
  return rule;
}

class HostRulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    abi_ = kernel_abi(nullptr);
    if (abi_ <= 0) GTEST_SKIP() << "this kernel has no Landlock";
  }

  int abi_ = 0;
  holdfast::testing::TempDir dir_;
};

// holdfast fills the ruleset with the rules on host files (here: a split
// directory and a writable one); the helper, given that ruleset, adds only
// the system paths the command needs to start and restricts itself. The
// command reads and writes as the host's rules say: without them the split
// directory's plain file would not read and nothing would be written.
TEST_F(HostRulesTest, TheHelperCompletesTheRulesetHoldfastFilledOnTheHost) {
  const fs::path tree = dir_.path() / "tree";
  const fs::path open_dir = tree / "open";
  fs::create_directories(open_dir);
  std::ofstream(tree / "secret") << "key\n";
  std::ofstream(tree / "plain") << "text\n";

  Plan plan;
  PathRule split = on_host(tree, kSplitKeeps);
  split.split = true;
  split.entries = kRead;
  split.skip = {"open", "secret"};
  plan.rules = {split, on_host(open_dir, kWrite)};
  plan.rules.back().id = id_of(open_dir);
  const base::UniqueFd ruleset = make_ruleset(plan, abi_);
  const HostRulesResult added = add_host_rules(ruleset.get(), plan, abi_);
  EXPECT_EQ(added.moved, "");
  EXPECT_EQ(added.rules, 3u) << "the split directory, its one entry left (plain), open";

  // The helper inherits the ruleset as a descriptor (without close-on-exec).
  const base::UniqueFd inherited(::fcntl(ruleset.get(), F_DUPFD, 10));
  ASSERT_TRUE(inherited.valid());
  const std::string script = "cat " + (tree / "plain").string() + "; cat " +
                             (tree / "secret").string() +
                             " 2>/dev/null || echo secret-denied; echo x > " +
                             (open_dir / "f").string() + " && echo open-written; echo x > " +
                             (tree / "g").string() + " 2>/dev/null || echo tree-denied";
  std::vector<std::string> argv = {HOLDFAST_LANDLOCK_HELPER, "--abi", std::to_string(abi_),
                                   "--ruleset", std::to_string(inherited.get())};
  for (const char* system : {"/usr", "/bin", "/lib", "/lib64", "/etc"}) {
    argv.insert(argv.end(), {"--beneath", "xrl", system});
  }
  argv.insert(argv.end(), {"--beneath", "xwrR", "/dev/null", "--", "/bin/sh", "-c", script});
  const auto result = holdfast::testing::run_command(argv, {}, dir_.path());
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "text\nsecret-denied\nopen-written\ntree-denied\n");
  EXPECT_FALSE(fs::exists(tree / "g"));
}

// A directory the launch checked, renamed away and replaced while the
// sandbox starts: its rule would land on the stranger, so none is added
// and the launch hears which path moved.
TEST_F(HostRulesTest, APinnedDirectoryReplacedOnTheHostIsReportedAndGetsNoRule) {
  const fs::path work = dir_.path() / "work";
  fs::create_directory(work);
  Plan plan;
  plan.rules = {on_host(work, kWrite)};
  plan.rules.back().id = id_of(work);
  fs::rename(work, dir_.path() / "elsewhere");
  fs::create_directory(work);

  const base::UniqueFd ruleset = make_ruleset(plan, abi_);
  const HostRulesResult added = add_host_rules(ruleset.get(), plan, abi_);
  EXPECT_EQ(added.moved, work.string());
  EXPECT_EQ(added.rules, 0u);

  fs::remove(work);
  EXPECT_EQ(add_host_rules(ruleset.get(), plan, abi_).moved, work.string())
      << "a pinned path that is gone moved too";
}

// Rules on what the sandbox makes itself (its /dev, /proc, private /tmp)
// name no host file: the helper adds those inside.
TEST_F(HostRulesTest, RulesNotOnHostFilesAreLeftToTheHelper) {
  Plan plan;
  plan.rules = {{dir_.path().string(), kWrite, false, 0, {}, std::nullopt}};
  const base::UniqueFd ruleset = make_ruleset(plan, abi_);
  EXPECT_EQ(add_host_rules(ruleset.get(), plan, abi_).rules, 0u);
  plan.rules.front().on_host = true;
  EXPECT_EQ(add_host_rules(ruleset.get(), plan, abi_).rules, 1u);
}

}  // namespace
}  // namespace holdfast::landlock
