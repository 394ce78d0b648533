// The mount table as a value: parse_mountinfo on exact texts, and the rules
// for mounts below bound paths (submounts.hpp) on tables written by hand.
#include "launcher/sandbox/mount_table.hpp"

#include <gtest/gtest.h>
#include <sys/sysmacros.h>

#include "fake_facts.hpp"
#include "launcher/sandbox/mount_plan.hpp"
#include "launcher/sandbox/resolve.hpp"
#include "launcher/sandbox/submounts.hpp"

namespace holdfast::sandbox {
namespace {

using testing::FakeHost;
using testing::split;

TEST(ParseMountinfo, ReadsEveryField) {
  const auto table = parse_mountinfo(
      "26 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard\n"
      "36 26 0:20 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
      "40 26 254:0 /home/u/.ssh /code/keys ro,relatime master:1 propagate_from:2 - ext4 "
      "/dev/vda rw\n");
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table[0], (MountEntry{26, 1, makedev(254, 0), "/", "/", false, "ext4", "/dev/vda"}));
  EXPECT_EQ(table[1], (MountEntry{36, 26, makedev(0, 20), "/", "/proc", false, "proc", "proc"}));
  EXPECT_EQ(table[2], (MountEntry{40, 26, makedev(254, 0), "/home/u/.ssh", "/code/keys", true,
                                  "ext4", "/dev/vda"}));
}

TEST(ParseMountinfo, UnescapesPaths) {
  const auto table = parse_mountinfo(
      "50 26 0:44 /a\\040b /code/with\\040space\\011tab\\134slash rw - tmpfs my\\040fs rw\n");
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table[0].root, "/a b");
  EXPECT_EQ(table[0].mount_point, "/code/with space\ttab\\slash");
  EXPECT_EQ(table[0].source, "my fs");
}

TEST(ParseMountinfo, ReadOnlyIsTheMountsOwnOption) {
  // "ro" among the super options (after " - ") says nothing of the mount.
  const auto table = parse_mountinfo("50 26 0:44 / /x rw,relatime - tmpfs tmpfs ro,size=4k\n");
  ASSERT_EQ(table.size(), 1u);
  EXPECT_FALSE(table[0].read_only);
  EXPECT_TRUE(parse_mountinfo("50 26 0:44 / /x nosuid,ro - tmpfs t rw\n")[0].read_only);
}

TEST(ParseMountinfo, RefusesWhatIsNotMountinfo) {
  for (const char* text :
       {"x 1 0:1 / / rw - ext4 a rw\n", "1 1 01 / / rw - ext4 a rw\n",
        "1 1 0:1 / / rw shared:1 ext4 a rw\n", "1 1 0:1 /\n", "1 1 0:1 / / rw -\n"}) {
    EXPECT_THROW(parse_mountinfo(text), MountTableError) << text;
  }
  EXPECT_TRUE(parse_mountinfo("").empty());
}

TEST(ParseMountinfo, ThisProcessesTableParses) {
  const auto table = parse_mountinfo(read_mountinfo("self"));
  ASSERT_FALSE(table.empty());
  EXPECT_TRUE(std::any_of(table.begin(), table.end(),
                          [](const MountEntry& m) { return m.mount_point == "/"; }));
}

TEST(KernelInterfaces, AreNamedAndTheHostsSysfsIsNot) {
  for (const char* type : {"proc", "sysfs", "devtmpfs", "debugfs", "tracefs", "securityfs",
                           "configfs", "bpf", "cgroup", "cgroup2", "fusectl", "binfmt_misc",
                           "efivarfs", "pstore", "autofs", "nsfs", "devpts", "mqueue"}) {
    EXPECT_TRUE(is_kernel_interface(type)) << type;
  }
  for (const char* type : {"ext4", "tmpfs", "xfs", "btrfs", "overlay", "fuse.sshfs", "nfs4"}) {
    EXPECT_FALSE(is_kernel_interface(type)) << type;
  }
  EXPECT_TRUE(is_system_sysfs({1, 1, 0, "/", "/sys", false, "sysfs", "sysfs"}));
  EXPECT_TRUE(is_system_sysfs({1, 1, 0, "/", "/sys/fs/cgroup/cpu", false, "cgroup", "c"}));
  EXPECT_FALSE(is_system_sysfs({1, 1, 0, "/", "/code/chroot/sys", false, "sysfs", "sysfs"}));
  EXPECT_FALSE(is_system_sysfs({1, 1, 0, "/", "/sys/kernel/debug", false, "debugfs", "d"}));
}

