// `holdfast run` as an unprivileged user (uid 65534): bubblewrap then needs
// unprivileged user namespaces. Where the machine does not allow them the
// test is skipped and says why.
#include <fcntl.h>
#include <grp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "run_support.hpp"

namespace holdfast::run::testing {
namespace {

class RunUnprivilegedTest : public RunTest {};

TEST_F(RunUnprivilegedTest, BasicConfinementAsUid65534) {
  ASSERT_EQ(::geteuid(), 0u) << "dropping to uid 65534 needs root";
  const int userns = userns_errno_as(kNobody);
  if (userns != 0) {
    GTEST_SKIP() << "uid 65534 cannot create user namespaces here (unshare: "
                 << (userns == 100 ? "could not drop privileges" : std::strerror(userns))
                 << "); bubblewrap needs them to run unprivileged";
  }
  // The workspace, home, state and the "outside" directory belong to 65534,
  // so that outside the sandbox 65534 could write all of them; the settings
  // stay root's.
  for (const auto& dir : {workspace_, home_, state_dir_, outside_}) {
    ASSERT_EQ(::chown(dir.c_str(), kNobody, kNobody), 0) << dir;
  }
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}});

  // Control: without the sandbox, 65534 can write outside.
  const fs::path control = outside_ / "control";
  EXPECT_EQ(
      wait_exit_code(fork_child([&] {
        if (::setgroups(0, nullptr) != 0 || ::setgid(kNobody) != 0 || ::setuid(kNobody) != 0) {
          return 100;
        }
        return ::creat(control.c_str(), 0600) >= 0 ? 0 : 1;
      })),
      0);
  EXPECT_TRUE(fs::exists(control));

  Launch launch;
  launch.uid = kNobody;
  const std::string outside_write = "write:" + (outside_ / "escaped").string();
  const std::string inside_write = "write:" + (workspace_ / "made").string();
  const auto probe = probe_run({outside_write, inside_write, "id", "unshare-user"}, launch);
  EXPECT_FALSE(probe.at(outside_write).allowed);
  EXPECT_TRUE(probe.at(inside_write).allowed) << probe.at(inside_write).errname;
  EXPECT_EQ(probe.at("id").value, "uid=65534 gid=65534");
  EXPECT_FALSE(probe.at("unshare-user").allowed);
  EXPECT_FALSE(fs::exists(outside_ / "escaped"));

  const auto shell = run({"/bin/sh", "-c", "echo hi > kept && echo x > \"$1\"; exit 0", "sh",
                          (outside_ / "escaped").string()},
                         {}, launch);
  EXPECT_EQ(shell.exit_code, 0) << shell.err;
  EXPECT_EQ(read_file(workspace_ / "kept"), "hi\n");
  EXPECT_FALSE(fs::exists(outside_ / "escaped"));
}

}  // namespace
}  // namespace holdfast::run::testing
