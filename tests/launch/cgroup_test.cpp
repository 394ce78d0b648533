// The pure parts of the per-launch cgroup: the bounds a policy asks for,
// /proc/PID/cgroup, and the control files written for each version.
#include "launcher/run/cgroup.hpp"

#include <gtest/gtest.h>

namespace holdfast::launcher::cgroup {
namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

TEST(CgroupBounds, DefaultsAreTheBuiltInTasksAndHalfOfTheHostsMemory) {
  const Bounds bounds = bounds_for(sandbox::Limits{}, 24 * 1024 * kMiB);
  EXPECT_EQ(bounds.tasks, 4096u);
  EXPECT_EQ(bounds.memory_bytes, 12 * 1024 * kMiB);
  EXPECT_FALSE(operator_set(sandbox::Limits{}));
}

TEST(CgroupBounds, TheOperatorsLimitsReplaceTheDefaults) {
  sandbox::Limits limits;
  limits.processes = 64;
  limits.memory_mib = 256;
  EXPECT_EQ(bounds_for(limits, 24 * 1024 * kMiB), (Bounds{64, 256 * kMiB}));
  EXPECT_TRUE(operator_set(limits));
  sandbox::Limits memory_only;
  memory_only.memory_mib = 1;
  EXPECT_TRUE(operator_set(memory_only));
  // The CPU and tmpfs limits are not the cgroup's business.
  sandbox::Limits other;
  other.cpu_seconds = 10;
  other.tmpfs_mib = 5;
  EXPECT_FALSE(operator_set(other));
}

TEST(CgroupBounds, AnUnknownHostMemoryLeavesMemoryUnboundedByDefault) {
  EXPECT_EQ(bounds_for(sandbox::Limits{}, 0).memory_bytes, std::nullopt);
}

TEST(ProcCgroup, ParsesV1AndV2Lines) {
  const auto lines = parse_proc_cgroup(
      "12:pids:/user.slice/user-1000.slice\n"
      "4:memory:/process_api/d0\n"
      "2:cpu,cpuacct:/\n"
      "1:name=systemd:/init.scope\n"
      "0::/user.slice/user-1000.slice/session-2.scope\n"
      "garbage line\n");
  EXPECT_EQ(lines, (std::vector<Membership>{{"pids", "/user.slice/user-1000.slice"},
                                            {"memory", "/process_api/d0"},
                                            {"cpu,cpuacct", "/"},
                                            {"name=systemd", "/init.scope"},
                                            {"", "/user.slice/user-1000.slice/session-2.scope"}}));
}

TEST(ControlWrites, V2WritesPidsMemoryAndNoSwap) {
  EXPECT_EQ(
      control_writes(Version::v2, "", Bounds{4096, 256 * kMiB}),
      (std::vector<ControlWrite>{
          {"pids.max", "4096"}, {"memory.max", "268435456"}, {"memory.swap.max", "0", true}}));
}

TEST(ControlWrites, V1WritesEachControllersOwnFiles) {
  const Bounds bounds{64, 256 * kMiB};
  EXPECT_EQ(control_writes(Version::v1, "pids", bounds),
            (std::vector<ControlWrite>{{"pids.max", "64"}}));
  EXPECT_EQ(control_writes(Version::v1, "memory", bounds),
            (std::vector<ControlWrite>{{"memory.limit_in_bytes", "268435456"},
                                       {"memory.memsw.limit_in_bytes", "268435456", true}}));
}

TEST(ControlWrites, AnUnboundedResourceWritesNothing) {
  EXPECT_TRUE(control_writes(Version::v2, "", Bounds{}).empty());
  EXPECT_EQ(control_writes(Version::v2, "", Bounds{7, std::nullopt}),
            (std::vector<ControlWrite>{{"pids.max", "7"}}));
}

TEST(CgroupDescribe, SaysWhereOrWhyNot) {
  Placement v1;
  v1.version = Version::v1;
  v1.hierarchies = {{"pids", "/sys/fs/cgroup/pids"}, {"memory", "/sys/fs/cgroup/memory/a"}};
  EXPECT_EQ(describe(Bounds{4096, 2 * 1024 * kMiB}, v1, false),
            "processes and threads at most 4096, memory at most 2 GiB (anonymous memory, tmpfs "
            "and /dev/shm files, memfds) for the whole sandbox, in a cgroup (v1) made for each "
            "launch under /sys/fs/cgroup/pids and /sys/fs/cgroup/memory/a");
  Placement none;
  none.unavailable = "no cgroup here";
  EXPECT_EQ(describe(Bounds{64, std::nullopt}, none, true),
            "processes and threads at most 64 for the whole sandbox: NOT enforced on this host, "
            "because no cgroup here (an operator set them, so launches are refused)");
  EXPECT_EQ(describe(Bounds{64, 300 * kMiB}, none, false),
            "processes and threads at most 64, memory at most 300 MiB (anonymous memory, tmpfs "
            "and /dev/shm files, memfds) for the whole sandbox: NOT enforced on this host, because "
            "no cgroup here (these are the built-in defaults, so launches go ahead)");
}

}  // namespace
}  // namespace holdfast::launcher::cgroup

namespace holdfast::launcher::cgroup {
namespace {

TEST(CgroupKeyedFiles, ReadsTheOomKillCountAndNotItsNeighbours) {
  EXPECT_EQ(keyed_value("oom_kill_disable 1\nunder_oom 0\noom_kill 3\n", "oom_kill"), 3u);
  EXPECT_EQ(keyed_value("low 0\nhigh 0\nmax 7\noom 2\noom_kill 2\n", "oom_kill"), 2u);
  EXPECT_EQ(keyed_value("oom_kill_disable 1\n", "oom_kill"), 0u);
  EXPECT_EQ(keyed_value("", "oom_kill"), 0u);
}

}  // namespace
}  // namespace holdfast::launcher::cgroup
