// holdfast's state directory (issues 20.6, 28.2): its launch records carry
// every launch's workspace and arguments, so it is hidden inside, not only
// read-only; and it is used only when it is the caller's own and private.
#include <sys/stat.h>

#include "escape_support.hpp"
#include "tests/support/trusted_dir.hpp"

namespace holdfast::run::testing {
namespace {

class StateDirTest : public EscapeTest {
 protected:
  fs::path holdfast_state() const { return state_dir_ / "holdfast"; }
};

// A launch in another project passed a token as an argument; a confined
// command read it from launches.jsonl.
TEST_P(StateDirTest, LaunchRecordsOfOtherLaunchesAreUnreadableInside) {
  ASSERT_EQ(run_as_caller({"/bin/true", "TOKEN-other-project"}).exit_code, 0);
  ASSERT_NE(read_file(holdfast_state() / "launches.jsonl").find("TOKEN-other-project"),
            std::string::npos)
      << "control: the record holds the token on the host";
  const auto result = run_as_caller({"/bin/sh", "-c", "cat \"$1\"/launches.jsonl; ls -a \"$1\"",
                                     "sh", holdfast_state().string()});
  EXPECT_EQ(result.out.find("TOKEN-other-project"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("launches.jsonl"), std::string::npos)
      << "the state directory's entries are listed inside: " << result.out;
}

// Under :home write, the state directory inside $HOME: hidden as well, so
// neither presence memory nor records can be deleted or forged.
TEST_P(StateDirTest, StateDirectoryUnderAWritableHomeIsHiddenToo) {
  set_policy({{"filesystem", {{":root", "read"}, {":home", "write"}, {":workspace", "write"}}},
              {"network", "closed"}});
  Launch launch;
  launch.unset = {"XDG_STATE_HOME"};  // the state directory: ~/.local/state/holdfast
  const fs::path state = home_ / ".local" / "state" / "holdfast";
  ASSERT_EQ(run_as_caller({"/bin/true", "first"}, {}, launch).exit_code, 0);
  ASSERT_TRUE(fs::exists(state / "launches.jsonl"));
  const auto result = run_as_caller(
      {"/bin/sh", "-c", "rm -rf \"$1\"/*; echo forged >> \"$1\"/launches.jsonl; cat \"$1\"/*", "sh",
       state.string()},
      {}, launch);
  const std::string records = read_file(state / "launches.jsonl");
  EXPECT_EQ(records.find("\nforged"), std::string::npos) << records;
  EXPECT_NE(records.find("first"), std::string::npos) << "a record was removed: " << records;
  EXPECT_EQ(result.out.find("first"), std::string::npos) << result.out;
}

TEST_P(StateDirTest, StateDirectoryOthersCanWriteIsRefused) {
  ASSERT_EQ(run_as_caller({"/bin/true"}).exit_code, 0);
  fs::permissions(holdfast_state(), fs::perms(0777));
  const auto result = run_as_caller({"/bin/sh", "-c", "echo ran > ran"});
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_NE(result.err.find("unsafe state directory " + holdfast_state().string()),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("chmod 700 " + holdfast_state().string()), std::string::npos)
      << result.err;
  EXPECT_FALSE(fs::exists(workspace_ / "ran"));
}

// Another user made the state directory first (world-writable, so that the
// victim's launches could write into it): the victim's launches appended
// their records there. Now they are refused, and say what to do.
TEST_P(StateDirTest, StateDirectoryAnotherUserMadeIsRefused) {
  const holdfast::testing::TestUser other;
  fs::create_directory(holdfast_state());
  ASSERT_EQ(::chown(holdfast_state().c_str(), other.uid(), other.gid()), 0);
  fs::permissions(holdfast_state(), fs::perms(0777));
  const auto result = run_as_caller({"/bin/true", "TOKEN"});
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_NE(result.err.find("is owned by uid " + std::to_string(other.uid())), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("HOLDFAST_STATE_DIR"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(holdfast_state() / "launches.jsonl"));
}

HOLDFAST_ESCAPE_SUITE(StateDirTest);

}  // namespace
}  // namespace holdfast::run::testing
