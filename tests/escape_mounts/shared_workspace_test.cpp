// A project directory shared by two local users (mode 1777, the sticky bit
// set). User A is uid 65534; the launching user B is root, or a second
// unprivileged user the test makes up (uid 64711: the kernel, bubblewrap
// and holdfast need no passwd entry). A can move or remove the entries A
// owns there at any time, and removing an entry detaches the mounts other
// sandboxes stand on it, so B's launches must not stand on A's entries.
#include <sys/stat.h>
#include <unistd.h>

#include "escape_support.hpp"

namespace holdfast::run::testing {
namespace {

constexpr uid_t kUserA = kNobody;
constexpr uid_t kSecondUser = 64711;

enum class Launcher { root, second_user };

class SharedWorkspaceTest : public RunTest, public ::testing::WithParamInterface<Launcher> {
 protected:
  void SetUp() override {
    RunTest::SetUp();
    ASSERT_EQ(::geteuid(), 0u) << "two users need root to set up";
    for (const uid_t uid : {kUserA, kSecondUser}) {
      if (const int error = userns_errno_as(uid); error != 0) {
        GTEST_SKIP() << "uid " << uid << " cannot create user namespaces here";
      }
    }
    shared_ = base_ / "shared";
    fs::create_directory(shared_);
    ASSERT_EQ(::chmod(shared_.c_str(), 01777), 0);
    state_b_ = base_ / "state-b";
    fs::create_directory(state_b_);
    ASSERT_EQ(::chown(state_dir_.c_str(), kUserA, kUserA), 0);  // A's state directory
    set_policy(
        {{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}});
    if (GetParam() == Launcher::second_user) {
      ASSERT_EQ(::chown(state_b_.c_str(), kSecondUser, kSecondUser), 0);
    }
  }

  // B's launch in the shared workspace.
  Launch as_b() const {
    Launch launch;
    launch.cwd = shared_;
    launch.env["XDG_STATE_HOME"] = state_b_.string();
    if (GetParam() == Launcher::second_user) launch.uid = kSecondUser;
    return launch;
  }
  // A's launch there.
  Launch as_a() const {
    Launch launch;
    launch.cwd = shared_;
    launch.uid = kUserA;
    return launch;
  }

  // Makes `path` A's.
  static void give_to_a(const fs::path& path) {
    ASSERT_EQ(::lchown(path.c_str(), kUserA, kUserA), 0) << path;
  }

  fs::path shared_;
  fs::path state_b_;
};

// The command: announce itself on READY, wait for a line on GO, then try
// to plant a git hook (which runs later as whoever commits there).
const std::string kPlantHook =
    "echo up > \"$1\"; read go < \"$2\"; "
    "mkdir -p .git/hooks 2>/dev/null && echo evil > .git/hooks/pre-commit; exit 0";

TEST_P(SharedWorkspaceTest, AnotherUsersEmptyGitIsNotStoodOn) {
  fs::create_directory(shared_ / ".git");
  give_to_a(shared_ / ".git");
  Fifo ready(shared_ / "b.ready");
  Gate go(shared_ / "b.go");
  ASSERT_TRUE(ready.fd() >= 0 && go.valid());
  const auto b = start(
      {"run", "--", "/bin/sh", "-c", kPlantHook, "sh", ready.path().string(), go.path().string()},
      as_b());
  std::string line;
  if (ready.read_line_unless_exited(b.pid, line)) {
    // B's sandbox stands on A's .git: A removes it.
    ASSERT_EQ(::rmdir((shared_ / ".git").c_str()), 0);
    go.open();
  }
  const auto result = wait(b);
  EXPECT_FALSE(fs::exists(shared_ / ".git" / "hooks" / "pre-commit"))
      << "B's command wrote a git hook after A removed the .git B's sandbox stood on";
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_NE(result.err.find("belongs to uid 65534"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("rm -r " + (shared_ / ".git").string()), std::string::npos)
      << result.err;
}

TEST_P(SharedWorkspaceTest, ACleanupOfAnotherUsersLaunchNeverDetachesThisOne) {
  // A's launch creates the missing .git mount point and waits.
  Fifo a_ready(shared_ / "a.ready");
  Gate a_go(shared_ / "a.go");
  Fifo b_ready(shared_ / "b.ready");
  Gate b_go(shared_ / "b.go");
  ASSERT_TRUE(a_ready.fd() >= 0 && a_go.valid() && b_ready.fd() >= 0 && b_go.valid());
  const auto a = start({"run", "--", "/bin/sh", "-c", "echo up > \"$1\"; read go < \"$2\"", "sh",
                        a_ready.path().string(), a_go.path().string()},
                       as_a());
  std::string line;
  ASSERT_TRUE(a_ready.read_line_unless_exited(a.pid, line)) << wait(a).err;
  ASSERT_TRUE(fs::is_directory(shared_ / ".git"));
  // B starts while A's mount point is there.
  const auto b = start({"run", "--", "/bin/sh", "-c", kPlantHook, "sh", b_ready.path().string(),
                        b_go.path().string()},
                       as_b());
  line.clear();
  const bool b_runs = b_ready.read_line_unless_exited(b.pid, line);
  // A ends and cleans up; then B attacks.
  a_go.open();
  const auto a_result = wait(a);
  EXPECT_EQ(a_result.exit_code, 0) << a_result.err;
  if (b_runs) b_go.open();
  const auto result = wait(b);
  EXPECT_FALSE(fs::exists(shared_ / ".git" / "hooks" / "pre-commit"))
      << "A's cleanup detached the mount B's sandbox stood on, and B wrote a git hook";
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_NE(result.err.find("belongs to uid 65534"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(shared_ / ".git")) << "A's cleanup left its mount point";
}

TEST_P(SharedWorkspaceTest, AnotherUsersSymlinkOnAProtectedNameIsRefusedWithWhatToDo) {
  fs::create_symlink("/nonexistent", shared_ / ".holdfast");
  give_to_a(shared_ / ".holdfast");
  const auto result = run({"/bin/true"}, {}, as_b());
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_NE(result.err.find("belongs to uid 65534"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("ask uid 65534 to remove it (rm " + (shared_ / ".holdfast").string()),
            std::string::npos)
      << result.err;
}

// What still works: B's own entries in the shared directory.
TEST_P(SharedWorkspaceTest, TheLaunchingUsersOwnEntriesAreStoodOn) {
  fs::create_directory(shared_ / ".git");
  if (GetParam() == Launcher::second_user) {
    ASSERT_EQ(::chown((shared_ / ".git").c_str(), kSecondUser, kSecondUser), 0);
  }
  const auto result = run({"/bin/sh", "-c", "echo x > .git/x"}, {}, as_b());
  EXPECT_NE(result.exit_code, 125) << result.err;
  EXPECT_FALSE(fs::exists(shared_ / ".git" / "x")) << ".git is read-only inside";
}

INSTANTIATE_TEST_SUITE_P(Launchers, SharedWorkspaceTest,
                         ::testing::Values(Launcher::root, Launcher::second_user),
                         [](const ::testing::TestParamInfo<Launcher>& info) {
                           return info.param == Launcher::root ? "BIsRoot" : "BIsUid64711";
                         });

}  // namespace
}  // namespace holdfast::run::testing
