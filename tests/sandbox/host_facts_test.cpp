// The thin host step, on real files.
#include "launcher/sandbox/host_facts.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

#include "base/system_error.hpp"
#include "launcher/sandbox/admission.hpp"
#include "launcher/sandbox/refusal.hpp"
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
  EXPECT_THROW(probe_path(t.path("loop1/x")), base::SystemError);
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

// A neighbour swaps a FIFO and the ".git" file back and forth while the
// launch looks: a FIFO met between the look and the read must not hold the
// launch in open() (nobody ever writes it). Each probe either reads the
// gitdir or refuses; with a blocking open this test never ends.
TEST(ProbePath, AGitFileSwappedForAFifoNeitherHangsNorIsRead) {
  TempTree t;
  t.file("wt/.git", "gitdir: ../repo\n");
  const std::string git = t.path("wt/.git");
  const std::string fifo = t.path("wt/fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  std::atomic<bool> stop = false;
  std::thread swapper([&] {
    while (!stop) ::renameat2(AT_FDCWD, git.c_str(), AT_FDCWD, fifo.c_str(), RENAME_EXCHANGE);
  });
  int gitdir_read = 0;
  int refused = 0;
  for (int i = 0; i < 5000; ++i) {
    try {
      const auto facts = probe_path(git);
      if (facts.gitdir) {
        EXPECT_EQ(*facts.gitdir, t.path("wt/../repo"));
        ++gitdir_read;
      }
    } catch (const Refused&) {
      ++refused;
    }
  }
  stop = true;
  swapper.join();
  EXPECT_GT(gitdir_read, 0) << "the regular file was never read (" << refused << " refused)";
}

FactsRequest request_for(const TempTree& t, std::string workspace, std::string cwd) {
  settings::ScopePaths scope;
  scope.system_dir = t.path("etc-holdfast");
  scope.config_dir = t.path("home/.config/holdfast");
  FactsRequest request;
  request.workspace = workspace;
  request.cwd = cwd;
  request.scope_paths = scope;
  request.home = t.path("home");
  request.tmpdir = "/tmp";
  request.environment = std::vector<std::pair<std::string, std::string>>{
      {"PATH", "/usr/bin"}, {"SECRET", "s"}, {"LC_ALL", "C"}};
  return request;
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
  // A name the walk did not see there is missing: it is not looked at again.
  EXPECT_FALSE(facts.paths.contains(t.path("real/ws/.holdfast")));
  EXPECT_TRUE(facts.tree.listed.contains(t.path("real/ws")));
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

TEST(ProbePath, RecordsTheIdentityOfEveryComponentAndRefusesOneThatChanged) {
  TempTree t;
  t.dir("a/b");
  std::map<std::string, FileId> identities;
  const auto f = probe_path(t.path("a/b"), &identities);
  struct stat st {};
  ASSERT_EQ(::stat(t.path("a").c_str(), &st), 0);
  EXPECT_EQ(identities.at(t.path("a")), (FileId{st.st_dev, st.st_ino}));
  ASSERT_EQ(::stat(t.path("a/b").c_str(), &st), 0);
  EXPECT_EQ(identities.at(t.path("a/b")), (FileId{st.st_dev, st.st_ino}));
  EXPECT_EQ(f.id, (FileId{st.st_dev, st.st_ino}));
  EXPECT_TRUE(identities.contains("/"));
  // The same path again, now a symlink to another directory: the two
  // looks disagree, and the launch is refused rather than built from both.
  t.dir("elsewhere");
  std::filesystem::rename(t.path("a/b"), t.path("a/b.moved"));
  t.symlink("a/b", "../elsewhere");
  try {
    probe_path(t.path("a/b"), &identities);
    FAIL() << "a path that changed between two looks was accepted";
  } catch (const Refused& refused) {
    ASSERT_EQ(refused.refusals().size(), 1u);
    EXPECT_EQ(refused.refusals()[0].rule, "path-changed-during-launch");
    EXPECT_EQ(refused.refusals()[0].path, t.path("a/b"));
  }
}

// Within one gathering (a cache), each path is looked at once: a second
// probe through a path already met gets the first answer, existing or not,
// so the facts agree with themselves, and the kernel is not asked again
// for the prefixes that every probe walks.
TEST(ProbePath, ThroughACacheAPathIsLookedAtOnce) {
  TempTree t;
  t.dir("a/b");
  std::map<std::string, FileId> identities;
  LstatCache cache;
  const auto first = probe_path(t.path("a/b"), &identities, nullptr, &cache);
  EXPECT_TRUE(cache.contains("/"));
  EXPECT_TRUE(cache.contains(t.path("a")));
  EXPECT_FALSE(probe_path(t.path("a/missing"), &identities, nullptr, &cache).exists());
  // Both changed on the host since: the cache keeps the first answers.
  t.dir("elsewhere");
  std::filesystem::rename(t.path("a/b"), t.path("a/b.moved"));
  t.symlink("a/b", "../elsewhere");
  t.dir("a/missing");
  const auto again = probe_path(t.path("a/b"), &identities, nullptr, &cache);
  EXPECT_EQ(again.id, first.id);
  EXPECT_TRUE(again.symlinks.empty());
  EXPECT_FALSE(probe_path(t.path("a/missing"), &identities, nullptr, &cache).exists());
  // Without the cache the change is seen (and refused, as above).
  EXPECT_THROW(probe_path(t.path("a/b"), &identities), Refused);
}

TEST(FindNestedRepositories, FindsGitDirectoriesAndFilesBreadthFirst) {
  TempTree t;
  t.dir("ws/.git/modules/lib");  // the root's own: not listed, not entered
  t.dir("ws/sub/.git/objects");  // a nested repository
  t.file("ws/lib/.git", "gitdir: ../.git/modules/lib\n");  // a submodule checkout
  t.dir("ws/a/b/c/deep/.git");
  t.dir("ws/node_modules/pkg/.git");  // package trees are not entered
  t.dir("outside/repo/.git");
  t.symlink("ws/link", "../outside/repo");  // symlinks are not followed
  t.dir("ws/linked");
  t.symlink("ws/linked/.git", "../../outside/repo/.git");
  std::size_t budget = 1000;
  RepoScan scan;
  const auto found = find_nested_repositories(t.path("ws"), budget, scan);
  // Breadth first: the shallow ones (in directory order) before the deep one.
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(std::set<std::string>(found.begin(), found.begin() + 2),
            (std::set<std::string>{t.path("ws/lib/.git"), t.path("ws/sub/.git")}));
  EXPECT_EQ(found[2], t.path("ws/a/b/c/deep/.git"));
  EXPECT_TRUE(scan.complete);
  // ws, sub, lib, a, linked, a/b, a/b/c, a/b/c/deep.
  EXPECT_EQ(scan.directories, 8u);
  EXPECT_EQ(budget, 1000u - 8u);
}

TEST(FindNestedRepositories, StopsAtTheBudgetAndSaysSo) {
  TempTree t;
  t.dir("ws/near/.git");
  t.dir("ws/x/y/z/far/.git");
  std::size_t budget = 3;  // ws, near, x
  RepoScan scan;
  const auto found = find_nested_repositories(t.path("ws"), budget, scan);
  EXPECT_EQ(found, std::vector<std::string>{t.path("ws/near/.git")});
  EXPECT_FALSE(scan.complete);
  EXPECT_EQ(scan.directories, 3u);
  EXPECT_EQ(budget, 0u);
}

TEST(SubmodulePaths, ReadsPathLinesAndSkipsWhatCouldLeaveTheCheckout) {
  EXPECT_EQ(submodule_paths("[submodule \"lib\"]\n\tpath = third_party/lib\n\turl = x\n"
                            "[submodule \"b\"]\n  path=\"b c\" \r\n"
                            "\tpath = /etc\n\tpath = ../up\n\tpath = a/../../b\n\tpathx = no\n"
                            "\tpath =\n"),
            (std::vector<std::string>{"third_party/lib", "b c"}));
  std::string many;
  for (int i = 0; i < 2000; ++i) many += "path = m" + std::to_string(i) + "\n";
  EXPECT_EQ(submodule_paths(many).size(), kMaxSubmodules);
}

TEST(GatherHostFacts, SubmoduleCheckoutsAreFoundBeyondTheScanBudget) {
  TempTree t;
  t.file("ws/.gitmodules", "[submodule \"deep\"]\n\tpath = a/b/c/d/lib\n");
  t.file("ws/a/b/c/d/lib/.git", "gitdir: ../../../../../.git/modules/lib\n");
  t.dir("ws/.git/modules/lib");
  FactsRequest request = request_for(t, t.path("ws"), t.path("ws"));
  request.repo_scan_budget = 1;  // the workspace itself only
  const auto facts = gather_host_facts(default_policy(), request);
  EXPECT_FALSE(facts.repo_scan.complete);
  EXPECT_EQ(facts.nested_git, std::vector<std::string>{t.path("ws/a/b/c/d/lib/.git")});
}

TEST(GatherHostFacts, NestedRepositoriesStateDirectoryAndSettingsFilesAreLookedAt) {
  TempTree t;
  t.dir("ws/sub/.git");
  t.file("ws/wt/.git", "gitdir: ../store/wt.git\n");
  t.dir("ws/store/wt.git");
  t.dir("state");
  t.file("etc-holdfast/settings.json", "{}\n");
  FactsRequest request = request_for(t, t.path("ws"), t.path("ws"));
  request.state_dir = t.path("state");
  struct stat st {};
  ASSERT_EQ(::stat(t.path("etc-holdfast/settings.json").c_str(), &st), 0);
  request.settings_files = {{t.path("etc-holdfast/settings.json"), FileId{st.st_dev, st.st_ino}}};
  const auto facts = gather_host_facts(default_policy(), request);
  std::vector<std::string> nested = facts.nested_git;
  std::sort(nested.begin(), nested.end());
  EXPECT_EQ(nested, (std::vector<std::string>{t.path("ws/sub/.git"), t.path("ws/wt/.git")}));
  EXPECT_EQ(facts.at(t.path("ws/wt/.git")).gitdir, t.path("ws/wt/../store/wt.git"));
  EXPECT_EQ(facts.at(t.path("ws/wt/../store/wt.git")).canonical, t.path("ws/store/wt.git"));
  ASSERT_TRUE(facts.state_dir.has_value());
  EXPECT_EQ(facts.state_dir->canonical, t.path("state"));
  ASSERT_EQ(facts.settings_files.size(), 1u);
  EXPECT_EQ(facts.settings_files[0].read, facts.settings_files[0].facts.id);
  EXPECT_EQ(facts.settings_files[0].facts.links, 1u);
  EXPECT_TRUE(facts.repo_scan.complete);
}

}  // namespace
}  // namespace holdfast::sandbox