// The host of the submount tests: / on 254:0, /home on 254:1 (root "/"),
// and /code the workspace on /, with what each test mounts below it.
const dev_t kRootDev = makedev(254, 0);
const dev_t kHomeDev = makedev(254, 1);

MountTable host_table(std::vector<MountEntry> extra) {
  MountTable table = {{1, 0, kRootDev, "/", "/", false, "ext4", "/dev/vda"},
                      {2, 1, makedev(0, 20), "/", "/proc", false, "proc", "proc"},
                      {3, 1, makedev(0, 21), "/", "/sys", false, "sysfs", "sysfs"},
                      {4, 3, makedev(0, 22), "/", "/sys/kernel/debug", false, "debugfs", "d"},
                      {5, 1, makedev(0, 6), "/", "/dev", false, "devtmpfs", "udev"},
                      {6, 1, kHomeDev, "/", "/home", false, "ext4", "/dev/vdb"}};
  table.insert(table.end(), extra.begin(), extra.end());
  return table;
}

FakeHost submount_host(std::vector<MountEntry> extra) {
  FakeHost host("/code", "/code");
  host.dir("/code").missing("/code/.git", "/code").missing("/code/.holdfast", "/code");
  host.dir("/home/u/.ssh").dir("/sys/kernel/debug");
  host.facts().mounts = host_table(std::move(extra));
  return host;
}

std::vector<Rule> implicit(const std::vector<Rule>& rules, RuleSource source) {
  std::vector<Rule> out;
  for (const auto& rule : rules) {
    if (rule.source == source) out.push_back(rule);
  }
  return out;
}

const Policy kPolicy =
    split({{":root", Access::read}, {":workspace", Access::write}, {"/home/u/.ssh", Access::deny}});

TEST(Submounts, AChrootsKernelInterfacesAreDeniedAndItsEtcBindIsReadOnly) {
  FakeHost host = submount_host(
      {{20, 1, makedev(0, 30), "/", "/code/chroot/proc", false, "proc", "p"},
       {21, 1, makedev(0, 31), "/", "/code/chroot/sys", false, "sysfs", "s"},
       {22, 21, makedev(0, 32), "/", "/code/chroot/sys/fs/cgroup", false, "cgroup2", "c"},
       {23, 1, kRootDev, "/etc", "/code/chroot/etc", false, "ext4", "v"}});
  host.dir("/code/chroot/proc").dir("/code/chroot/sys").dir("/code/chroot/etc");
  const auto rules = build_rules(kPolicy, host.facts());
  EXPECT_EQ(
      implicit(rules, RuleSource::kernel_mount),
      (std::vector<Rule>{
          {"/sys/kernel/debug", Access::deny, RuleSource::kernel_mount, "debugfs", Kind::directory},
          {"/code/chroot/proc", Access::deny, RuleSource::kernel_mount, "proc", Kind::directory},
          {"/code/chroot/sys", Access::deny, RuleSource::kernel_mount, "sysfs", Kind::directory}}))
      << "the chroot's cgroup below its sys is hidden by the mask; the host's own /sys stays "
         "(read-only), its debugfs does not";
  EXPECT_EQ(implicit(rules, RuleSource::submount),
            (std::vector<Rule>{{"/code/chroot/etc", Access::read, RuleSource::submount, "ext4",
                                Kind::directory}}));
}

