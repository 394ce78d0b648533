// Mounts made on the host after the sandbox was built. bubblewrap makes its
// namespace a recursive slave of the host's, so where the host's mounts are
// shared (systemd makes / shared) a later host mount propagates in: a tmpfs
// mounted below the workspace was writable inside, a home mounted over the
// one holding a denied ~/.ssh showed the key, a devtmpfs showed tty1. Each
// test makes its own shared parent (a tmpfs it mounts and makes shared),
// holds the command until it has mounted (the command says it is up on a
// FIFO and waits for a line on another), and launches as root and as uid
// 65534. The mounts are the host's, made by the test as root.
#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <functional>

#include "escape_support.hpp"
#include "host_mount.hpp"
#include "tests/support/trusted_dir.hpp"

namespace holdfast::run::testing {
namespace {

class PropagationTest : public EscapeTest {
 protected:
  void SetUp() override {
    EscapeTest::SetUp();
    if (IsSkipped()) return;
    shared_.emplace("tmpfs", base_ / "shared", "tmpfs", 0, "mode=0755");
    ASSERT_TRUE(shared_->mounted());
    ASSERT_EQ(::mount(nullptr, (base_ / "shared").c_str(), nullptr, MS_SHARED, nullptr), 0);
    ws_ = base_ / "shared" / "ws";
    fs::create_directories(ws_);
    own(ws_);
  }

  void TearDown() override {
    // Everything mounted below the shared parent goes with it.
    if (shared_) ::umount2((base_ / "shared").c_str(), MNT_DETACH);
    shared_.reset();
    EscapeTest::TearDown();
  }

  // `holdfast run` of `sh -c script` (with `arguments` from $0) in the
  // workspace, as the caller.
  Started start_in_workspace(const std::string& script,
                             const std::vector<std::string>& arguments = {}) {
    Launch launch;
    launch.cwd = ws_;
    std::vector<std::string> args = {"run",     "--workspace", ws_.string(), "--",
                                     "/bin/sh", "-c",          script};
    args.insert(args.end(), arguments.begin(), arguments.end());
    return start(args, as_caller(launch));
  }

  // The command: say "up" on READY, wait for a line on GO, then `then`
  // (with `argument` as $3).
  Started start_waiting(const std::string& then, const Fifo& ready, const Gate& go,
                        const std::string& argument = "") {
    return start_in_workspace("echo up > \"$1\"; read go < \"$2\"; " + then,
                              {"sh", ready.path().string(), go.path().string(), argument});
  }

  // The bubblewrap the system scope names (security.bubblewrap, in a
  // directory only root can change) becomes a wrapper that counts its
  // starts in the file it returns and, the first time, says "up" on `ready`
  // and waits for a line on `go` before it execs the real bubblewrap.
  fs::path use_waiting_bubblewrap(const Fifo& ready, const Gate& go) {
    const fs::path starts = base_ / "wrapper.starts";
    write_file(starts, "");
    ::chmod(starts.c_str(), 0666);
    trusted_.emplace();
    const fs::path wrapper = trusted_->program(
        "bwrap-wait", "#!/bin/sh\necho start >> '" + starts.string() + "'\n" +
                          "if [ \"$(wc -l < '" + starts.string() + "')\" = 1 ]; then\n" +
                          "  echo up > '" + ready.path().string() + "'\n  read go < '" +
                          go.path().string() + "'\nfi\nexec '" + kRealBwrap + "' \"$@\"\n");
    write_settings(system_dir_,
                   nlohmann::json{{"security", {{"bubblewrap", wrapper.string()}}}}.dump());
    return starts;
  }

