// When a launch whose command did not run is planned again rather than
// refused: the host replaced a file the plan looked at, or its mount table
// changed. Real files, replaced by rename as useradd replaces /etc/shadow.
#include "launcher/run/host_changed.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "launcher/sandbox/mount_table.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::launcher {
namespace host_changed_test {

namespace fs = std::filesystem;

sandbox::FileId id_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return {st.st_dev, st.st_ino};
}

// Facts as a launch gathered them: this host's mount table, and `file`
// as the plan saw it (a file one of its masks covers).
sandbox::HostFacts facts_seeing(const fs::path& file) {
  sandbox::HostFacts facts;
  facts.mounts = sandbox::parse_mountinfo(sandbox::read_mountinfo("self"));
  facts.identities[file.string()] = id_of(file);
  return facts;
}

SuperviseOutcome refused_at_the_gate() {
  SuperviseOutcome outcome;
  outcome.gate_refused = true;
  return outcome;
}

TEST(HostChangedUnder, AFileReplacedByRenameWhileTheSandboxWasBuiltPlansAgain) {
  holdfast::testing::TempDir dir;
  const fs::path shadow = dir / "shadow";
  holdfast::testing::write_file(shadow, "root:*:1::::::\n");
  const auto facts = facts_seeing(shadow);
  EXPECT_FALSE(host_changed_under(refused_at_the_gate(), true, facts));

  holdfast::testing::write_file(dir / "shadow+", "root:*:1::::::\nnew:!:2::::::\n");
  fs::rename(dir / "shadow+", shadow);
  EXPECT_TRUE(host_changed_under(refused_at_the_gate(), true, facts));
  // bubblewrap failing before the gate: the same answer.
  EXPECT_TRUE(host_changed_under(SuperviseOutcome{}, false, facts));
}

// A file a launch's plan looked at, in a directory of its own.
class HostChangedUnderFile : public ::testing::Test {
 protected:
  HostChangedUnderFile() { holdfast::testing::write_file(file_, "x"); }
  holdfast::testing::TempDir dir_;
  const fs::path file_ = dir_ / "file";
};

TEST_F(HostChangedUnderFile, AFileRemovedPlansAgain) {
  const auto facts = facts_seeing(file_);
  fs::remove(file_);
  EXPECT_TRUE(host_changed_under(SuperviseOutcome{}, false, facts));
}

TEST_F(HostChangedUnderFile, ARefusalWithTheHostUnchangedStaysARefusal) {
  const auto facts = facts_seeing(file_);
  // Written in place: the same file.
  holdfast::testing::write_file(file_, "y");
  EXPECT_FALSE(host_changed_under(refused_at_the_gate(), true, facts));
  EXPECT_FALSE(host_changed_under(SuperviseOutcome{}, false, facts));
}

TEST_F(HostChangedUnderFile, ACommandThatRanOrASandboxBuiltAsCheckedIsNeverPlannedAgain) {
  const auto facts = facts_seeing(file_);
  fs::remove(file_);
  SuperviseOutcome ran;
  ran.command_status = 1;
  EXPECT_FALSE(host_changed_under(ran, true, facts));
  SuperviseOutcome timed_out;
  timed_out.timed_out = true;
  EXPECT_FALSE(host_changed_under(timed_out, true, facts));
  // The gate opened; what failed came later.
  EXPECT_FALSE(host_changed_under(SuperviseOutcome{}, true, facts));
}

TEST_F(HostChangedUnderFile, AMountTableThatChangedPlansAgain) {
  auto facts = facts_seeing(file_);
  ASSERT_FALSE(facts.mounts.empty());
  facts.mounts.pop_back();  // the plan saw one mount fewer than there is now
  EXPECT_TRUE(host_changed_under(refused_at_the_gate(), true, facts));
}

}  // namespace host_changed_test
}  // namespace holdfast::launcher
