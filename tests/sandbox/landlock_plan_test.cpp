// The second layer's plan (launcher/landlock): exact rules for hand-written
// hosts, the helper's argv, and the ABI choice.
#include "launcher/landlock/landlock_plan.hpp"

#include <gtest/gtest.h>

#include "fake_facts.hpp"
#include "launcher/landlock/second_layer.hpp"
#include "launcher/sandbox/mount_plan.hpp"
#include "launcher/sandbox/refusal.hpp"

namespace holdfast::landlock {
namespace {

using sandbox::Access;
using sandbox::testing::FakeHost;
using sandbox::testing::split;

FakeHost landlock_code_host() {
  FakeHost host("/code", "/code");
  host.dir("/code").dir("/code/.git").missing("/code/.holdfast", "/code");
  return host;
}

Plan plan_for(const sandbox::Policy& policy, FakeHost& host) {
  return plan_landlock(
      policy, sandbox::plan_mounts(sandbox::resolve_policy(policy, host.facts()), host.facts()));
}

PathRule beneath(const std::string& path, Rights rights) {
  return {path, rights, false, 0, {}, std::nullopt};
}

// A rule on the host's own file at `path` (PathRule::on_host).
PathRule on_host(PathRule rule) {
  rule.on_host = true;
  return rule;
}
PathRule host_beneath(const std::string& path, Rights rights) {
  return on_host(beneath(path, rights));
}

const std::vector<PathRule> kFresh = {beneath("/dev", kDevices), beneath("/dev/shm", kPrivate),
                                      beneath("/proc", kRead)};

std::vector<PathRule> with_fresh(std::vector<PathRule> rules) {
  rules.insert(rules.end(), kFresh.begin(), kFresh.end());
  std::sort(rules.begin(), rules.end(),
            [](const PathRule& a, const PathRule& b) { return a.path < b.path; });
  return rules;
}

TEST(LandlockPlan, AReadOnlyPolicyReadsEverythingAndWritesOnlyItsPrivateTmpfs) {
  FakeHost host = landlock_code_host();
  const Plan plan = plan_for(split({{":root", Access::read}, {":workspace", Access::read}}), host);
  EXPECT_EQ(plan.rules, with_fresh({host_beneath("/", kRead), host_beneath("/code", kRead),
                                    beneath("/tmp", kPrivate)}));
  EXPECT_TRUE(plan.tcp_closed);
  EXPECT_EQ(plan.scopes, kScopeSignal | kScopeAbstractUnixSocket);
}

TEST(LandlockPlan, AWritableRootIsNotSplitAroundItsReadOnlyCarveOuts) {
  FakeHost host = landlock_code_host();
  const Plan plan = plan_for(split({{":root", Access::read}, {":workspace", Access::write}}), host);
  EXPECT_EQ(plan.rules, with_fresh({host_beneath("/", kRead), host_beneath("/code", kWrite),
                                    host_beneath("/code/.git", kRead),
                                    // missing on the host: an empty tmpfs made inside
                                    beneath("/code/.holdfast", kRead), beneath("/tmp", kPrivate)}));
  // Nothing of the host gets devices, FIFOs or sockets made, and no
  // writable path is outside the workspace and the private tmpfs.
  for (const auto& rule : plan.rules) {
    const Rights all = rule.here | rule.entries;
    EXPECT_EQ(all & (kMakeChar | kMakeBlock), 0u) << rule.path;
    if (rule.path != "/tmp" && rule.path != "/dev/shm") {
      EXPECT_EQ(all & (kMakeFifo | kMakeSock), 0u) << rule.path;
    }
    if ((all & kWriteFile) != 0) {
      EXPECT_TRUE(rule.path == "/code" || rule.path == "/tmp" || rule.path.starts_with("/dev"))
          << rule.path;
    }
  }
}

TEST(LandlockPlan, ADeniedPathUnderAReadableOneGetsNoRightsAtAll) {
  FakeHost host = landlock_code_host();
  host.dir("/home/u/.ssh").dir("/home/u").dir("/home");
  const Plan plan = plan_for(
      split(
          {{":root", Access::read}, {":workspace", Access::write}, {"/home/u/.ssh", Access::deny}}),
      host);
  EXPECT_EQ(
      plan.rules,
      with_fresh(
          {on_host(
               {"/", kReadDir, true, kRead, {"code", "dev", "home", "proc", "tmp"}, std::nullopt}),
           host_beneath("/code", kWrite), host_beneath("/code/.git", kRead),
           beneath("/code/.holdfast", kRead),
           on_host({"/home", kReadDir, true, kRead, {"u"}, std::nullopt}),
           on_host({"/home/u", kReadDir, true, kRead, {".ssh"}, std::nullopt}),
           beneath("/tmp", kPrivate)}));
}

TEST(LandlockPlan, KernelInterfacesMaskedBelowBoundPathsAreLeftToTheMounts) {
  FakeHost host = landlock_code_host();
  host.dir("/sys/kernel/debug");
  host.facts().mounts = {{1, 0, 1, "/", "/", false, "ext4", "v"},
                         {2, 1, 2, "/", "/sys/kernel/debug", false, "debugfs", "d"}};
  const Plan plan = plan_for(split({{":root", Access::read}, {":workspace", Access::read}}), host);
  EXPECT_EQ(plan.rules, with_fresh({host_beneath("/", kRead), host_beneath("/code", kRead),
                                    beneath("/tmp", kPrivate)}));
}

TEST(LandlockPlan, TheNetworkAndUnixSocketsDecideTcpAndScopes) {
  FakeHost host = landlock_code_host();
  sandbox::Policy open = split({{":root", Access::read}}, sandbox::Network::open);
  open.unix_sockets = sandbox::UnixSockets::allow;
  const Plan plan = plan_for(open, host);
  EXPECT_FALSE(plan.tcp_closed);
  EXPECT_EQ(plan.scopes, kScopeSignal) << "host abstract sockets stay reachable with allow";
}

TEST(LandlockPlan, TheHelpersArgumentsSayEveryRule) {
  Plan plan;
  plan.rules = {{"/", kReadDir, true, kRead, {"home", "tmp"}, std::nullopt},
                beneath("/tmp", kPrivate)};
  plan.tcp_closed = true;
  plan.scopes = kScopeSignal | kScopeAbstractUnixSocket;
  EXPECT_EQ(helper_argv(plan, 7, "/proc/self/fd/9"),
            (std::vector<std::string>{"/proc/self/fd/9", "--abi", "7", "--tcp-closed", "--scope",
                                      "as", "--split", "l", "xrl", "/", "2", "home", "tmp",
                                      "--beneath", "xwrleuDRSFYfti", "/tmp", "--"}));
  EXPECT_EQ(rights_letters(0), "-");
}

// With the ruleset holdfast made and filled with the rules on host files
// (host_rules.hpp), the helper gets that ruleset and only the other rules;
// the TCP and scope options are the ruleset's already.
TEST(LandlockPlan, GivenTheHostsRulesetTheHelperAddsOnlyTheRulesNotOnHostFiles) {
  Plan plan;
  plan.rules = {on_host({"/", kReadDir, true, kRead, {"home", "tmp"}, std::nullopt}),
                host_beneath("/home/u/code", kWrite), beneath("/tmp", kPrivate)};
  plan.tcp_closed = true;
  plan.scopes = kScopeSignal | kScopeAbstractUnixSocket;
  EXPECT_EQ(helper_argv(plan, 7, "/proc/self/fd/9", sandbox::FileId{1, 2}, 11),
            (std::vector<std::string>{"/proc/self/fd/9", "--abi", "7", "--cwd", "1:2", "--ruleset",
                                      "11", "--beneath", "xwrleuDRSFYfti", "/tmp", "--"}));
}

// An empty root (no ":root" grant) is bubblewrap's tmpfs, not the host's
// /: its rule is added inside, while the bound paths' are the host's.
TEST(LandlockPlan, AnEmptyRootIsTheSandboxsOwnAndABoundPathTheHosts) {
  FakeHost host = landlock_code_host();
  host.dir("/usr");
  const Plan plan = plan_for(split({{"/usr", Access::read}, {":workspace", Access::write}}), host);
  std::map<std::string, bool> host_file;
  for (const auto& rule : plan.rules) host_file[rule.path] = rule.on_host;
  EXPECT_FALSE(host_file.contains("/")) << "nothing is granted on the empty root";
  EXPECT_TRUE(host_file.at("/usr"));
  EXPECT_TRUE(host_file.at("/code"));
  EXPECT_FALSE(host_file.at("/dev"));
  EXPECT_FALSE(host_file.at("/proc"));
  EXPECT_FALSE(host_file.at("/tmp"));
}

TEST(LandlockPlan, RulesOnHostPathsArePinnedToTheFilesTheLaunchChecked) {
  FakeHost host = landlock_code_host();
  const sandbox::Policy policy = split({{":root", Access::read}, {":workspace", Access::write}});
  const sandbox::HostFacts facts = host.facts();
  std::map<std::string, sandbox::FileId> identities = {
      {"/", {1, 2}}, {"/code", {1, 40}}, {"/code/.git", {1, 41}}, {"/tmp", {1, 9}}};
  const Plan plan = plan_landlock(
      policy, sandbox::plan_mounts(sandbox::resolve_policy(policy, facts), facts), &identities);
  std::map<std::string, std::optional<sandbox::FileId>> pinned;
  for (const auto& rule : plan.rules) pinned[rule.path] = rule.id;
  EXPECT_EQ(pinned.at("/code"), (sandbox::FileId{1, 40})) << "the workspace's rule";
  EXPECT_EQ(pinned.at("/code/.git"), (sandbox::FileId{1, 41}));
  EXPECT_EQ(pinned.at("/"), (sandbox::FileId{1, 2}));
  EXPECT_EQ(pinned.at("/code/.holdfast"), std::nullopt) << "missing on the host: made inside";
  EXPECT_EQ(pinned.at("/tmp"), std::nullopt) << "the private /tmp is not the host's /tmp";
  EXPECT_EQ(pinned.at("/dev"), std::nullopt);
  const auto argv = helper_argv(plan, 3, "/proc/self/fd/9");
  const auto at = std::find(argv.begin(), argv.end(), "/code");
  ASSERT_NE(at, argv.end());
  EXPECT_EQ(std::vector<std::string>(at - 3, at + 1),
            (std::vector<std::string>{"--beneath-id", rights_letters(kWrite), "1:40", "/code"}));
}

TEST(LandlockPlan, WithoutLandlockTheHelperOnlyChecksTheCwd) {
  Plan plan;
  plan.rules = {beneath("/tmp", kPrivate)};
  plan.tcp_closed = true;
  EXPECT_EQ(helper_argv(plan, 0, "/proc/self/fd/9", sandbox::FileId{2049, 77}),
            (std::vector<std::string>{"/proc/self/fd/9", "--abi", "0", "--cwd", "2049:77", "--"}));
  EXPECT_EQ(helper_argv(plan, 3, "/proc/self/fd/9", sandbox::FileId{1, 2})[3], "--cwd");
}

TEST(LandlockAbi, TheKernelsIsUsedUpToTheNewestKnownAndRequiredMeansRefuse) {
  EXPECT_EQ(choose_abi(7, true, false, ""), 7);
  EXPECT_EQ(choose_abi(9, true, true, ""), kNewestAbi);
  EXPECT_EQ(choose_abi(0, true, false, "no landlock"), 0);
  EXPECT_EQ(choose_abi(5, false, false, ""), 0) << "without the helper there is no layer";
  try {
    choose_abi(0, true, true, "the kernel has no Landlock");
    FAIL() << "a required Landlock on a kernel without it was not refused";
  } catch (const sandbox::Refused& refused) {
    ASSERT_EQ(refused.refusals().size(), 1u);
    EXPECT_EQ(refused.refusals()[0].rule, "landlock-required");
    EXPECT_NE(refused.refusals()[0].message.find("the kernel has no Landlock"), std::string::npos);
  }
  EXPECT_THROW(choose_abi(6, false, true, ""), sandbox::Refused);
}

TEST(LandlockAbi, CoverageSaysWhatEachAbiAdds) {
  EXPECT_EQ(abi_coverage(0), "nothing (Landlock is not available)");
  EXPECT_EQ(abi_coverage(1), "file access (ABI 1)");
  EXPECT_NE(abi_coverage(6).find("signals and abstract Unix sockets"), std::string::npos);
}

}  // namespace
}  // namespace holdfast::landlock
