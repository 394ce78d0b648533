// The policy read against a host once (resolved_policy.hpp): the entries
// expanded with their facts, the rules collapsed, and the refusals in the
// order admission finds them.
#include "launcher/sandbox/resolved_policy.hpp"

#include <gtest/gtest.h>

#include "fake_facts.hpp"
#include "launcher/sandbox/mount_plan.hpp"

namespace holdfast::sandbox {
namespace resolved_policy_test {

using testing::FakeHost;

// A host with a gitdir outside the workspace, a settings directory under a
// writable home and a denied directory reopened below.
struct Fixture {
  FakeHost host{"/code", "/code"};
  Policy policy;
  Fixture() {
    host.dir("/code").dir("/code/.holdfast").git_file("/code/.git", "/data/gitdirs/code");
    host.dir("/data/gitdirs/code").dir("/home/u").dir("/data").dir("/data/secret");
    host.dir("/data/secret/open");
    host.missing("/data/.holdfast", "/data").missing("/data/.git", "/data");
    host.missing("/home/u/.git", "/home/u").missing("/home/u/.holdfast", "/home/u");
    policy.protected_names = core_protected_names();
    policy.filesystem = {{":root", Access::read, ":root", {}},
                         {":workspace", Access::write, ":workspace", {}},
                         {"/data", Access::write, "/data", {}},
                         {"/data/secret", Access::deny, "/data/secret", {}},
                         {"/data/secret/open", Access::read, "/data/secret/open", {}},
                         {":home", Access::write, ":home", {}}};
  }
};

// Every rule's path, something inside it, beside it and above it, and
// paths no rule can hold.
std::vector<std::string> probes(const std::vector<Rule>& rules) {
  std::vector<std::string> out = {"/", "", "code", "/nowhere", "/code/"};
  for (const auto& rule : rules) {
    out.push_back(rule.path);
    out.push_back(rule.path + "/inside/deeper");
    out.push_back(rule.path + "2");
    out.push_back(rule.path.substr(0, rule.path.rfind('/')));
  }
  return out;
}

TEST(ResolvedPolicy, ThePathLookupGivesTheScansAnswerEverywhere) {
  Fixture f;
  const ResolvedPolicy resolved = resolve_policy(f.policy, f.host.facts());
  ASSERT_TRUE(resolved.admitted()) << resolved.refusals.front().to_string();
  for (const auto& path : probes(resolved.rules)) {
    EXPECT_EQ(resolved.access_at(path), resolve(resolved.rules, path).access) << path;
  }
  // The answers differ from path to path: a lookup that always said the
  // same would not pass above.
  EXPECT_EQ(resolved.access_at("/code/src"), Access::write);
  EXPECT_EQ(resolved.access_at("/code/.git"), Access::read);
  EXPECT_EQ(resolved.access_at("/data/secret/x"), Access::deny);
  EXPECT_EQ(resolved.access_at("/data/secret/open/x"), Access::read);
  EXPECT_EQ(resolved.access_at("/home/u/.config/holdfast/settings.json"), Access::read);
  EXPECT_EQ(resolved.access_at("relative/path"), Access::deny);
}

TEST(ResolvedPolicy, EachPathHasTheRuleTheTieOrderChooses) {
  Fixture f;
  // The workspace written twice: read by one entry, write by another;
  // a deny on the same path as a write.
  f.policy.filesystem.push_back({"/code", Access::read, "/code", {}});
  f.policy.filesystem.push_back({"/data", Access::deny, "/data (again)", {}});
  const ResolvedPolicy resolved = resolve_policy(f.policy, f.host.facts());
  ASSERT_TRUE(resolved.admitted()) << resolved.refusals.front().to_string();
  EXPECT_EQ(resolved.by_path.at("/code").access, Access::write);
  EXPECT_EQ(resolved.by_path.at("/data").access, Access::deny);
  EXPECT_EQ(resolved.by_path.at("/data").entry, "/data (again)");
}

TEST(ResolvedPolicy, EntriesCarryTheFactsOfThePathsTheyName) {
  FakeHost host("/code", "/code");
  host.dir("/code").missing("/code/.git", "/code").missing("/code/.holdfast", "/code");
  host.symlink_dir("/bin", "usr/bin", "/usr/bin").dir("/usr");
  host.facts().tokens.minimal = {"/usr", "/bin"};
  Policy p;
  p.filesystem = {{":minimal", Access::read, ":minimal", {}},
                  {":workspace", Access::write, ":workspace", {}}};
  const ResolvedPolicy resolved = resolve_policy(p, host.facts());
  ASSERT_TRUE(resolved.admitted()) << resolved.refusals.front().to_string();
  ASSERT_EQ(resolved.entries.size(), 3u);
  EXPECT_EQ(resolved.entries[0].path, "/usr");
  EXPECT_EQ(resolved.entries[1].path, "/bin");
  EXPECT_EQ(resolved.entries[1].facts.canonical, "/usr/bin");
  EXPECT_EQ(resolved.entries[1].written, ":minimal");
  EXPECT_EQ(resolved.entries[2].path, "/code");
  EXPECT_EQ(resolved.entries[2].access, Access::write);
  // The plan makes the symlink an empty root needs from those facts.
  const MountPlan plan = plan_mounts(resolved, host.facts());
  const MountOp link{MountOp::Kind::symlink, "/bin", "", "", "usr/bin"};
  EXPECT_NE(std::find(plan.ops.begin(), plan.ops.end(), link), plan.ops.end());
}

TEST(ResolvedPolicy, AnEntryThatNamesNothingIsRefusedAfterTheWorkspaceChecks) {
  Fixture f;
  f.host.facts().tokens.home = "";
  f.host.cwd(FakeHost::make("/elsewhere", "/elsewhere", Kind::directory));
  const ResolvedPolicy resolved = resolve_policy(f.policy, f.host.facts());
  ASSERT_EQ(resolved.refusals.size(), 2u);
  EXPECT_EQ(resolved.refusals[0].rule, "cwd-outside-workspace");
  EXPECT_EQ(resolved.refusals[1].rule, "home-unknown");
  EXPECT_TRUE(resolved.rules.empty());
  EXPECT_TRUE(resolved.by_path.empty());
  // A refused resolution is never planned: the mount plan refuses with
  // the same refusals.
  try {
    plan_mounts(resolved, f.host.facts());
    ADD_FAILURE() << "plan_mounts planned a refused policy";
  } catch (const Refused& refused) {
    EXPECT_EQ(refused.refusals(), resolved.refusals);
  }
}

TEST(ResolvedPolicy, NoRulesAreBuiltWithoutAWorkspaceDirectory) {
  Fixture f;
  f.host.workspace(FakeHost::make("/code", "/code", Kind::missing, "/"));
  const ResolvedPolicy resolved = resolve_policy(f.policy, f.host.facts());
  ASSERT_FALSE(resolved.refusals.empty());
  EXPECT_EQ(resolved.refusals.front().rule, "workspace-missing");
  EXPECT_TRUE(resolved.entries.empty());
  EXPECT_TRUE(resolved.rules.empty());
}

}  // namespace resolved_policy_test
}  // namespace holdfast::sandbox