  // Starts `echo ran` in the workspace with the waiting bubblewrap, makes
  // `change` on the host while bubblewrap waits (whether or not it came up,
  // so that what the change removes goes in any case), lets it go on, and
  // expects the launch to have been planned again and the command to run.
  void expect_planned_again_after(const std::function<void()>& change) {
    Fifo ready(base_ / "wrapper.ready");
    Gate go(base_ / "wrapper.go");
    ASSERT_TRUE(ready.fd() >= 0 && go.valid());
    const fs::path starts = use_waiting_bubblewrap(ready, go);
    const auto started = start_in_workspace("echo ran");
    std::string line;
    const bool up = ready.read_line_unless_exited(started.pid, line);
    change();
    ASSERT_TRUE(up) << wait(started).err;
    go.open();
    const auto result = wait(started);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, "ran\n");
    EXPECT_TRUE(read_file(starts).starts_with("start\nstart\n"))
        << "the launch was not planned again: " << read_file(starts);
    EXPECT_NE(result.err.find("the launch was planned again"), std::string::npos) << result.err;
  }

  std::optional<HostMount> shared_;
  std::optional<holdfast::testing::TrustedDir> trusted_;
  fs::path ws_;
};

TEST_P(PropagationTest, AHostMountBelowTheWorkspaceAfterTheStartIsNotSeenInside) {
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}});
  fs::create_directories(ws_ / "later");
  fs::create_directories(ws_ / "devices");
  Fifo ready(ws_ / "ready");
  Gate go(ws_ / "go");
  ASSERT_TRUE(ready.fd() >= 0 && go.valid());
  const auto launch = start_waiting(
      "echo planted > later/planted; test -e devices/null && echo devices-visible; exit 0", ready,
      go);
  std::string line;
  ASSERT_TRUE(ready.read_line_unless_exited(launch.pid, line)) << wait(launch).err;

  HostMount later("tmpfs", ws_ / "later", "tmpfs", 0, "mode=0777");
  HostMount devices("devtmpfs", ws_ / "devices", "devtmpfs");
  ASSERT_TRUE(later.mounted() && devices.mounted());
  go.open();
  const auto result = wait(launch);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(fs::exists(ws_ / "later" / "planted"))
      << "a tmpfs mounted on the host after the start was writable inside";
  EXPECT_EQ(result.out, "") << "a devtmpfs mounted on the host after the start was seen inside";
}

TEST_P(PropagationTest, AHomeMountedOverADeniedDirectoryAfterTheStartDoesNotShowIt) {
  const fs::path home = base_ / "shared" / "home";
  fs::create_directories(home / ".ssh");
  own(home);
  own(home / ".ssh");
  set_policy({{"filesystem",
               {{":root", "read"}, {":workspace", "write"}, {(home / ".ssh").string(), "deny"}}},
              {"network", "closed"}});
  Fifo ready(ws_ / "ready");
  Gate go(ws_ / "go");
  ASSERT_TRUE(ready.fd() >= 0 && go.valid());
  const auto launch = start_waiting("cat \"$3\" 2>/dev/null; exit 0", ready, go,
                                    (home / ".ssh" / "id_ed25519").string());
  std::string line;
  ASSERT_TRUE(ready.read_line_unless_exited(launch.pid, line)) << wait(launch).err;
  HostMount new_home("tmpfs", home, "tmpfs", 0, "mode=0755");
  ASSERT_TRUE(new_home.mounted());
  fs::create_directories(home / ".ssh");
  write_file(home / ".ssh" / "id_ed25519", "PRIVATE KEY\n");
  go.open();
  const auto result = wait(launch);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.find("PRIVATE KEY"), std::string::npos)
      << "a home mounted after the start showed the denied ~/.ssh";
}

