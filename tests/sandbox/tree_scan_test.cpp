// The walk of a writable root on real directories, and the comparison of
// two walks (pure: hand-made scans).
#include "launcher/sandbox/tree_scan.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "temp_tree.hpp"

namespace holdfast::sandbox {
namespace {

using testing::TempTree;

TEST(ScanTree, FindsProtectedNamesRepositoriesAndBareLayoutsWithoutFollowingLinks) {
  TempTree t;
  t.dir("ws/.vscode");
  t.file("ws/sub/.npmrc");
  t.dir("ws/sub/.git");
  t.file("ws/sub/.git/config");  // never entered
  t.file("ws/bare.git/HEAD", "ref: refs/heads/main\n");
  t.dir("ws/bare.git/objects");
  t.dir("ws/bare.git/refs");
  t.file("ws/half/HEAD");  // no objects/ or refs/: not a repository
  t.dir("ws/half/refs");
  t.dir("ws/node_modules/pkg/.claude");  // not entered
  t.dir("outside/.claude");
  t.symlink("ws/link", "../outside");       // not followed
  t.symlink("ws/.envrc", "/etc/hostname");  // a link with a protected name is met
  std::size_t budget = 100;
  TreeScan scan;
  scan_tree(t.path("ws"), builtin_protected_names(), budget, scan);
  std::sort(scan.names.begin(), scan.names.end());
  EXPECT_EQ(scan.names, (std::vector<std::string>{t.path("ws/.envrc"), t.path("ws/.vscode"),
                                                  t.path("ws/sub/.git"), t.path("ws/sub/.npmrc")}));
  EXPECT_EQ(scan.git, std::vector<std::string>{t.path("ws/sub/.git")});
  EXPECT_EQ(scan.bare, std::vector<std::string>{t.path("ws/bare.git")});
  EXPECT_TRUE(scan.complete);
  EXPECT_TRUE(scan.listed.contains(t.path("ws/sub")));
  EXPECT_FALSE(scan.listed.contains(t.path("ws/node_modules")));
  EXPECT_TRUE(scan.subdirs.contains(t.path("ws/node_modules")));
  EXPECT_FALSE(scan.subdirs.contains(t.path("ws/link")));
  EXPECT_EQ(scan.roots, std::vector<std::string>{t.path("ws")});
}

TEST(ScanTree, TheRootIsReadEvenWithNoBudgetLeft) {
  TempTree t;
  t.dir("ws/.claude");
  t.dir("ws/deep/.vscode");
  std::size_t budget = 0;
  TreeScan scan;
  scan_tree(t.path("ws"), builtin_protected_names(), budget, scan);
  EXPECT_EQ(scan.names, std::vector<std::string>{t.path("ws/.claude")});
  EXPECT_FALSE(scan.complete);
  EXPECT_EQ(scan.directories, 1u);
  EXPECT_EQ(budget, 0u);
}

// A root wider than the project: the budget's end is no refusal but a
// recorded depth, the directories the project's walk read are not read
// again, and /proc is not entered.
TEST(ScanTree, AWideRootRecordsHowDeepItGotAndSkipsWhatAnEarlierWalkRead) {
  TempTree t;
  t.file("home/ws/a/.envrc");
  t.dir("home/p1/src/.git");
  t.dir("home/p2/src");
  t.dir("home/.claude");
  std::size_t budget = 4;
  TreeScan scan;
  scan_tree(t.path("home/ws"), builtin_protected_names(), budget, scan);  // ws, a
  ASSERT_EQ(budget, 2u);
  scan_tree(t.path("home"), builtin_protected_names(), budget, scan, WalkEnd::best_effort);
  EXPECT_TRUE(scan.complete);
  EXPECT_TRUE(scan.unfinished.empty());
  // home and one of p1, p2 read: the entries one level below home were all seen.
  EXPECT_EQ(scan.partial, (std::vector<PartialWalk>{{t.path("home"), 1}}));
  EXPECT_EQ(scan.directories, 4u);
  EXPECT_TRUE(scan.listed.contains(t.path("home/ws/a")));
  EXPECT_FALSE(scan.listed.contains(t.path("home/p1/src")));
  EXPECT_TRUE(std::find(scan.names.begin(), scan.names.end(), t.path("home/.claude")) !=
              scan.names.end());
  EXPECT_EQ(scan.best_effort, std::set<std::string>{t.path("home")});

  // With budget for both: the project's two directories are read once.
  std::size_t enough = 100;
  TreeScan whole;
  scan_tree(t.path("home/ws"), builtin_protected_names(), enough, whole);
  scan_tree(t.path("home"), builtin_protected_names(), enough, whole, WalkEnd::best_effort);
  EXPECT_TRUE(whole.partial.empty());
  EXPECT_EQ(whole.directories, 8u);  // ws, a; home, p1, p1/src, p2, p2/src, .claude

  std::size_t plenty = 100;
  TreeScan proc;
  scan_tree("/proc", builtin_protected_names(), plenty, proc, WalkEnd::best_effort);
  EXPECT_TRUE(proc.listed.empty());
  EXPECT_EQ(proc.directories, 1u);
}

TEST(ScanTree, AnUnfinishedProjectWalkNamesItsRoot) {
  TempTree t;
  t.dir("ws/a/b");
  std::size_t budget = 1;
  TreeScan scan;
  scan_tree(t.path("ws"), builtin_protected_names(), budget, scan);
  EXPECT_FALSE(scan.complete);
  EXPECT_EQ(scan.unfinished, t.path("ws"));
  EXPECT_TRUE(scan.partial.empty());
}

// Scans as the walk would leave them: `listed` directories read, each with
// the subdirectories it held.
TreeScan scan_of(std::vector<std::string> listed, std::vector<std::string> subdirs,
                 std::vector<std::string> names = {}, std::vector<std::string> git = {},
                 std::vector<std::string> bare = {}) {
  TreeScan s;
  s.roots = {"/ws"};
  s.listed = {listed.begin(), listed.end()};
  s.subdirs = {subdirs.begin(), subdirs.end()};
  s.names = std::move(names);
  s.git = std::move(git);
  s.bare = std::move(bare);
  return s;
}

TEST(CompareScans, ReportsWhatAppearedWhereTheFirstWalkCanProveIt) {
  const TreeScan before = scan_of({"/ws", "/ws/a"}, {"/ws/a", "/ws/far"}, {"/ws/.vscode"});
  const TreeScan after = scan_of({"/ws", "/ws/a", "/ws/new", "/ws/new/deep", "/ws/far"},
                                 {"/ws/a", "/ws/far", "/ws/new", "/ws/new/deep"},
                                 {"/ws/.vscode",         // there before
                                  "/ws/a/.envrc",        // in a directory read before
                                  "/ws/new/deep/.idea",  // in a new directory
                                  "/ws/far/.claude",     // past the first walk: unknown
                                  "/ws/new/.git"},       // reported as a repository
                                 {"/ws/new/.git", "/ws/far/.git"}, {"/ws", "/ws/far"});
  const TreeChanges changes = compare_scans(before, after);
  EXPECT_EQ(changes.names, (std::vector<std::string>{"/ws/a/.envrc", "/ws/new/deep/.idea"}));
  EXPECT_EQ(changes.git, std::vector<std::string>{"/ws/new/.git"});
  EXPECT_EQ(changes.bare, std::vector<std::string>{"/ws"});
  EXPECT_TRUE(compare_scans(before, before).empty());
}

TEST(ChangesSince, WalksAgainAndLeavesEmptyDirectoriesOut) {
  TempTree t;
  t.dir("ws/a");
  std::size_t budget = 100;
  TreeScan before;
  scan_tree(t.path("ws"), builtin_protected_names(), budget, before);
  t.dir("ws/.vscode");  // empty: another launch's mount point looks the same
  t.file("ws/a/.claude/settings.json", "{\"hooks\": {}}\n");
  t.dir("ws/b/.git");
  t.file("ws/b/.git/HEAD");
  t.file("ws/HEAD", "ref: refs/heads/x\n");
  t.dir("ws/objects");
  t.dir("ws/refs");
  const TreeChanges changes = changes_since(before, builtin_protected_names(), 100);
  EXPECT_EQ(changes.names, std::vector<std::string>{t.path("ws/a/.claude")});
  EXPECT_EQ(changes.git, std::vector<std::string>{t.path("ws/b/.git")});
  EXPECT_EQ(changes.bare, std::vector<std::string>{t.path("ws")});
}

}  // namespace
}  // namespace holdfast::sandbox
