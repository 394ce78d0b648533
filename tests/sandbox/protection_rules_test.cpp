// Protected names, git's configuration targets and credential stores, from
// hand-made host facts to rules, mount operations, refusals and --explain.
#include <gtest/gtest.h>

#include <algorithm>

#include "fake_facts.hpp"
#include "launcher/sandbox/admission.hpp"
#include "launcher/sandbox/explain.hpp"
#include "launcher/sandbox/mount_plan.hpp"
#include "launcher/sandbox/resolve.hpp"

namespace holdfast::sandbox {
namespace {

using testing::FakeHost;

// The rule build_rules made for `path`, if any.
std::optional<Rule> rule_at(const std::vector<Rule>& rules, const std::string& path) {
  for (const auto& r : rules) {
    if (r.path == path) return r;
  }
  return std::nullopt;
}

bool has_op(const MountPlan& plan, MountOp::Kind kind, const std::string& path) {
  return std::any_of(plan.ops.begin(), plan.ops.end(),
                     [&](const MountOp& op) { return op.kind == kind && op.path == path; });
}

std::string op_text(const MountPlan& plan) {
  std::string out;
  for (const auto& op : plan.ops) out += describe(op) + "\n";
  return out;
}

Policy workspace_write_all_names() {
  Policy p = testing::split({{":root", Access::read}, {":workspace", Access::write}});
  p.protected_names = builtin_protected_names();
  return p;
}

// /code is the workspace; the walk saw /code/.git and /code/.vscode there.
FakeHost code_host_with_vscode() {
  FakeHost host("/code", "/code");
  host.dir("/").dir("/code").dir("/code/.git").dir("/code/.vscode");
  host.facts().writable_roots = {"/code"};
  return host;
}

TEST(ProtectedNameRules, AtAWritableRootExistingNamesAreBoundReadOnlyMissingOnesGuarded) {
  FakeHost host = code_host_with_vscode();
  const Policy p = workspace_write_all_names();
  const auto rules = build_rules(p, host.facts());
  ASSERT_TRUE(rule_at(rules, "/code/.vscode"));
  EXPECT_EQ(rule_at(rules, "/code/.vscode")->access, Access::read);
  EXPECT_EQ(rule_at(rules, "/code/.vscode")->source, RuleSource::protected_name);
  // Missing, and its tool runs it without asking: guarded.
  ASSERT_TRUE(rule_at(rules, "/code/.claude"));
  EXPECT_EQ(rule_at(rules, "/code/.claude")->kind, Kind::missing);
  // Missing, and its tool asks first: reported when the command ends instead.
  EXPECT_FALSE(rule_at(rules, "/code/.envrc"));
  // Home names only at the home.
  EXPECT_FALSE(rule_at(rules, "/code/.bashrc"));

  const MountPlan plan = plan_mounts(resolve_policy(p, host.facts()), host.facts());
  EXPECT_TRUE(has_op(plan, MountOp::Kind::ro_bind, "/code/.vscode")) << op_text(plan);
  EXPECT_TRUE(has_op(plan, MountOp::Kind::tmpfs, "/code/.claude")) << op_text(plan);
  EXPECT_TRUE(has_op(plan, MountOp::Kind::remount_ro, "/code/.claude")) << op_text(plan);
  EXPECT_NE(std::find(plan.created_on_host.begin(), plan.created_on_host.end(), "/code/.claude"),
            plan.created_on_host.end());
  EXPECT_FALSE(has_op(plan, MountOp::Kind::tmpfs, "/code/.envrc")) << op_text(plan);
}

TEST(ProtectedNameRules, ALiftedNameIsLeftToThePolicyAndAnEntryStillDecides) {
  FakeHost host = code_host_with_vscode();
  Policy p = workspace_write_all_names();
  std::erase_if(p.protected_names.names,
                [](const ProtectedName& n) { return n.name == ".vscode"; });
  EXPECT_FALSE(rule_at(build_rules(p, host.facts()), "/code/.vscode"));
  // An explicit write entry at the path wins the tie over the implicit read.
  Policy q = testing::split({{":root", Access::read},
                             {":workspace", Access::write},
                             {":workspace/.claude", Access::write}});
  q.protected_names = builtin_protected_names();
  host.dir("/code/.claude");
  EXPECT_EQ(resolve(build_rules(q, host.facts()), "/code/.claude/settings.json").access,
            Access::write);
}

TEST(ProtectedNameRules, HomeNamesApplyAtAWritableHomeAndAMissingParentIsNotCreated) {
  FakeHost host("/home/u/proj", "/home/u/proj");
  host.dir("/").dir("/home/u").dir("/home/u/proj").file("/home/u/.bashrc");
  host.missing("/home/u/.config/git", "/home/u");  // .config itself is missing
  host.facts().writable_roots = {"/home/u", "/home/u/proj"};
  Policy p = testing::split(
      {{":root", Access::read}, {":home", Access::write}, {":workspace", Access::write}});
  p.protected_names = builtin_protected_names();
  const auto rules = build_rules(p, host.facts());
  ASSERT_TRUE(rule_at(rules, "/home/u/.bashrc"));
  EXPECT_EQ(rule_at(rules, "/home/u/.bashrc")->kind, Kind::file);
  ASSERT_TRUE(rule_at(rules, "/home/u/.zshrc"));  // missing: guarded
  EXPECT_FALSE(rule_at(rules, "/home/u/.config/git"));
  EXPECT_FALSE(rule_at(rules, "/home/u/proj/.bashrc"));
  EXPECT_TRUE(rule_at(rules, "/home/u/proj/.claude"));
  EXPECT_TRUE(rule_at(rules, "/home/u/.claude"));
}

TEST(ProtectedNameRules, NamesFoundBelowTheRootAreReadOnlyASymlinksTargetToo) {
  FakeHost host = code_host_with_vscode();
  host.dir("/code/pkg").file("/code/pkg/.npmrc").dir("/code/shared");
  PathFacts link = FakeHost::make("/code/pkg/.claude", "/code/shared", Kind::directory);
  link.link_target = "../shared";
  link.symlinks = {{"/code/pkg/.claude", "/code/pkg"}};
  host.add(link);
  host.facts().protected_found = {"/code/pkg/.npmrc", "/code/pkg/.claude"};
  const Policy p = workspace_write_all_names();
  const auto rules = build_rules(p, host.facts());
  ASSERT_TRUE(rule_at(rules, "/code/pkg/.npmrc"));
  EXPECT_EQ(rule_at(rules, "/code/pkg/.npmrc")->source, RuleSource::protected_below);
  ASSERT_TRUE(rule_at(rules, "/code/shared"));
  EXPECT_TRUE(check_admission(p, host.facts()).empty());
  EXPECT_NE(explain(p, &host.facts())
                .find("/code/pkg/.claude is a symlink (to ../shared): its "
                      "target is read-only, the link itself can be replaced"),
            std::string::npos);
}

TEST(ProtectedNameRules, ASymlinkAtTheRootIsRefusedWithTheLiftAsARemedy) {
  FakeHost host = code_host_with_vscode();
  host.dir("/elsewhere");
  PathFacts link = FakeHost::make("/code/.claude", "/elsewhere", Kind::directory);
  link.link_target = "/elsewhere";
  link.symlinks = {{"/code/.claude", "/code"}};
  host.add(link);
  const auto refusals = check_admission(workspace_write_all_names(), host.facts());
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_EQ(refusals[0].rule, "protected-name-is-symlink");
  EXPECT_NE(refusals[0].remedy.find("tools.protectedNames.lift"), std::string::npos);
}

// A symlink whose target does not exist is still there: the command could
// replace it with a repository of its own (the names' merge took it for a
// missing name whose parent is missing, left it without a rule, and a hook
// planted through a replaced `.git -> /nonexistent` ran on the host).
TEST(ProtectedNameRules, ADanglingSymlinkAtTheRootIsRefused) {
  for (const std::string name : {".git", ".holdfast", ".envrc"}) {
    FakeHost host = code_host_with_vscode();
    PathFacts link = FakeHost::make("/code/" + name, "/nonexistent", Kind::missing, "/");
    link.link_target = "/nonexistent";
    link.symlinks = {{"/code/" + name, "/code"}};
    host.add(link);
    const Policy p = workspace_write_all_names();
    ASSERT_TRUE(rule_at(build_rules(p, host.facts()), "/code/" + name)) << name;
    const auto refusals = check_admission(p, host.facts());
    ASSERT_EQ(refusals.size(), 1u) << name;
    EXPECT_EQ(refusals[0].rule, "protected-name-is-symlink") << name;
    EXPECT_EQ(refusals[0].path, "/code/" + name);
  }
}

TEST(BareRepositories, AWorkspaceWithTheLayoutIsRefusedOnesBelowAreReadOnly) {
  FakeHost host = code_host_with_vscode();
  host.facts().workspace_is_bare = true;
  auto refusals = check_admission(workspace_write_all_names(), host.facts());
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_EQ(refusals[0].rule, "workspace-is-bare-repository");
  EXPECT_NE(refusals[0].remedy.find("safe.bareRepository"), std::string::npos);

  FakeHost below = code_host_with_vscode();
  below.dir("/code/fixtures/remote.git");
  below.facts().bare_repositories = {"/code/fixtures/remote.git"};
  const auto rules = build_rules(workspace_write_all_names(), below.facts());
  ASSERT_TRUE(rule_at(rules, "/code/fixtures/remote.git"));
  EXPECT_EQ(rule_at(rules, "/code/fixtures/remote.git")->source, RuleSource::bare_repo);
  EXPECT_EQ(resolve(rules, "/code/fixtures/remote.git/hooks/pre-receive").access, Access::read);
}

TEST(GitConfigRules, TargetsInTheWorkspaceAreReadOnlyMissingOnesGuardedOrRefused) {
  FakeHost host = code_host_with_vscode();
  host.dir("/code/.husky").file("/code/tools/fsmon.sh").file("/etc/gitconfig");
  host.missing("/code/cfg/extra.inc", "/code/cfg").dir("/code/cfg");
  host.missing("/code/bin/ssh-wrapper", "/code");  // a program whose directory is missing
  host.missing("/code/keys/id", "/code");          // an argument that names nothing
  host.missing("/code/a/b/hooks", "/code");        // hooks whose parent is missing too
  auto& targets = host.facts().git_targets;
  const std::string file = "/code/.git/config";
  targets = {{"/code/.husky", "core.hooksPath", file, GitPathKind::hooks, true},
             {"/code/tools/fsmon.sh", "core.fsmonitor", file, GitPathKind::program, true},
             {"/code/cfg/extra.inc", "include.path", file, GitPathKind::include, true},
             {"/etc/gitconfig", "include.path", file, GitPathKind::include, true},
             {"/code/bin/ssh-wrapper", "core.sshcommand", file, GitPathKind::program, true},
             {"/code/keys/id", "core.sshcommand", file, GitPathKind::program, false}};
  const Policy p = workspace_write_all_names();
  auto rules = build_rules(p, host.facts());
  for (const char* path : {"/code/.husky", "/code/tools/fsmon.sh", "/code/cfg/extra.inc"}) {
    ASSERT_TRUE(rule_at(rules, path)) << path;
    EXPECT_EQ(rule_at(rules, path)->source, RuleSource::git_config);
    EXPECT_EQ(rule_at(rules, path)->entry.find(" in /code/.git/config") != std::string::npos, true);
  }
  EXPECT_FALSE(rule_at(rules, "/etc/gitconfig"));  // read-only already
  EXPECT_FALSE(rule_at(rules, "/code/bin/ssh-wrapper"));
  EXPECT_FALSE(rule_at(rules, "/code/keys/id"));
  EXPECT_TRUE(check_admission(p, host.facts()).empty());
  const MountPlan plan = plan_mounts(resolve_policy(p, host.facts()), host.facts());
  EXPECT_TRUE(has_op(plan, MountOp::Kind::ro_bind, "/code/.husky")) << op_text(plan);
  EXPECT_TRUE(has_op(plan, MountOp::Kind::tmpfs, "/code/cfg/extra.inc")) << op_text(plan);
  EXPECT_NE(explain(p, &host.facts())
                .find("names /code/bin/ssh-wrapper, which does not exist and "
                      "whose directory does not either: not covered"),
            std::string::npos);

  targets.push_back({"/code/a/b/hooks", "core.hooksPath", file, GitPathKind::hooks, true});
  const auto refusals = check_admission(p, host.facts());
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_EQ(refusals[0].rule, "trusted-path-missing-under-writable");
  EXPECT_EQ(refusals[0].path, "/code/a/b/hooks");
}

Policy with_stores(Policy p) {
  p.credential_stores = builtin_credential_stores();
  return p;
}

TEST(CredentialRules, StoresAreDeniedKeptPathsReopenedWithTheAccessTheyHad) {
  FakeHost host("/home/u/proj", "/home/u/proj");
  host.dir("/").dir("/home/u").dir("/home/u/proj").dir("/home/u/.ssh");
  host.file("/home/u/.ssh/known_hosts").file("/home/u/.netrc").file("/etc/shadow");
  host.facts().credentials = {{"ssh", "/home/u/.ssh", false},
                              {"ssh", "/home/u/.ssh/known_hosts", true},
                              {"netrc", "/home/u/.netrc", false},
                              {"shadow", "/etc/shadow", false}};
  const Policy p =
      with_stores(testing::split({{":root", Access::read}, {":workspace", Access::write}}));
  const auto rules = build_rules(p, host.facts());
  EXPECT_EQ(resolve(rules, "/home/u/.ssh/id_ed25519").access, Access::deny);
  EXPECT_EQ(resolve(rules, "/home/u/.ssh/known_hosts").access, Access::read);
  EXPECT_EQ(resolve(rules, "/home/u/.netrc").access, Access::deny);
  EXPECT_EQ(resolve(rules, "/etc/shadow").access, Access::deny);
  EXPECT_EQ(rule_at(rules, "/home/u/.ssh")->entry, "ssh");
  const MountPlan plan = plan_mounts(resolve_policy(p, host.facts()), host.facts());
  EXPECT_TRUE(has_op(plan, MountOp::Kind::tmpfs, "/home/u/.ssh")) << op_text(plan);
  EXPECT_TRUE(has_op(plan, MountOp::Kind::ro_bind, "/home/u/.ssh/known_hosts")) << op_text(plan);
  EXPECT_TRUE(has_op(plan, MountOp::Kind::denied_file, "/home/u/.netrc")) << op_text(plan);
  EXPECT_EQ(plan.empty_files, 2u);  // .netrc, /etc/shadow: one descriptor each
  // Each denied file gets its own descriptor in the argv.
  BuildOptions options;
  options.empty_file_fds = {7, 8};
  const auto argv = build_bwrap_args(p, host.facts(), plan, {"true"}, options);
  const auto count = [&](const std::string& fd) {
    std::size_t n = 0;
    for (std::size_t i = 1; i < argv.size(); ++i) {
      if (argv[i - 1] == "--ro-bind-data" && argv[i] == fd) ++n;
    }
    return n;
  };
  EXPECT_EQ(count("7"), 1u);
  EXPECT_EQ(count("8"), 1u);
  EXPECT_THROW(build_bwrap_args(p, host.facts(), plan, {"true"}, testing::options(9)),
               std::invalid_argument);

  // Under a writable home the kept path stays writable (ssh adds host keys).
  const Policy home = with_stores(testing::split(
      {{":root", Access::read}, {":home", Access::write}, {":workspace", Access::write}}));
  const auto home_rules = build_rules(home, host.facts());
  EXPECT_EQ(resolve(home_rules, "/home/u/.ssh/known_hosts").access, Access::write);
  EXPECT_EQ(resolve(home_rules, "/home/u/.ssh/id_rsa").access, Access::deny);
  // Where the policy denies already, nothing is added.
  const Policy denied =
      with_stores(testing::split({{":minimal", Access::read}, {":workspace", Access::write}}));
  const auto denied_rules = build_rules(denied, host.facts());
  EXPECT_FALSE(rule_at(denied_rules, "/home/u/.ssh"));
  EXPECT_FALSE(rule_at(denied_rules, "/home/u/.ssh/known_hosts"));
}

TEST(CredentialRules, ExplainListsHiddenAndLiftedWithOrigins) {
  FakeHost host("/home/u/proj", "/home/u/proj");
  host.dir("/").dir("/home/u").dir("/home/u/proj").dir("/home/u/.aws");
  host.facts().credentials = {{"aws", "/home/u/.aws", false}};
  host.facts().homes = {"/home/u"};
  Policy p = with_stores(testing::split({{":root", Access::read}, {":workspace", Access::write}}));
  p.protected_names = builtin_protected_names();
  p.protected_names.lifted = {{".vscode", settings::Scope::user}};
  p.credential_stores.lifted = {{"ssh", settings::Scope::system}};
  const std::string text = explain(p, &host.facts());
  for (const char* part :
       {"hidden: /home/u/.aws (aws)", "lifted: ssh  (by the system scope)",
        "lifted: .vscode  (by the user scope)", "aws: ~/.aws  (built in) AWS access keys",
        "homes looked at for credential stores: /home/u",
        "/home/u/.aws: deny  (credential store, from aws)"}) {
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
  }
  // Without host facts, the tables alone.
  EXPECT_NE(explain(p, nullptr).find(".qwen  (built in; cannot be created at a writable root)"),
            std::string::npos);
}

}  // namespace
}  // namespace holdfast::sandbox
