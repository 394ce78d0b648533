// Two launches in one workspace at the same time, the everyday case for
// agents. To keep a missing .git or .holdfast from being created, a launch
// mounts an empty read-only directory there, and bubblewrap first creates
// that mount point on the host. One launch's cleanup of those mount points
// must never take away the protection of another launch still standing on
// them: removing a directory detaches every mount on it, in every mount
// namespace.
#include "escape_support.hpp"

namespace holdfast::run::testing {
namespace {

class OverlapTest : public EscapeTest {};

// The command announces itself on READY, then waits for a line on GO.
const std::string kWaitThen = "echo up > \"$1\"; read go < \"$2\"; ";

TEST_P(OverlapTest, CleanupOfOneLaunchKeepsTheProtectionOfAnOverlappingOne) {
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}});
  ASSERT_FALSE(fs::exists(workspace_ / ".git"));
  ASSERT_FALSE(fs::exists(workspace_ / ".holdfast"));
  Fifo a_ready(workspace_ / "a.ready");
  Fifo b_ready(workspace_ / "b.ready");
  Gate a_go(workspace_ / "a.go");
  Gate b_go(workspace_ / "b.go");
  ASSERT_TRUE(a_ready.fd() >= 0 && b_ready.fd() >= 0 && a_go.valid() && b_go.valid());

  // A starts first: .git and .holdfast are missing, so its bubblewrap
  // creates both mount points on the host.
  const auto a = start({"run", "--", "/bin/sh", "-c", kWaitThen + "exit 0", "sh",
                        a_ready.path().string(), a_go.path().string()},
                       as_caller());
  std::string line;
  ASSERT_TRUE(a_ready.read_line_unless_exited(a.pid, line)) << wait(a).err;
  // B starts while A runs, and stands on the same two directories.
  const std::string attack =
      "mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit; "
      "mkdir -p .holdfast; echo '{}' > .holdfast/settings.json; echo x > b.control; exit 0";
  const auto b = start({"run", "--", "/bin/sh", "-c", kWaitThen + attack, "sh",
                        b_ready.path().string(), b_go.path().string()},
                       as_caller());
  line.clear();
  ASSERT_TRUE(b_ready.read_line_unless_exited(b.pid, line)) << wait(b).err;

  // A ends (and cleans up) while B still runs; then B attacks.
  a_go.open();
  const auto a_result = wait(a);
  EXPECT_EQ(a_result.exit_code, 0) << a_result.err;
  b_go.open();
  const auto b_result = wait(b);
  EXPECT_EQ(b_result.exit_code, 0) << b_result.err;

  EXPECT_FALSE(fs::exists(workspace_ / ".git" / "hooks" / "pre-commit"))
      << "B wrote a git hook after A's cleanup";
  EXPECT_FALSE(fs::exists(workspace_ / ".holdfast" / "settings.json"))
      << "B wrote the workspace settings after A's cleanup";
  // Control: B ran its command and could write its workspace.
  EXPECT_EQ(read_file(workspace_ / "b.control"), "x\n");
  // The last launch to end removes the mount points, so the workspace is
  // left as it was.
  EXPECT_FALSE(fs::exists(workspace_ / ".git"));
  EXPECT_FALSE(fs::exists(workspace_ / ".holdfast"));
}

// Nothing else runs: the launch removes its own mount points at the end.
TEST_P(OverlapTest, ALaunchAloneRemovesTheMountPointsItsSandboxCreated) {
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}});
  const auto result = run({"/bin/sh", "-c", "test -d .git && test -d .holdfast"}, {}, as_caller());
  EXPECT_EQ(result.exit_code, 0) << result.err;  // the mount points existed inside
  EXPECT_FALSE(fs::exists(workspace_ / ".git"));
  EXPECT_FALSE(fs::exists(workspace_ / ".holdfast"));
}

INSTANTIATE_TEST_SUITE_P(Callers, OverlapTest, ::testing::Values(Caller::root, Caller::user),
                         caller_name);

}  // namespace
}  // namespace holdfast::run::testing
