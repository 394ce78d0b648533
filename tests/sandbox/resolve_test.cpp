#include "launcher/sandbox/resolve.hpp"

#include <gtest/gtest.h>

#include "fake_facts.hpp"

namespace holdfast::sandbox {
namespace {

Rule rule(std::string path, Access access) {
  return Rule{std::move(path), access, RuleSource::entry, "", Kind::directory};
}

TEST(Resolve, LongestMatchWins) {
  const std::vector<Rule> rules = {
      rule("/", Access::read), rule("/code", Access::write), rule("/code/.git", Access::read),
      rule("/code/secrets", Access::deny), rule("/code/secrets/tmp", Access::write)};
  EXPECT_EQ(resolve(rules, "/etc/passwd").access, Access::read);
  EXPECT_EQ(resolve(rules, "/code").access, Access::write);
  EXPECT_EQ(resolve(rules, "/code/src/main.cpp").access, Access::write);
  EXPECT_EQ(resolve(rules, "/code/.git/config").access, Access::read);
  EXPECT_EQ(resolve(rules, "/code/.gitignore").access, Access::write);  // not a prefix match
  EXPECT_EQ(resolve(rules, "/code/secrets/key").access, Access::deny);
  EXPECT_EQ(resolve(rules, "/code/secrets/tmp/x").access, Access::write);
  EXPECT_EQ(resolve(rules, "/code2").access, Access::read);
  EXPECT_EQ(resolve(rules, "/code/secrets/tmp/x").rule, &rules[4]);
}

TEST(Resolve, TiesGoDenyOverWriteOverRead) {
  EXPECT_EQ(resolve({rule("/a", Access::read), rule("/a", Access::write)}, "/a/x").access,
            Access::write);
  EXPECT_EQ(resolve({rule("/a", Access::write), rule("/a", Access::deny)}, "/a").access,
            Access::deny);
  EXPECT_EQ(resolve({rule("/a", Access::deny), rule("/a", Access::read)}, "/a").access,
            Access::deny);
}

TEST(Resolve, UnmatchedIsDenied) {
  const std::vector<Rule> rules = {rule("/usr", Access::read)};
  const auto r = resolve(rules, "/home/u");
  EXPECT_EQ(r.access, Access::deny);
  EXPECT_EQ(r.rule, nullptr);
  EXPECT_EQ(resolve({}, "/").access, Access::deny);
}

TEST(BuildRules, AddsProtectedNamesGitdirOperatorDirsAndPrivateTmp) {
  testing::FakeHost host("/code", "/code");
  host.dir("/code").dir("/code/.holdfast").git_file("/code/.git", "/data/gitdirs/code");
  host.dir("/data/gitdirs/code").dir("/home/u");
  Policy p;
  p.protected_names = core_protected_names();
  p.filesystem = {{":root", Access::read, ":root", {}},
                  {":workspace", Access::write, ":workspace", {}},
                  {"/data", Access::write, "/data", {}},
                  {":home", Access::write, ":home", {}}};
  host.dir("/data").missing("/data/.holdfast", "/data").missing("/data/.git", "/data");
  host.missing("/home/u/.git", "/home/u").missing("/home/u/.holdfast", "/home/u");
  const auto rules = build_rules(p, host.facts());
  EXPECT_EQ(resolve(rules, "/code/.git").access, Access::read);
  EXPECT_EQ(resolve(rules, "/code/.git").rule->source, RuleSource::protected_name);
  EXPECT_EQ(resolve(rules, "/code/.holdfast/x").access, Access::read);
  EXPECT_EQ(resolve(rules, "/data/gitdirs/code/HEAD").access, Access::read);
  EXPECT_EQ(resolve(rules, "/data/gitdirs/code").rule->source, RuleSource::gitdir);
  EXPECT_EQ(resolve(rules, "/data/gitdirs/other").access, Access::write);
  EXPECT_EQ(resolve(rules, "/home/u/.config/holdfast/settings.json").access, Access::read);
  EXPECT_EQ(resolve(rules, "/home/u/.config/holdfast").rule->source, RuleSource::operator_dir);
  EXPECT_EQ(resolve(rules, "/home/u/.config/other").access, Access::write);
  EXPECT_EQ(resolve(rules, "/etc/holdfast").rule->source, RuleSource::entry);  // only :root read
  EXPECT_EQ(resolve(rules, "/tmp/x").access, Access::deny);
  EXPECT_EQ(resolve(rules, "/tmp/x").rule->source, RuleSource::private_tmp);
}

TEST(BuildRules, ExplicitWriteOnAProtectedNameWins) {
  testing::FakeHost host("/code", "/code");
  host.dir("/code").dir("/code/.git").missing("/code/.holdfast", "/code");
  Policy p;
  p.protected_names = core_protected_names();
  p.filesystem = {{":workspace", Access::write, ":workspace", {}},
                  {":workspace/.git", Access::write, ":workspace/.git", {}}};
  host.dir("/code/.git/.git").missing("/code/.git/.holdfast", "/code/.git");
  const auto rules = build_rules(p, host.facts());
  EXPECT_EQ(resolve(rules, "/code/.git/config").access, Access::write);
  EXPECT_EQ(resolve(rules, "/code/.holdfast").access, Access::read);
}

TEST(BuildRules, ExplicitTmpEntryReplacesThePrivateTmp) {
  testing::FakeHost host("/code", "/code");
  host.dir("/code").dir("/tmp").missing("/code/.git", "/code").missing("/code/.holdfast", "/code");
  Policy p;
  p.filesystem = {{":workspace", Access::write, ":workspace", {}},
                  {":tmpdir", Access::read, ":tmpdir", {}}};
  const auto rules = build_rules(p, host.facts());
  EXPECT_EQ(resolve(rules, "/tmp/x").access, Access::read);
  EXPECT_EQ(resolve(rules, "/tmp/x").rule->source, RuleSource::entry);
}

TEST(BuildRules, NestedRepositoriesStayReadOnlyWhereTheyWouldBeWritableAndTheStateDirIsHidden) {
  testing::FakeHost host("/code", "/code");
  host.dir("/code").missing("/code/.git", "/code").missing("/code/.holdfast", "/code");
  host.nested_git("/code/sub/.git").nested_git("/code/vendor/x/.git");
  host.state_dir(testing::FakeHost::make("/code/state", "/code/state", Kind::directory));
  Policy p;
  p.filesystem = {{":workspace", Access::write, ":workspace", {}},
                  {":workspace/vendor", Access::read, ":workspace/vendor", {}}};
  host.dir("/code/vendor");
  const auto rules = build_rules(p, host.facts());
  EXPECT_EQ(resolve(rules, "/code/sub/.git/config").access, Access::read);
  EXPECT_EQ(resolve(rules, "/code/sub/.git").rule->source, RuleSource::nested_repo);
  EXPECT_EQ(resolve(rules, "/code/sub/.git").rule->entry, "/code/sub");
  EXPECT_EQ(resolve(rules, "/code/sub/file").access, Access::write);
  // Already read-only under the carve-out: no rule of its own.
  EXPECT_EQ(resolve(rules, "/code/vendor/x/.git").rule->source, RuleSource::entry);
  // holdfast's state directory: hidden, not only read-only (its records
  // name every launch's arguments).
  EXPECT_EQ(resolve(rules, "/code/state/launches.jsonl").access, Access::deny);
  EXPECT_EQ(resolve(rules, "/code/state").rule->source, RuleSource::state_dir);
}

TEST(BuildRules, TheStateDirectoryIsHiddenUnderAReadableRootToo) {
  testing::FakeHost host("/code", "/code");
  host.dir("/code").missing("/code/.git", "/code").missing("/code/.holdfast", "/code");
  host.state_dir(
      testing::FakeHost::make("/var/state/holdfast", "/var/state/holdfast", Kind::directory));
  Policy p;
  p.filesystem = {{":root", Access::read, ":root", {}},
                  {":workspace", Access::write, ":workspace", {}}};
  const auto rules = build_rules(p, host.facts());
  EXPECT_EQ(resolve(rules, "/var/state/holdfast/launches.jsonl").access, Access::deny);
  EXPECT_EQ(resolve(rules, "/var/state").access, Access::read);
}

}  // namespace
}  // namespace holdfast::sandbox