TEST(Submounts, TheHostsDebugfsBelowAReadOnlyRootIsMasked) {
  FakeHost host = submount_host({});
  const auto rules =
      build_rules(split({{":root", Access::read}, {":workspace", Access::write}}), host.facts());
  EXPECT_EQ(implicit(rules, RuleSource::kernel_mount),
            (std::vector<Rule>{{"/sys/kernel/debug", Access::deny, RuleSource::kernel_mount,
                                "debugfs", Kind::directory}}));
  EXPECT_TRUE(implicit(rules, RuleSource::submount).empty()) << "/sys and /home stay read-only";
}

TEST(Submounts, AMountBelowAWritablePathIsWritableOnlyWhenThePolicyNamesIt) {
  FakeHost host = submount_host({{20, 1, makedev(0, 40), "/", "/code/cache", false, "tmpfs", "t"},
                                 {21, 1, makedev(0, 41), "/", "/code/data", false, "tmpfs", "t"}});
  host.dir("/code/cache").dir("/code/data").missing("/code/data/.git", "/code/data");
  host.missing("/code/data/.holdfast", "/code/data");
  const auto rules = build_rules(
      split(
          {{":root", Access::read}, {":workspace", Access::write}, {"/code/data", Access::write}}),
      host.facts());
  EXPECT_EQ(implicit(rules, RuleSource::submount),
            (std::vector<Rule>{
                {"/code/cache", Access::read, RuleSource::submount, "tmpfs", Kind::directory}}));
  EXPECT_EQ(resolve(rules, "/code/data/x").access, Access::write);
}

// The host's cgroup hierarchy below a writable root: the recursive bind of
// / carried /sys/fs/cgroup with its own writable flags. (A launch cannot
// make / writable any more, as root or as a user, so this is held here;
// tests/escape_mounts held it in a real launch while one could.)
TEST(Submounts, TheHostsCgroupsStayReadOnlyBelowAWritableRoot) {
  FakeHost host =
      submount_host({{7, 3, makedev(0, 23), "/", "/sys/fs/cgroup", false, "cgroup2", "cgroup2"}});
  host.dir("/sys").dir("/sys/fs/cgroup").dir("/home").missing("/.git", "/");
  host.missing("/.holdfast", "/");
  const auto rules = build_rules(split({{":root", Access::write}}), host.facts());
  EXPECT_EQ(resolve(rules, "/sys/fs/cgroup/mine/cgroup.procs").access, Access::read);
  EXPECT_EQ(resolve(rules, "/sys/fs/cgroup").access, Access::read);
  EXPECT_EQ(resolve(rules, "/etc/x").access, Access::write) << "the control: / is writable";
}

TEST(Submounts, ABindOfADeniedDirectoryIsDeniedWhereverItShows) {
  // ~/.ssh bound at /code/keys, and the whole home at /code/h.
  FakeHost host = submount_host({{20, 1, kHomeDev, "/u/.ssh", "/code/keys", false, "ext4", "v"},
                                 {21, 1, kHomeDev, "/u", "/code/h", false, "ext4", "v"}});
  host.dir("/code/keys").dir("/code/h");
  const auto rules = build_rules(kPolicy, host.facts());
  EXPECT_EQ(implicit(rules, RuleSource::denied_alias),
            (std::vector<Rule>{{"/code/keys", Access::deny, RuleSource::denied_alias,
                                "/home/u/.ssh", Kind::directory},
                               {"/code/h/.ssh", Access::deny, RuleSource::denied_alias,
                                "/home/u/.ssh", Kind::directory}}));
  EXPECT_EQ(implicit(rules, RuleSource::submount),
            (std::vector<Rule>{
                {"/code/h", Access::read, RuleSource::submount, "ext4", Kind::directory}}));
  // The mounts: /code/h read-only, then its .ssh and the keys masked.
  const MountPlan plan = plan_mounts(resolve_policy(kPolicy, host.facts()), host.facts());
  const auto at = [&](const std::string& path) {
    std::vector<MountOp::Kind> kinds;
    for (const auto& op : plan.ops) {
      if (op.path == path) kinds.push_back(op.kind);
    }
    return kinds;
  };
  using K = MountOp::Kind;
  EXPECT_EQ(at("/code/keys"), (std::vector<K>{K::tmpfs, K::remount_ro}));
  EXPECT_EQ(at("/code/h"), (std::vector<K>{K::ro_bind}));
  EXPECT_EQ(at("/code/h/.ssh"), (std::vector<K>{K::tmpfs, K::remount_ro}));
}

