// What the command leaves for the next launch (issue 20.6): a workspace it
// made writable to everyone (`chmod 0777`), where another user could then
// replace build.sh before the next launch, or a workspace below a
// directory another user owns. Checked at every launch as sshd's
// StrictModes checks a home.
#include <sys/stat.h>

#include "escape_support.hpp"
#include "tests/support/trusted_dir.hpp"

namespace holdfast::run::testing {
namespace {

class WorkspaceModesTest : public EscapeTest {
 protected:
  std::vector<std::string> marker_command() const { return {"/bin/sh", "-c", "echo ran > ran"}; }
};

TEST_P(WorkspaceModesTest, WorkspaceTheCommandMadeWorldWritableIsRefusedNextTime) {
  const auto first = run_as_caller({"/bin/chmod", "0777", "."});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(fs::status(workspace_).permissions(), fs::perms(0777));

  const auto next = run_as_caller(marker_command());
  EXPECT_EQ(next.exit_code, 125) << next.err;
  EXPECT_NE(next.err.find("refused [workspace-unsafe]: " + workspace_.string()), std::string::npos)
      << next.err;
  EXPECT_NE(next.err.find("has mode 0777"), std::string::npos) << next.err;
  EXPECT_NE(next.err.find("chmod go-w " + workspace_.string()), std::string::npos) << next.err;
  EXPECT_FALSE(fs::exists(workspace_ / "ran"));

  // An operator may relax it, and then it runs.
  write_settings(system_dir_, R"({"security": {"workspaceStrictModes": false}})");
  const auto relaxed = run_as_caller(marker_command());
  EXPECT_EQ(relaxed.exit_code, 0) << relaxed.err;
  EXPECT_TRUE(fs::exists(workspace_ / "ran"));
}

// A directory above the workspace that another user owns: that user can
// rename the workspace away and put another in its place.
TEST_P(WorkspaceModesTest, ParentOwnedByAnotherUserIsRefused) {
  const holdfast::testing::TestUser other;
  const fs::path theirs = base_ / "theirs";
  const fs::path ws = theirs / "ws";
  fs::create_directories(ws);
  ASSERT_EQ(::chown(theirs.c_str(), other.uid(), other.gid()), 0);
  give_to_caller(ws);
  Launch launch;
  launch.cwd = ws;
  const auto result = run_as_caller(marker_command(), {}, launch);
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_NE(result.err.find(theirs.string() + " is owned by uid " + std::to_string(other.uid())),
            std::string::npos)
      << result.err;
  EXPECT_FALSE(fs::exists(ws / "ran"));
}

// A group-writable workspace is refused too; a sticky root-owned parent
// (as /var/tmp, where these workspaces live) is not.
TEST_P(WorkspaceModesTest, GroupWritableWorkspaceIsRefused) {
  fs::permissions(workspace_, fs::perms(0775));
  const auto result = run_as_caller(marker_command());
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_NE(result.err.find("has mode 0775"), std::string::npos) << result.err;
}

HOLDFAST_ESCAPE_SUITE(WorkspaceModesTest);

}  // namespace
}  // namespace holdfast::run::testing
