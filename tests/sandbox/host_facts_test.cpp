// The thin host step, on real files.
#include "launcher/sandbox/host_facts.hpp"

#include <gtest/gtest.h>

#include "launcher/sandbox/admission.hpp"
#include "settings/errors.hpp"
#include "temp_tree.hpp"

namespace holdfast::sandbox {
namespace {

using testing::TempTree;

TEST(ProbePath, DirectoryFileAndMissing) {
  TempTree t;
  t.dir("d");
  t.file("d/f");
  const auto d = probe_path(t.path("d"));
  EXPECT_EQ(d.kind, Kind::directory);
  EXPECT_EQ(d.canonical, t.path("d"));
  EXPECT_TRUE(d.symlinks.empty());
  EXPECT_EQ(probe_path(t.path("d/f")).kind, Kind::file);
  const auto m = probe_path(t.path("d/no/such"));
  EXPECT_EQ(m.kind, Kind::missing);
  EXPECT_EQ(m.canonical, t.path("d/no/such"));
  EXPECT_EQ(m.existing_ancestor, t.path("d"));
  EXPECT_EQ(probe_path("/dev/null").kind, Kind::other);
}

TEST(ProbePath, SymlinksAreResolvedAndRecorded) {
  TempTree t;
  t.dir("real/inner");
  t.symlink("rel", "real");               // relative target
  t.symlink("abs", t.path("rel/inner"));  // absolute target through another link
  const auto f = probe_path(t.path("abs/x"));
  EXPECT_EQ(f.kind, Kind::missing);
  EXPECT_EQ(f.canonical, t.path("real/inner/x"));
  ASSERT_EQ(f.symlinks.size(), 2u);
  EXPECT_EQ(f.symlinks[0], (SymlinkHop{t.path("abs"), t.root()}));
  EXPECT_EQ(f.symlinks[1], (SymlinkHop{t.path("rel"), t.root()}));
  EXPECT_FALSE(f.link_target.has_value());  // "x" itself is no link

  const auto last = probe_path(t.path("rel"));
  EXPECT_EQ(last.kind, Kind::directory);
  EXPECT_EQ(last.link_target, "real");
  EXPECT_EQ(last.canonical, t.path("real"));
}

TEST(ProbePath, DotDotInALinkTargetIsResolvedAgainstTheRealParent) {
  TempTree t;
  t.dir("a/b");
  t.dir("c");
  t.symlink("a/b/up", "../../c");
  EXPECT_EQ(probe_path(t.path("a/b/up")).canonical, t.path("c"));
}

TEST(ProbePath, SymlinkLoopIsAnErrorNotAGuess) {
  TempTree t;
  t.symlink("loop1", "loop2");
  t.symlink("loop2", "loop1");
  EXPECT_THROW(probe_path(t.path("loop1/x")), settings::SystemError);
}

TEST(ProbePath, GitFileGitdirIsReadAndMadeAbsolute) {
  TempTree t;
  t.file("wt/.git", "gitdir: ../repo/.git/worktrees/wt\n");
  t.dir("repo/.git/worktrees/wt");
  const auto f = probe_path(t.path("wt/.git"));
  EXPECT_EQ(f.kind, Kind::file);
  EXPECT_EQ(f.gitdir, t.path("wt/../repo/.git/worktrees/wt"));
  EXPECT_EQ(probe_path(*f.gitdir).canonical, t.path("repo/.git/worktrees/wt"));
  t.file("plain/.git", "not a gitdir line\n");
  EXPECT_FALSE(probe_path(t.path("plain/.git")).gitdir.has_value());
}

FactsRequest request_for(const TempTree& t, std::string workspace, std::string cwd) {
  settings::ScopePaths scope;
  scope.system_dir = t.path("etc-holdfast");
  scope.config_dir = t.path("home/.config/holdfast");
  return FactsRequest{workspace,
                      cwd,
                      scope,
                      t.path("home"),
                      "/tmp",
                      std::vector<std::pair<std::string, std::string>>{
                          {"PATH", "/usr/bin"}, {"SECRET", "s"}, {"LC_ALL", "C"}}};
}

TEST(GatherHostFacts, SymlinkedWorkspaceIsCanonicalised) {
  TempTree t;
  t.dir("real/ws/sub");
  t.dir("real/ws/.git");
  t.symlink("link", "real");
  const auto facts =
      gather_host_facts(default_policy(), request_for(t, t.path("link/ws"), t.path("link/ws/sub")));
  EXPECT_EQ(facts.workspace.path, t.path("link/ws"));
  EXPECT_EQ(facts.workspace.canonical, t.path("real/ws"));
  EXPECT_EQ(facts.tokens.workspace, t.path("real/ws"));
  EXPECT_EQ(facts.cwd.canonical, t.path("real/ws/sub"));
  // Protected names under the writable workspace, by canonical path.
  EXPECT_EQ(facts.at(t.path("real/ws/.git")).kind, Kind::directory);
  EXPECT_EQ(facts.at(t.path("real/ws/.holdfast")).kind, Kind::missing);
  EXPECT_TRUE(check_admission(default_policy(), facts).empty());
}

TEST(GatherHostFacts, RelativeWorkspaceIsTakenFromTheCwd) {
  TempTree t;
  t.dir("ws");
  const auto facts = gather_host_facts(default_policy(), request_for(t, "ws", t.root()));
  EXPECT_EQ(facts.workspace.canonical, t.path("ws"));
}

TEST(GatherHostFacts, EnvironmentIsAllowListedAndTokensFilled) {
  TempTree t;
  t.dir("ws");
  const auto facts =
      gather_host_facts(default_policy(), request_for(t, t.path("ws"), t.path("ws")));
  EXPECT_EQ(facts.environment, (std::vector<std::pair<std::string, std::string>>{
                                   {"PATH", "/usr/bin"}, {"LC_ALL", "C"}}));
  EXPECT_EQ(facts.tokens.home, t.path("home"));
  EXPECT_EQ(facts.tokens.tmpdir, "/tmp");
  EXPECT_NE(std::find(facts.tokens.minimal.begin(), facts.tokens.minimal.end(), "/usr"),
            facts.tokens.minimal.end());
  ASSERT_EQ(facts.operator_dirs.size(), 2u);
  EXPECT_EQ(facts.operator_dirs[1].canonical, t.path("home/.config/holdfast"));
}

TEST(GatherHostFacts, CarveOutThroughASymlinkInTheWorkspaceIsRefused) {
  TempTree t;
  t.dir("ws/real/keys");
  t.symlink("ws/link", "real");
  Policy p = default_policy();
  p.filesystem.push_back(Entry{":workspace/link/keys", Access::deny, ":workspace/link/keys", {}});
  const auto facts = gather_host_facts(p, request_for(t, t.path("ws"), t.path("ws")));
  const auto refusals = check_admission(p, facts);
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_EQ(refusals[0].rule, "carve-out-through-writable-symlink");
  EXPECT_EQ(refusals[0].entry, ":workspace/link/keys");
  EXPECT_NE(refusals[0].remedy.find(t.path("ws/real/keys")), std::string::npos);
}

}  // namespace
}  // namespace holdfast::sandbox
