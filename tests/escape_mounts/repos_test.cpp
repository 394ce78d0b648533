// Repositories inside the workspace. git runs what a repository's config
// and hooks say (core.fsmonitor, core.hooksPath, hooks/*) when a person
// later types `git status` there on the host, so every repository that
// exists when the launch starts stays read-only inside, not only the
// workspace root's: nested repositories, submodule checkouts (a .git file)
// and the git directories such files point to.
#include "escape_support.hpp"

namespace holdfast::run::testing {
namespace {

class ReposTest : public EscapeTest {
 protected:
  // A minimal git directory (what the command would rewrite).
  void make_git_dir(const fs::path& dir) {
    fs::create_directories(dir / "hooks");
    write_file(dir / "config", "[core]\n\tbare = false\n");
    write_file(dir / "HEAD", "ref: refs/heads/main\n");
  }
  void own_tree(const fs::path& root) {
    own(root);
    for (const auto& entry : fs::recursive_directory_iterator(root)) own(entry.path());
  }
};

const std::string kFsmonitor = "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> ";

TEST_P(ReposTest, NestedRepositoriesAreReadOnly) {
  set_policy(kWorkspaceWrite);
  make_git_dir(workspace_ / "sub" / ".git");
  make_git_dir(workspace_ / "a" / "b" / "deep" / ".git");
  own_tree(workspace_);
  const auto result = run({"/bin/sh", "-c",
                           kFsmonitor + "sub/.git/config; " + kFsmonitor +
                               "a/b/deep/.git/config; echo x > sub/.git/hooks/post-checkout; "
                               "echo x > sub/control; exit 0"},
                          {}, as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(read_file(workspace_ / "sub" / ".git" / "config"), "[core]\n\tbare = false\n");
  EXPECT_EQ(read_file(workspace_ / "a" / "b" / "deep" / ".git" / "config"),
            "[core]\n\tbare = false\n");
  EXPECT_FALSE(fs::exists(workspace_ / "sub" / ".git" / "hooks" / "post-checkout"));
  // Control: the rest of the nested checkout is the workspace, writable.
  EXPECT_EQ(read_file(workspace_ / "sub" / "control"), "x\n");
}

// A nested repository cannot be swapped for one of the command's own: its
// directory cannot be renamed away.
TEST_P(ReposTest, NestedRepositoryCannotBeMovedAsideAndReplaced) {
  set_policy(kWorkspaceWrite);
  make_git_dir(workspace_ / "sub" / ".git");
  own_tree(workspace_);
  const auto result =
      run({"/bin/sh", "-c",
           "mv sub sub.old && mkdir -p sub/.git && echo evil > sub/.git/config; exit 0"},
          {}, as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(read_file(workspace_ / "sub" / ".git" / "config"), "[core]\n\tbare = false\n");
}

// A checkout whose .git is a file ("gitdir: ...", as submodules and
// worktrees have): the file and the git directory it names are read-only.
TEST_P(ReposTest, GitFileAndTheGitDirectoryItNamesAreReadOnly) {
  set_policy(kWorkspaceWrite);
  make_git_dir(workspace_ / "store" / "lib.git");
  fs::create_directories(workspace_ / "lib");
  write_file(workspace_ / "lib" / ".git", "gitdir: ../store/lib.git\n");
  own_tree(workspace_);
  const auto result =
      run({"/bin/sh", "-c",
           kFsmonitor + "store/lib.git/config; echo 'gitdir: /tmp/evil' > lib/.git; exit 0"},
          {}, as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(read_file(workspace_ / "store" / "lib.git" / "config"), "[core]\n\tbare = false\n");
  EXPECT_EQ(read_file(workspace_ / "lib" / ".git"), "gitdir: ../store/lib.git\n");
}

// A `.git` symlink whose target does not exist, at the writable root: the
// command replaced it with a repository of its own and planted a hook (seen
// on main after the protected names' merge, which took the dangling link for
// a name it could not guard). The launch is refused, as for any symlink on
// a protected name there.
TEST_P(ReposTest, ADanglingGitSymlinkAtTheRootIsRefused) {
  set_policy(kWorkspaceWrite);
  fs::create_symlink("/nonexistent", workspace_ / ".git");
  own(workspace_ / ".git");
  const auto result = run(
      {"/bin/sh", "-c", "rm -f .git && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit"},
      {}, as_caller());
  EXPECT_FALSE(fs::exists(workspace_ / ".git" / "hooks" / "pre-commit"))
      << "the command replaced the dangling .git symlink with a repository of its own";
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_NE(result.err.find("protected-name-is-symlink"), std::string::npos) << result.err;
}

INSTANTIATE_TEST_SUITE_P(Callers, ReposTest, ::testing::Values(Caller::root, Caller::user),
                         caller_name);

}  // namespace
}  // namespace holdfast::run::testing
