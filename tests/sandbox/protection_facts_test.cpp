// What the launch looks at on the host for protected names, git's
// configuration and credential stores, on real files.
#include "launcher/sandbox/protection_facts.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "launcher/sandbox/resolve.hpp"
#include "temp_tree.hpp"

namespace holdfast::sandbox {
namespace {

using testing::TempTree;

FactsRequest request_in(const TempTree& t, const std::string& workspace) {
  FactsRequest request;
  request.workspace = t.path(workspace);
  request.cwd = t.path(workspace);
  request.scope_paths.system_dir = t.path("etc-holdfast");
  request.scope_paths.config_dir = t.path("home/.config/holdfast");
  request.home = t.path("home");
  request.tmpdir = "/tmp";
  request.environment = std::vector<std::pair<std::string, std::string>>{};
  request.other_homes = std::vector<std::string>{};
  return request;
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

const GitTarget* target_at(const HostFacts& facts, const std::string& path) {
  for (const auto& t : facts.git_targets) {
    if (facts.at(t.path).canonical == path) return &t;
  }
  return nullptr;
}

TEST(NameFacts, TheWalkSaysWhatExistsAtTheRootAndBelow) {
  TempTree t;
  t.dir("home");
  t.dir("ws/.vscode");
  t.file("ws/pkg/.npmrc");
  t.file("ws/fixture.git/HEAD");
  t.dir("ws/fixture.git/objects");
  t.dir("ws/fixture.git/refs");
  const auto facts = gather_host_facts(default_policy(), request_in(t, "ws"));
  EXPECT_EQ(facts.writable_roots, std::vector<std::string>{t.path("ws")});
  EXPECT_EQ(facts.at(t.path("ws/.vscode")).kind, Kind::directory);
  EXPECT_FALSE(facts.paths.contains(t.path("ws/.idea")));  // missing: not looked at
  EXPECT_EQ(facts.protected_found, std::vector<std::string>{t.path("ws/pkg/.npmrc")});
  EXPECT_EQ(facts.bare_repositories, std::vector<std::string>{t.path("ws/fixture.git")});
  EXPECT_FALSE(facts.workspace_is_bare);
}

TEST(NameFacts, HomeNamesAreLookedUpAtAWritableHome) {
  TempTree t;
  t.file("home/.bashrc");
  t.dir("home/.config");
  t.dir("home/proj");
  Policy p = default_policy();
  p.filesystem.push_back(Entry{":home", Access::write, ":home", std::nullopt});
  const auto facts = gather_host_facts(p, request_in(t, "home/proj"));
  EXPECT_EQ(facts.at(t.path("home/.bashrc")).kind, Kind::file);
  EXPECT_EQ(facts.at(t.path("home/.config/git")).kind, Kind::missing);
  EXPECT_EQ(facts.at(t.path("home/.config/git")).existing_ancestor, t.path("home/.config"));
  EXPECT_EQ(resolve(build_rules(p, facts), t.path("home/.bashrc")).access, Access::read);
  EXPECT_EQ(resolve(build_rules(p, facts), t.path("home/.zshrc")).access, Access::read);
}

TEST(GitFacts, IncludesAreFollowedAndEveryPathTheyNameIsFound) {
  TempTree t;
  t.dir("home");
  t.file("ws/.git/config",
         "[core]\n\thooksPath = .husky\n[include]\n\tpath = ../cfg/a.inc\n"
         "[includeIf \"gitdir:/\"]\n\tpath = ../cfg/cond.inc\n");
  t.dir("ws/.husky");
  t.file("ws/cfg/a.inc", "[include]\n\tpath = b.inc\n[include]\n\tpath = a.inc\n");  // a cycle
  t.file("ws/cfg/b.inc", "[core]\n\tfsmonitor = tools/fsmon.sh\n");
  t.file("ws/cfg/cond.inc", "[core]\n\tsshCommand = ssh -i keys/id\n");
  t.file("ws/tools/fsmon.sh");
  t.file("home/.gitconfig", "[include]\n\tpath = ~/shared.inc\n");
  const auto facts = gather_host_facts(default_policy(), request_in(t, "ws"));
  ASSERT_NE(target_at(facts, t.path("ws/.husky")), nullptr);
  EXPECT_EQ(target_at(facts, t.path("ws/.husky"))->setting, "core.hooksPath");
  EXPECT_NE(target_at(facts, t.path("ws/cfg/a.inc")), nullptr);
  ASSERT_NE(target_at(facts, t.path("ws/cfg/b.inc")), nullptr);
  EXPECT_EQ(target_at(facts, t.path("ws/cfg/b.inc"))->file, t.path("ws/.git/../cfg/a.inc"));
  EXPECT_NE(target_at(facts, t.path("ws/cfg/cond.inc")), nullptr);
  ASSERT_NE(target_at(facts, t.path("ws/tools/fsmon.sh")), nullptr);
  EXPECT_EQ(target_at(facts, t.path("ws/tools/fsmon.sh"))->kind, GitPathKind::program);
  ASSERT_NE(target_at(facts, t.path("ws/keys/id")), nullptr);  // an argument: looked at
  EXPECT_FALSE(target_at(facts, t.path("ws/keys/id"))->first_word);
  EXPECT_NE(target_at(facts, t.path("home/shared.inc")), nullptr);  // the user's own config
  EXPECT_TRUE(has(facts.git_config_files, t.path("home/.gitconfig")));
  const auto rules = build_rules(default_policy(), facts);
  for (const char* path : {"ws/.husky/pre-commit", "ws/cfg/a.inc", "ws/cfg/b.inc",
                           "ws/cfg/cond.inc", "ws/tools/fsmon.sh"}) {
    EXPECT_EQ(resolve(rules, t.path(path)).access, Access::read) << path;
  }
  EXPECT_EQ(resolve(rules, t.path("ws/tools/other.sh")).access, Access::write);
}

TEST(GitFacts, TheRepositoryAWorkspaceLiesInIsReadToo) {
  TempTree t;
  t.dir("home");
  t.file("repo/.git/config", "[core]\n\thooksPath = app/hooks\n");
  t.dir("repo/app/hooks");
  const auto facts = gather_host_facts(default_policy(), request_in(t, "repo/app"));
  ASSERT_NE(target_at(facts, t.path("repo/app/hooks")), nullptr);
  EXPECT_EQ(
      resolve(build_rules(default_policy(), facts), t.path("repo/app/hooks/pre-commit")).access,
      Access::read);
}

TEST(GitFacts, AWorktreeBeyondTheWalkHasItsProtectedNamesFound) {
  TempTree t;
  t.dir("home");
  t.file("ws/a/b/c/tree/.gitattributes", "* filter=x\n");
  t.file("ws/.git/config", "[core]\n\tworktree = ../a/b/c/tree\n");
  FactsRequest request = request_in(t, "ws");
  request.repo_scan_budget = 1;  // the workspace itself only
  const auto facts = gather_host_facts(default_policy(), request);
  EXPECT_FALSE(facts.tree.complete);
  EXPECT_TRUE(has(facts.protected_found, t.path("ws/a/b/c/tree/.gitattributes")));
}

TEST(GitFacts, UnreadableAndLoopingPathsInProjectConfigurationStopNothing) {
  TempTree t;
  t.dir("home");
  t.dir("ws");
  t.symlink("ws/loop", "loop");
  t.file("ws/.git/config", "[core]\n\tfsmonitor = loop/x\n[include]\n\tpath = /proc/self/mem\n");
  EXPECT_NO_THROW(gather_host_facts(default_policy(), request_in(t, "ws")));
}

TEST(CredentialFacts, ExistingStoresInEveryEnterableHomeAndTheAbsoluteOnes) {
  TempTree t;
  t.dir("ws");
  t.file("home/.ssh/id_ed25519");
  t.file("home/.ssh/known_hosts");
  t.file("home/dotfiles/aws/credentials");
  t.symlink("home/.aws", "dotfiles/aws");
  t.file("other/.netrc");
  t.file("closed/.netrc");
  ::chmod(t.path("closed").c_str(), 0700);
  Policy p = default_policy();
  p.credential_stores.stores.push_back({"abs", {t.path("abs.key")}, {}, "test", std::nullopt});
  t.file("abs.key");
  HostFacts facts;
  facts.tokens.home = t.path("home");
  const Probe probe = [&](const std::string& path) -> const PathFacts& {
    return facts.paths.emplace(path, probe_path(path)).first->second;
  };
  // As a user other than the owner of "closed" (root owns every file here).
  gather_credential_facts(p, facts, probe, {t.path("other"), t.path("closed")},
                          CallerIds{4242, 4242, {}});
  EXPECT_EQ(facts.homes, (std::vector<std::string>{t.path("home"), t.path("other")}));
  std::vector<std::string> found;
  for (const auto& c : facts.credentials) {
    found.push_back(c.store + (c.keep_readable ? " kept " : " ") + c.path);
  }
  std::sort(found.begin(), found.end());
  EXPECT_EQ(found, (std::vector<std::string>{
                       "abs " + t.path("abs.key"),
                       "aws " + t.path("home/.aws"),
                       "netrc " + t.path("other/.netrc"),
                       "ssh " + t.path("home/.ssh"),
                       "ssh kept " + t.path("home/.ssh/known_hosts"),
                   }));
  EXPECT_EQ(facts.at(t.path("home/.aws")).canonical, t.path("home/dotfiles/aws"));
}

}  // namespace
}  // namespace holdfast::sandbox
