// What becomes of descriptors 0-2 (pure), and the workspace's StrictModes
// judgement (pure); the real attacks are in tests/trust.
#include "launcher/run/standard_fds.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "launcher/run/workspace_modes.hpp"

namespace holdfast::launcher {
namespace {

using Kind = StandardFd::Kind;

StandardFd fd(int number, Kind kind, std::string path = "", bool writable = false,
              ino_t inode = 0) {
  StandardFd out;
  out.number = number;
  out.kind = kind;
  out.path = std::move(path);
  out.writable_inside = writable;
  out.device = 1;
  out.inode = inode;
  return out;
}

TEST(StandardFds, PipesSocketsAndTerminalsPassAsTheyAre) {
  const auto plan = plan_standard_fds(
      {fd(0, Kind::terminal), fd(1, Kind::harmless, "pipe:[1]"), fd(2, Kind::terminal)});
  EXPECT_FALSE(plan.refusal);
  EXPECT_FALSE(plan.null_input);
  EXPECT_TRUE(plan.relay_in.empty());
  EXPECT_TRUE(plan.relay_out.empty());
}

TEST(StandardFds, ADirectoryAnywhereIsRefused) {
  for (int number = 0; number < 3; ++number) {
    std::vector<StandardFd> fds = {fd(0, Kind::harmless), fd(1, Kind::harmless),
                                   fd(2, Kind::harmless)};
    fds[static_cast<std::size_t>(number)] = fd(number, Kind::directory, "/home/u");
    const auto plan = plan_standard_fds(fds);
    ASSERT_TRUE(plan.refusal) << number;
    EXPECT_NE(
        plan.refusal->find("descriptor " + std::to_string(number) + " is the directory /home/u"),
        std::string::npos);
  }
}

TEST(StandardFds, FilesTheCommandCouldNotWriteAreRelayed) {
  const auto plan = plan_standard_fds({fd(0, Kind::reopenable, "/home/u/notes", false, 7),
                                       fd(1, Kind::reopenable, "/home/u/log", false, 8),
                                       fd(2, Kind::reopenable, "/home/u/log", false, 8)});
  EXPECT_EQ(plan.relay_in, std::vector<int>{0});
  ASSERT_EQ(plan.relay_out.size(), 1u) << "stdout and stderr on one file share one relay";
  EXPECT_EQ(plan.relay_out[0], (std::vector<int>{1, 2}));

  const auto apart =
      plan_standard_fds({fd(0, Kind::harmless), fd(1, Kind::reopenable, "/home/u/out", false, 8),
                         fd(2, Kind::reopenable, "/home/u/err", false, 9)});
  EXPECT_EQ(apart.relay_out, (std::vector<std::vector<int>>{{1}, {2}}));
}

TEST(StandardFds, FilesTheCommandMayWriteAnywayPass) {
  const auto plan =
      plan_standard_fds({fd(0, Kind::reopenable, "/ws/in", true, 7),
                         fd(1, Kind::reopenable, "/ws/log", true, 8), fd(2, Kind::harmless)});
  EXPECT_TRUE(plan.relay_in.empty());
  EXPECT_TRUE(plan.relay_out.empty());
}

TEST(StandardFds, ABackgroundTerminalGivesTheCommandNoInput) {
  StandardFd terminal = fd(0, Kind::terminal, "/dev/pts/3");
  terminal.foreground = false;
  const auto plan = plan_standard_fds({terminal, fd(1, Kind::terminal), fd(2, Kind::terminal)});
  EXPECT_TRUE(plan.null_input);
  ASSERT_EQ(plan.notices.size(), 1u);
  EXPECT_NE(plan.notices[0].find("started in the background"), std::string::npos);
  // Output to a terminal from the background is left as it is.
  EXPECT_TRUE(plan.relay_out.empty());
}

TEST(WorkspaceModes, StrictModesOfTheWorkspaceAndItsParents) {
  const base::PathStep root{"/", 0, S_IFDIR | 0755};
  const base::PathStep tmp{"/tmp", 0, S_IFDIR | 01777};
  const base::PathStep ws{"/tmp/ws", 1000, S_IFDIR | 0755};
  EXPECT_FALSE(workspace_refusal("/tmp/ws", {root, tmp, ws}, 1000));
  const base::PathStep open{"/tmp/ws", 1000, S_IFDIR | 0777};
  const auto refused = workspace_refusal("/tmp/ws", {root, tmp, open}, 1000);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->rule, "workspace-unsafe");
  EXPECT_NE(refused->message.find("/tmp/ws has mode 0777"), std::string::npos);
  EXPECT_NE(refused->remedy.find("chmod go-w /tmp/ws"), std::string::npos);
  EXPECT_NE(refused->remedy.find("security.workspaceStrictModes"), std::string::npos);
  const base::PathStep theirs{"/srv", 1001, S_IFDIR | 0755};
  const auto owner = workspace_refusal("/srv/ws", {root, theirs, ws}, 1000);
  ASSERT_TRUE(owner);
  EXPECT_NE(owner->remedy.find("chown"), std::string::npos);
  // Root's own workspace: only root and root.
  EXPECT_TRUE(workspace_refusal("/tmp/ws", {root, tmp, ws}, 0));
}

}  // namespace
}  // namespace holdfast::launcher