TEST(Submounts, ADeniedPathReachedThroughABindIsDeniedAtItsOtherPlace) {
  // /mnt/home is the home's filesystem bound again; the policy denies
  // /mnt/home/u/.ssh, which is also /home/u/.ssh.
  FakeHost host = submount_host({{20, 1, kHomeDev, "/", "/mnt/home", false, "ext4", "v"}});
  host.dir("/mnt/home/u/.ssh");
  const auto rules = build_rules(split({{":root", Access::read},
                                        {":workspace", Access::write},
                                        {"/mnt/home/u/.ssh", Access::deny}}),
                                 host.facts());
  EXPECT_EQ(implicit(rules, RuleSource::denied_alias),
            (std::vector<Rule>{{"/home/u/.ssh", Access::deny, RuleSource::denied_alias,
                                "/mnt/home/u/.ssh", Kind::directory}}));
}

TEST(Submounts, APathReopenedBelowADenyIsNoAlias) {
  // The workspace below the denied home is the workspace, not an alias.
  FakeHost host("/home/u/code", "/home/u/code");
  host.dir("/home/u")
      .dir("/home/u/code")
      .missing("/home/u/code/.git", "/home/u/code")
      .missing("/home/u/code/.holdfast", "/home/u/code")
      .dir("/sys/kernel/debug");
  host.facts().mounts = host_table({});
  const auto rules = build_rules(
      split({{":root", Access::read}, {":workspace", Access::write}, {"/home/u", Access::deny}}),
      host.facts());
  EXPECT_TRUE(implicit(rules, RuleSource::denied_alias).empty());
}

TEST(Submounts, MountsUnderProcDevAndDeniedPathsAreNotShown) {
  FakeHost host = submount_host(
      {{20, 2, makedev(0, 50), "/", "/proc/sys/fs/binfmt_misc", false, "binfmt_misc", "b"},
       {21, 6, makedev(0, 51), "/", "/home/u/.ssh/agent", false, "tmpfs", "t"}});
  const auto rules = build_rules(kPolicy, host.facts());
  for (const auto& rule : rules) {
    EXPECT_NE(rule.path, "/proc/sys/fs/binfmt_misc");
    EXPECT_NE(rule.path, "/home/u/.ssh/agent");
  }
}

TEST(Submounts, OnlyTheTopmostMountAtAPathCounts) {
  // A tmpfs mounted over the chroot's proc: the proc below is out of reach.
  FakeHost host = submount_host({{20, 1, makedev(0, 30), "/", "/code/p", false, "proc", "p"},
                                 {21, 20, makedev(0, 31), "/", "/code/p", false, "tmpfs", "t"}});
  host.dir("/code/p");
  const auto rules = build_rules(kPolicy, host.facts());
  EXPECT_TRUE(implicit(rules, RuleSource::kernel_mount).size() == 1u &&
              implicit(rules, RuleSource::kernel_mount)[0].path == "/sys/kernel/debug");
  EXPECT_EQ(implicit(rules, RuleSource::submount),
            (std::vector<Rule>{
                {"/code/p", Access::read, RuleSource::submount, "tmpfs", Kind::directory}}));
}