// A mount made on the host after holdfast read its mount table and before
// bubblewrap copied the namespace is in the sandbox without being planned:
// the start gate stops that sandbox before the command runs, and the launch
// is planned again from a fresh reading, in which the mount is below the
// writable workspace and so bound read-only. The bubblewrap the system
// scope names (security.bubblewrap, in a directory only root can change) is
// a wrapper that counts its starts and, the first time, says it is up and
// waits for the test to mount before it execs the real bubblewrap.
TEST_P(PropagationTest, AMountMadeWhileTheSandboxIsBuiltIsPlannedAgain) {
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}});
  fs::create_directories(ws_ / "sneaked");
  Fifo ready(base_ / "wrapper.ready");
  Gate go(base_ / "wrapper.go");
  ASSERT_TRUE(ready.fd() >= 0 && go.valid());
  const fs::path starts = use_waiting_bubblewrap(ready, go);
  const auto started = start_in_workspace("echo planted > sneaked/planted || exit 7");
  std::string line;
  ASSERT_TRUE(ready.read_line_unless_exited(started.pid, line)) << wait(started).err;
  HostMount sneaked("tmpfs", ws_ / "sneaked", "tmpfs", 0, "mode=0777");
  ASSERT_TRUE(sneaked.mounted());
  go.open();
  const auto result = wait(started);
  EXPECT_FALSE(fs::exists(ws_ / "sneaked" / "planted"))
      << "a mount made while the sandbox was built was writable inside";
  // At least twice: another host mount made meanwhile (the suite runs
  // other mounting tests beside this one) may stop a later build too.
  EXPECT_TRUE(read_file(starts).starts_with("start\nstart\n"))
      << "the first sandbox was not stopped and built again: " << read_file(starts);
  EXPECT_EQ(result.exit_code, 7) << "the command ran in the second sandbox, where the mount is "
                                    "read-only: "
                                 << result.err;
  EXPECT_NE(result.err.find("Read-only file system"), std::string::npos) << result.err;
}

// The other way round: a kernel-interface mount below a bound path, which
// the plan masks, is gone when bubblewrap starts (a container stopped, an
// automount expired). bubblewrap cannot make the mask's mount point on the
// read-only path and fails before anything runs; that is a neighbour's
// activity, not the policy's fault, so the launch is planned again from a
// fresh reading and the command runs.
TEST_P(PropagationTest, AMaskedMountThatGoesAwayWhileTheSandboxIsBuiltIsPlannedAgain) {
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}});
  // Below a read-only path, so that its mount point cannot be made again.
  const fs::path outside = base_ / "shared" / "ro";
  fs::create_directories(outside / "devices");
  std::optional<HostMount> devices;
  devices.emplace("devtmpfs", outside / "devices", "devtmpfs");
  ASSERT_TRUE(devices->mounted());
  expect_planned_again_after([&] {
    devices.reset();  // unmounted
    fs::remove(outside / "devices");
  });
}

// A file the plan binds (here a protected name in the writable workspace,
// bound read-only over itself) removed on the host while bubblewrap starts:
// bubblewrap cannot bind what is gone and fails before anything runs. That
// is the workspace's own activity (an editor, a build), not the policy's
// fault: the launch is planned again from what is there now.
TEST_P(PropagationTest, ABindSourceRemovedWhileTheSandboxIsBuiltIsPlannedAgain) {
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}});
  fs::create_directories(ws_ / ".vscode");
  own(ws_ / ".vscode");
  expect_planned_again_after([&] { fs::remove(ws_ / ".vscode"); });
}

// A file the plan masks (systemd's /run/initctl FIFO, masked in every
// launch) removed on the host while bubblewrap starts: bubblewrap cannot
// make the mask's file on the read-only /run. systemd removes and makes
// that FIFO again; the launch is planned again.
TEST_P(PropagationTest, AMaskedFileRemovedWhileTheSandboxIsBuiltIsPlannedAgain) {
  const fs::path initctl = "/run/initctl";
  // (The Landlock suite's initctl test makes one too, beside this one.)
  if (::mkfifo(initctl.c_str(), 0666) != 0 && errno == EEXIST) {
    GTEST_SKIP() << "this host, or a test beside this one, has a " << initctl;
  }
  ASSERT_TRUE(fs::exists(fs::symlink_status(initctl))) << std::strerror(errno);
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}});
  expect_planned_again_after([&] { fs::remove(initctl); });
}

INSTANTIATE_TEST_SUITE_P(Callers, PropagationTest, ::testing::Values(Caller::root, Caller::user),
                         caller_name);

}  // namespace
}  // namespace holdfast::run::testing
