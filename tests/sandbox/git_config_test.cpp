// git's configuration syntax, as git itself reads it, and the paths its
// settings name (hooks, includes, working tree, programs).
#include "launcher/sandbox/git_config.hpp"

#include <gtest/gtest.h>

namespace holdfast::sandbox {
namespace {

using E = GitConfigEntry;

TEST(ParseGitConfig, SectionsSubsectionsKeysAndValues) {
  EXPECT_EQ(parse_git_config("[core]\n"
                             "\tbare = false\n"
                             "  HooksPath=.husky  \n"
                             "[remote \"Origin\"]\n"
                             "\turl = https://x/y.git\n"
                             "[Branch.Main]\n"
                             "\tremote = origin\n"
                             "[includeIf \"gitdir:~/work/\"]\n"
                             "\tpath = ~/work.inc\n"),
            (std::vector<E>{{"core", "", "bare", "false"},
                            {"core", "", "hookspath", ".husky"},
                            {"remote", "Origin", "url", "https://x/y.git"},
                            {"branch", "main", "remote", "origin"},
                            {"includeif", "gitdir:~/work/", "path", "~/work.inc"}}));
}

TEST(ParseGitConfig, QuotesEscapesCommentsContinuationsAndBareKeys) {
  EXPECT_EQ(parse_git_config("; a comment\n"
                             "# another\n"
                             "[core] fsmonitor = \"./tools/fs mon\" # comment\n"
                             "\tsshCommand = ssh \\\n   -i ./key ; comment\n"
                             "\tpager = a\\tb\\\\c\\\"d\n"
                             "\tquoted = \"x;y#z\"\n"
                             "\tbool\n"
                             "\tspaced =   a   b   \r\n"
                             "[sub \"a\\\"b\\\\c\"]\n"
                             "\tk = v\n"),
            (std::vector<E>{{"core", "", "fsmonitor", "./tools/fs mon"},
                            {"core", "", "sshcommand", "ssh    -i ./key"},
                            {"core", "", "pager", "a\tb\\c\"d"},
                            {"core", "", "quoted", "x;y#z"},
                            {"core", "", "bool", ""},
                            {"core", "", "spaced", "a   b"},
                            {"sub", "a\"b\\c", "k", "v"}}));
}

TEST(ParseGitConfig, SkipsWhatGitWouldRefuseAndGoesOn) {
  EXPECT_EQ(parse_git_config("key = before any section\n"
                             "[bad section\n"
                             "\tlost = 1\n"
                             "[ok]\n"
                             "\tunterminated = \"abc\n"
                             "\tescape = a\\qb\n"
                             "\t9digit = x\n"
                             "\tnoequals value\n"
                             "\tgood = yes\n"
                             "[\"\"]\n"
                             "\tlost = 2\n"
                             "[core]\n"
                             "\thookspath = last"),
            (std::vector<E>{{"ok", "", "good", "yes"}, {"core", "", "hookspath", "last"}}));
  EXPECT_TRUE(parse_git_config("").empty());
  EXPECT_TRUE(parse_git_config(std::string(100000, '[')).empty());
}

TEST(GitPathSettings, HooksIncludesWorktreeAndTheProgramsGitRuns) {
  const auto settings = git_path_settings({
      {"core", "", "hookspath", ".husky"},
      {"include", "", "path", "../shared.inc"},
      {"includeif", "gitdir:/w/", "path", "/etc/x.inc"},
      {"core", "", "worktree", "../tree"},
      {"core", "", "fsmonitor", "true"},  // git's own daemon, not a program
      {"core", "", "fsmonitor", "./hooks/fsmonitor-watchman"},
      {"core", "", "sshcommand", "ssh -i ./keys/id -o UserKnownHostsFile=/dev/null"},
      {"alias", "", "st", "!./scripts/st.sh --short"},
      {"alias", "", "co", "checkout"},                      // a git command, runs nothing else
      {"filter", "lfs", "smudge", "git-lfs smudge -- %f"},  // on PATH
      {"filter", "x", "clean", "tools/clean.py"},
      {"diff", "pdf", "textconv", "\"bin/pdf to text\""},
      {"credential", "", "helper", "/usr/lib/git-core/git-credential-store"},
      {"gpg", "ssh", "program", "~/bin/sign"},
      {"submodule", "lib", "update", "!sh ./update.sh"},
      {"remote", "origin", "uploadpack", "./up"},
      {"core", "", "editor", "vim"},
      {"user", "", "name", "me/you"},  // not a program
  });
  const auto kind = GitPathKind::program;
  EXPECT_EQ(settings,
            (std::vector<GitPathSetting>{
                {"core.hooksPath", GitPathKind::hooks, ".husky", true},
                {"include.path", GitPathKind::include, "../shared.inc", true},
                {"includeif.gitdir:/w/.path", GitPathKind::include, "/etc/x.inc", true},
                {"core.worktree", GitPathKind::worktree, "../tree", true},
                {"core.fsmonitor", kind, "./hooks/fsmonitor-watchman", true},
                {"core.sshcommand", kind, "./keys/id", false},
                {"core.sshcommand", kind, "UserKnownHostsFile=/dev/null", false},
                {"alias.st", kind, "./scripts/st.sh", true},
                {"filter.x.clean", kind, "tools/clean.py", true},
                {"diff.pdf.textconv", kind, "bin/pdf to text", true},
                {"credential.helper", kind, "/usr/lib/git-core/git-credential-store", true},
                {"gpg.ssh.program", kind, "~/bin/sign", true},
                {"submodule.lib.update", kind, "./update.sh", false},
                {"remote.origin.uploadpack", kind, "./up", true},
            }));
}

TEST(ResolveGitPath, HomeRelativeAbsoluteAndWhatItCannotKnow) {
  EXPECT_EQ(resolve_git_path("~/x/y", "/base", "/home/u"), "/home/u/x/y");
  EXPECT_EQ(resolve_git_path("~/x", "/base", ""), std::nullopt);
  EXPECT_EQ(resolve_git_path("/etc//x", "/base", "/home/u"), "/etc/x");
  EXPECT_EQ(resolve_git_path(".husky", "/ws", "/home/u"), "/ws/.husky");
  EXPECT_EQ(resolve_git_path("../x.inc", "/ws/.git", "/home/u"), "/ws/.git/../x.inc");
  EXPECT_EQ(resolve_git_path(":(optional)../o.inc", "/ws/.git", ""), "/ws/.git/../o.inc");
  EXPECT_EQ(resolve_git_path("~other/x", "/ws", "/home/u"), std::nullopt);
  EXPECT_EQ(resolve_git_path("%(prefix)/etc/x", "/ws", "/home/u"), std::nullopt);
  EXPECT_EQ(resolve_git_path("", "/ws", "/home/u"), std::nullopt);
  EXPECT_EQ(resolve_git_path("x", "", "/home/u"), std::nullopt);
}

}  // namespace
}  // namespace holdfast::sandbox
