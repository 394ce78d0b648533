// Mount points another local user can move (mount_point_owners.hpp), from
// hand-made host facts: what security.workspaceStrictModes: false accepts
// and what it does not.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "fake_facts.hpp"
#include "launcher/sandbox/mount_plan.hpp"

namespace holdfast::sandbox {
namespace {

using testing::FakeHost;

constexpr uid_t kCaller = 1000;
constexpr uid_t kOther = 2000;

// A 0777 workspace /code (the caller's) without .git, and a 0777 /shared
// outside it, both writable by the policy.
FakeHost world_writable_host() {
  FakeHost host("/code", "/code");
  host.dir("/code").dir("/shared");
  host.missing("/code/.git", "/code").missing("/code/.holdfast", "/code");
  host.missing("/shared/.git", "/shared").missing("/shared/.holdfast", "/shared");
  host.facts().writable_roots = {"/code", "/shared"};
  host.facts().caller_uid = kCaller;
  host.facts().caller_gid = kCaller;
  for (const char* dir : {"/code", "/shared"}) {
    host.facts().ownership[dir] = Ownership{kCaller, kCaller, S_IFDIR | 0777};
  }
  return host;
}

std::vector<std::string> refused_paths(const Policy& policy, const HostFacts& facts) {
  std::vector<std::string> out;
  try {
    plan_mounts(resolve_policy(policy, facts), facts);
  } catch (const Refused& refused) {
    for (const auto& r : refused.refusals()) {
      EXPECT_EQ(r.rule, "mount-point-movable-by-another-user") << r.to_string();
      out.push_back(r.path);
    }
  }
  return out;
}

const Policy kWorkspaceWrite = testing::split(
    {{":root", Access::read}, {":workspace", Access::write}, {"/shared", Access::write}});

TEST(MountPointOwners, AWorldWritableWorkspaceIsRefusedUnlessTheOperatorAcceptedIt) {
  FakeHost host = world_writable_host();
  EXPECT_EQ(refused_paths(kWorkspaceWrite, host.facts()),
            (std::vector<std::string>{"/code/.git", "/code/.holdfast", "/shared/.git",
                                      "/shared/.holdfast"}));
  // workspaceStrictModes: false covers the workspace, not other writable
  // directories.
  host.facts().others_write_workspace_accepted = true;
  EXPECT_EQ(refused_paths(kWorkspaceWrite, host.facts()),
            (std::vector<std::string>{"/shared/.git", "/shared/.holdfast"}));
}

TEST(MountPointOwners, AnotherUsersEntryIsRefusedEvenWhenTheOperatorAcceptedOthersWrites) {
  FakeHost host = world_writable_host();
  host.dir("/code/.git");
  host.facts().ownership["/code/.git"] = Ownership{kOther, kOther, S_IFDIR | 0755};
  host.facts().others_write_workspace_accepted = true;
  const auto refused = refused_paths(kWorkspaceWrite, host.facts());
  EXPECT_NE(std::find(refused.begin(), refused.end(), "/code/.git"), refused.end());
  EXPECT_EQ(std::find(refused.begin(), refused.end(), "/code/.holdfast"), refused.end());
}

}  // namespace
}  // namespace holdfast::sandbox