TEST(Submounts, ProbedPathsCoverWhatTheRulesAsk) {
  const MountTable table =
      host_table({{20, 1, makedev(0, 30), "/", "/code/chroot/proc", false, "proc", "p"},
                  {21, 1, makedev(0, 40), "/", "/code/cache", false, "tmpfs", "t"},
                  {22, 1, makedev(0, 41), "/", "/var/cache", false, "tmpfs", "t"},
                  {23, 1, kHomeDev, "/u", "/code/h", false, "ext4", "v"}});
  const auto paths = submount_paths_to_probe(
      table, {{"/", Access::read}, {"/code", Access::write}, {"/home/u/.ssh", Access::deny}},
      {"/home/u/.ssh", "/tmp"});
  EXPECT_EQ(paths, (std::vector<std::string>{"/code/cache", "/code/h", "/sys/kernel/debug",
                                             "/code/chroot/proc", "/code/h/.ssh"}));
}

TEST(Submounts, MountsBelowFollowTheTree) {
  const MountTable table =
      host_table({{20, 1, makedev(0, 40), "/", "/code/a", false, "tmpfs", "t"},
                  {21, 20, makedev(0, 41), "/", "/code/a/b", false, "tmpfs", "t"},
                  {22, 1, makedev(0, 42), "/", "/other", false, "tmpfs", "t"}});
  const auto below = mounts_below(table, "/code");
  ASSERT_EQ(below.size(), 2u);
  EXPECT_EQ(below[0]->mount_point, "/code/a");
  EXPECT_EQ(below[1]->mount_point, "/code/a/b");
  EXPECT_EQ(filesystem_path(table, "/home/u/x"), (FilesystemPath{kHomeDev, "/u/x"}));
  EXPECT_EQ(filesystem_path(table, "/code/a/b/c"), (FilesystemPath{makedev(0, 41), "/c"}));
}

}  // namespace
}  // namespace holdfast::sandbox

namespace holdfast::sandbox {
namespace {

TEST(UnexpectedMount, TheSandboxMayHoldOnlyPlannedMountsAndTheHostMountsItsBindsCarry) {
  FakeHost host = submount_host({{20, 1, makedev(0, 40), "/", "/code/cache", false, "tmpfs", "t"}});
  host.dir("/code/cache");
  const MountPlan plan = plan_mounts(resolve_policy(kPolicy, host.facts()), host.facts());
  EXPECT_EQ(plan.mount_points, (std::vector<std::string>{"/code", "/code/.git", "/code/.holdfast",
                                                         "/code/cache", "/home", "/home/u/.ssh",
                                                         "/sys", "/sys/kernel/debug", "/tmp"}));
  MountTable sandbox = {{60, 59, kRootDev, "/", "/", true, "ext4", "v"},
                        {61, 60, makedev(0, 20), "/", "/proc", true, "proc", "p"},
                        {62, 60, makedev(0, 70), "/", "/dev", true, "tmpfs", "t"},
                        {63, 62, makedev(0, 71), "/", "/dev/shm", false, "tmpfs", "t"},
                        {64, 60, makedev(0, 21), "/", "/sys", true, "sysfs", "s"},
                        {65, 64, makedev(0, 72), "/", "/sys/kernel/debug", true, "tmpfs", "t"},
                        {66, 60, kRootDev, "/code", "/code", false, "ext4", "v"},
                        {67, 66, makedev(0, 40), "/", "/code/cache", true, "tmpfs", "t"},
                        {68, 66, makedev(0, 73), "/", "/code/.git", true, "tmpfs", "t"}};
  EXPECT_EQ(unexpected_mount(plan, sandbox), "");
  sandbox.push_back({69, 66, makedev(0, 74), "/", "/code/later", false, "tmpfs", "t"});
  EXPECT_EQ(unexpected_mount(plan, sandbox),
            "/code/later: a mount (tmpfs) that the launch did not plan is in the sandbox; it was "
            "mounted on the host while the sandbox was built, or bubblewrap was led to mount at "
            "a moved path");
  ASSERT_NE(find_unexpected_mount(plan, sandbox), nullptr);
  EXPECT_EQ(find_unexpected_mount(plan, sandbox)->id, 69);
}

}  // namespace
}  // namespace holdfast::sandbox
