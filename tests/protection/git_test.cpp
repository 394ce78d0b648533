// Repositories: what git later runs on the host, as the operator, from a
// repository in the workspace — hooks in a core.hooksPath, configuration
// in an included file, the core.fsmonitor and core.sshCommand programs —
// cannot be rewritten or planted by a confined command; a workspace that is
// laid out as a bare repository is refused; a bare layout or a repository
// the command makes is reported when it ends. Each attack writes a marker
// outside the sandbox when git on the host runs what it planted, and each
// test shows with a control that git does run that file.
#include "protection_support.hpp"

namespace holdfast::run::testing {
namespace {

class GitTest : public ProtectionTest {
 protected:
  fs::path marker() const { return outside_ / "pwned"; }
  fs::path ran() const { return outside_ / "ran"; }
  // A shell line that makes `file` a script writing the marker.
  std::string plant(const std::string& file) const {
    return "printf '#!/bin/sh\\necho pwned >> " + marker().string() + "\\n' > " + file +
           "; chmod +x " + file + "; ";
  }
};

TEST_P(GitTest, HooksInACoreHooksPathInTheWorkspaceCannotBeRewritten) {
  set_policy(kWorkspaceWrite);
  make_repository(workspace_);
  ASSERT_EQ(host_git(workspace_, {"config", "core.hooksPath", ".husky"}).exit_code, 0);
  make_script(workspace_ / ".husky" / "pre-commit", ran(), "original");
  own_tree(workspace_);
  own(outside_);
  const auto result =
      run({"/bin/sh", "-c", plant(".husky/pre-commit") + plant(".husky/post-commit") + "exit 0"},
          {}, as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  ASSERT_EQ(host_git(workspace_, {"commit", "-q", "--allow-empty", "-m", "x"}).exit_code, 0);
  EXPECT_EQ(read_file(ran()), "original\n") << "control: git runs the hooks there";
  EXPECT_FALSE(fs::exists(marker())) << "a planted hook ran on the host";
}

TEST_P(GitTest, AMissingHooksPathCannotBeCreated) {
  set_policy(kWorkspaceWrite);
  make_repository(workspace_);
  ASSERT_EQ(host_git(workspace_, {"config", "core.hooksPath", "hooks"}).exit_code, 0);
  own_tree(workspace_);
  own(outside_);
  const auto result =
      run({"/bin/sh", "-c", "mkdir -p hooks; " + plant("hooks/pre-commit") + "exit 0"}, {},
          as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  ASSERT_EQ(host_git(workspace_, {"commit", "-q", "--allow-empty", "-m", "x"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(marker())) << "a planted hook ran on the host";
  EXPECT_FALSE(fs::exists(workspace_ / "hooks"));  // the empty mount point is gone
}

TEST_P(GitTest, IncludedConfigurationInTheWorkspaceCannotBeRewritten) {
  set_policy(kWorkspaceWrite);
  make_repository(workspace_);
  make_file(workspace_ / "tools" / "git.inc", "[user]\n\tname = t\n");
  make_file(workspace_ / "cfg" / "cond.inc", "[user]\n\temail = t@example.invalid\n");
  ASSERT_EQ(host_git(workspace_, {"config", "include.path", "../tools/git.inc"}).exit_code, 0);
  ASSERT_EQ(
      host_git(workspace_, {"config", "includeIf.gitdir:/.path", "../cfg/cond.inc"}).exit_code, 0);
  make_script(workspace_ / "tools" / "fsmon-control.sh", ran(), "fsmonitor");
  own_tree(workspace_);
  own(outside_);
  const std::string fsmonitor =
      "printf '[core]\\n\\tfsmonitor = " + (workspace_ / "tools" / "evil.sh").string() + "\\n' >> ";
  const auto result = run(
      {"/bin/sh", "-c",
       plant("tools/evil.sh") + fsmonitor + "tools/git.inc; " + fsmonitor + "cfg/cond.inc; exit 0"},
      {}, as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(read_file(workspace_ / "tools" / "git.inc"), "[user]\n\tname = t\n");
  EXPECT_EQ(read_file(workspace_ / "cfg" / "cond.inc"), "[user]\n\temail = t@example.invalid\n");
  ASSERT_EQ(host_git(workspace_, {"status", "--short"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(marker())) << "an included core.fsmonitor ran on the host";
  // Control: an fsmonitor named in that included file does run.
  write_file(
      workspace_ / "tools" / "git.inc",
      "[core]\n\tfsmonitor = " + (workspace_ / "tools" / "fsmon-control.sh").string() + "\n");
  host_git(workspace_, {"status", "--short"});
  EXPECT_TRUE(contains(read_file(ran()), "fsmonitor")) << "control: git ran the included fsmonitor";
}

TEST_P(GitTest, FsmonitorAndSshCommandProgramsInTheWorkspaceCannotBeRewritten) {
  set_policy(kWorkspaceWrite);
  make_repository(workspace_);
  make_script(workspace_ / "tools" / "fsmon.sh", ran(), "fsmonitor");
  make_script(workspace_ / "tools" / "ssh.sh", ran(), "ssh");
  ASSERT_EQ(host_git(workspace_, {"config", "core.fsmonitor", "tools/fsmon.sh"}).exit_code, 0);
  ASSERT_EQ(host_git(workspace_, {"config", "core.sshCommand", "tools/ssh.sh -o BatchMode=yes"})
                .exit_code,
            0);
  own_tree(workspace_);
  own(outside_);
  const auto result =
      run({"/bin/sh", "-c", plant("tools/fsmon.sh") + plant("tools/ssh.sh") + "exit 0"}, {},
          as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  host_git(workspace_, {"status", "--short"});
  host_git(workspace_, {"ls-remote", "ssh://git.example.invalid/repo"});
  const std::string ran_text = read_file(ran());
  EXPECT_TRUE(contains(ran_text, "fsmonitor")) << "control: git runs core.fsmonitor";
  EXPECT_TRUE(contains(ran_text, "ssh")) << "control: git runs core.sshCommand";
  EXPECT_FALSE(fs::exists(marker())) << "a rewritten program ran on the host";
}

TEST_P(GitTest, AWorkspaceLaidOutAsABareRepositoryIsRefused) {
  set_policy(kWorkspaceWrite);
  make_file(workspace_ / "HEAD", "ref: refs/heads/main\n");
  fs::create_directories(workspace_ / "objects");
  fs::create_directories(workspace_ / "refs");
  make_file(workspace_ / "config", "[core]\n\tbare = false\n\tworktree = .\n");
  own_tree(workspace_);
  const auto result = run({"/bin/sh", "-c", "echo ran > ran"}, {}, as_caller());
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_TRUE(contains(result.err, "workspace-is-bare-repository")) << result.err;
  EXPECT_TRUE(contains(result.err, "safe.bareRepository")) << result.err;
  EXPECT_FALSE(fs::exists(workspace_ / "ran"));
}

TEST_P(GitTest, ABareLayoutTheCommandMakesIsReportedAndSafeBareRepositoryStopsIt) {
  set_policy(kWorkspaceWrite);
  own_tree(workspace_);
  own(outside_);
  const fs::path report = outside_ / "report.json";
  const auto result = run(
      {"/bin/sh", "-c",
       "mkdir -p objects refs/heads && echo 'ref: refs/heads/main' > HEAD && " + plant("evil.sh") +
           "printf '[core]\\n\\tworktree = .\\n\\tfsmonitor = ./evil.sh\\n\\t"
           "sshCommand = ./evil.sh\\n' > config"},
      {"--report", report.string()}, as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.err, "bare git repository layout")) << result.err;
  EXPECT_TRUE(contains(result.err, "safe.bareRepository explicit")) << result.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(report)).at("after").at("bare"),
            nlohmann::json::array({workspace_.string()}));
  EXPECT_EQ(last_record().at("after").at("bare"), nlohmann::json::array({workspace_.string()}));
  // What doctor recommends keeps git from taking the directory for a
  // repository. (git 2.39 refuses `status` in such a layout, "must be run
  // in a work tree"; `fetch` needs none and runs core.sshCommand.)
  const std::vector<std::string> fetch = {"fetch", "ssh://git.example.invalid/repo"};
  std::vector<std::string> explicit_fetch = {"-c", "safe.bareRepository=explicit"};
  explicit_fetch.insert(explicit_fetch.end(), fetch.begin(), fetch.end());
  host_git(workspace_, explicit_fetch);
  EXPECT_FALSE(fs::exists(marker()));
  // Control: without it, git obeys the layout the command made.
  host_git(workspace_, fetch);
  EXPECT_TRUE(fs::exists(marker())) << "control: git took the layout for a repository";
  // And the next launch refuses the workspace.
  EXPECT_EQ(run({"/bin/true"}, {}, as_caller()).exit_code, 125);
}

TEST_P(GitTest, ARepositoryTheCommandCreatesIsReported) {
  set_policy(kWorkspaceWrite);
  own_tree(workspace_);
  const auto result = run({"/usr/bin/git", "init", "-q", "sub"}, {}, as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string git = (workspace_ / "sub" / ".git").string();
  EXPECT_TRUE(contains(result.err, "created git repositories at " + git)) << result.err;
  EXPECT_EQ(last_record().at("after").at("repositories"), nlohmann::json::array({git}));
  // The next launch protects it like any repository found at the start.
  const auto second =
      run({"/bin/sh", "-c", "echo evil >> sub/.git/config; exit 0"}, {}, as_caller());
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_FALSE(contains(read_file(workspace_ / "sub" / ".git" / "config"), "evil"));
}

INSTANTIATE_TEST_SUITE_P(Callers, GitTest, ::testing::Values(Caller::root, Caller::user),
                         caller_name);

}  // namespace
}  // namespace holdfast::run::testing
