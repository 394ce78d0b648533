// The built argv run by real bubblewrap: what a confined command can and
// cannot do, for the cases the differential test does not reach (symlinked
// workspaces, creating protected names, the environment, the network,
// holdfast's own settings).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "fake_facts.hpp"
#include "launcher/sandbox/bwrap_args.hpp"
#include "run_process.hpp"
#include "temp_tree.hpp"

namespace holdfast::sandbox {
namespace {

using testing::Outcome;
using testing::TempTree;

struct Launch {
  Policy policy = default_policy();
  std::string workspace;
  std::string cwd;
  std::string home;
  settings::ScopePaths scope;
  std::vector<std::pair<std::string, std::string>> environment = {{"PATH", "/usr/bin:/bin"}};

  Outcome run(const std::string& script) const {
    FactsRequest request;
    request.workspace = workspace;
    request.cwd = cwd.empty() ? workspace : cwd;
    request.scope_paths = scope;
    request.home = home;
    request.tmpdir = "/tmp";
    request.environment = environment;
    const HostFacts facts = gather_host_facts(policy, request);
    const MountPlan mounts = plan_mounts(resolve_policy(policy, facts), facts);
    // One per denied file, kept open until bwrap has exec'd.
    BuildOptions options = testing::options(std::nullopt);
    for (std::size_t i = 0; i < mounts.empty_files; ++i) {
      options.empty_file_fds.push_back(::open("/dev/null", O_RDONLY));
    }
    const auto argv = build_bwrap_args(policy, facts, mounts, {"/bin/sh", "-c", script}, options);
    Outcome outcome = testing::run_process(argv);
    for (const int fd : options.empty_file_fds) ::close(fd);
    return outcome;
  }
};

Launch launch_in(const TempTree& t, const std::string& workspace) {
  Launch l;
  l.workspace = workspace;
  l.home = t.path("home");
  l.scope.system_dir = t.path("etc-holdfast");
  l.scope.config_dir = t.path("home/.config/holdfast");
  return l;
}

using testing::split;

// Each line of the script: "NAME" then the shell status of one attempt.
const char* kTry =
    "try() { n=$1; shift; if \"$@\" >/dev/null 2>&1; then echo \"$n ok\"; "
    "else echo \"$n refused\"; fi; }; ";

TEST(RealBwrap, SymlinkedWorkspaceStartsInTheCanonicalCwd) {
  TempTree t;
  t.dir("real/ws/sub");
  t.symlink("link", "real");
  Launch l = launch_in(t, t.path("link/ws"));
  l.cwd = t.path("link/ws/sub");
  const Outcome o = l.run("pwd; echo hi > made-inside");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, t.path("real/ws/sub") + "\n");
  EXPECT_TRUE(std::filesystem::exists(t.path("real/ws/sub/made-inside")));
}

TEST(RealBwrap, ProtectedNamesStayReadOnlyAndCannotBeCreated) {
  TempTree t;
  t.file("ws/.git/config", "[core]\n");
  Launch l = launch_in(t, t.path("ws"));
  const Outcome o = l.run(std::string(kTry) +
                          "try append-git-config sh -c 'echo x >> .git/config'; "
                          "try new-file-in-git touch .git/new; "
                          "try move-git mv .git moved; "
                          "try read-git-config cat .git/config; "
                          "try create-holdfast-file sh -c 'echo x > .holdfast/policy'; "
                          "try replace-holdfast sh -c 'rmdir .holdfast || rm -rf .holdfast'; "
                          "try write-workspace touch ok");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out,
            "append-git-config refused\nnew-file-in-git refused\nmove-git refused\n"
            "read-git-config ok\ncreate-holdfast-file refused\nreplace-holdfast refused\n"
            "write-workspace ok\n");
  std::ifstream config(t.path("ws/.git/config"));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(config), {}), "[core]\n");
  EXPECT_FALSE(std::filesystem::exists(t.path("ws/.holdfast/policy")));
}

TEST(RealBwrap, NestedRepositoryGitCannotBeReplacedByRenamingItsParent) {
  TempTree t;
  t.file("ws/.git/HEAD", "ref\n");
  t.file("ws/vendor/lib/.git/HEAD", "ref\n");
  Launch l = launch_in(t, t.path("ws"));
  l.policy = split({{":root", Access::read},
                    {":workspace", Access::write},
                    {":workspace/vendor/lib", Access::write}});
  const Outcome o = l.run(std::string(kTry) +
                          "try rename-vendor mv vendor vendor2; try rename-lib mv vendor/lib x; "
                          "try write-lib touch vendor/lib/file; try write-lib-git touch "
                          "vendor/lib/.git/hooks");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out,
            "rename-vendor refused\nrename-lib refused\nwrite-lib ok\nwrite-lib-git refused\n");
}

TEST(RealBwrap, SeedSplitExampleIsEnforced) {
  TempTree t;
  t.file("code/.git/HEAD", "ref\n");
  t.file("code/secrets/key", "k\n");
  t.dir("code/secrets/tmp");
  const std::string code = t.path("code");
  Launch l = launch_in(t, code);
  l.policy = split({{":root", Access::read},
                    {code, Access::write},
                    {code + "/.git", Access::read},
                    {code + "/secrets", Access::deny},
                    {code + "/secrets/tmp", Access::write}});
  const Outcome o = l.run(std::string(kTry) +
                          "try write-code touch new; "
                          "try write-git touch .git/x; "
                          "try read-git cat .git/HEAD; "
                          "try read-secret cat secrets/key; "
                          "try list-secrets ls secrets; "
                          "try chmod-secrets chmod 755 secrets; "
                          "try write-secrets touch secrets/x; "
                          "try write-reopened touch secrets/tmp/x");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out,
            "write-code ok\nwrite-git refused\nread-git ok\nread-secret refused\n"
            "list-secrets refused\nchmod-secrets refused\nwrite-secrets refused\n"
            "write-reopened ok\n");
  EXPECT_TRUE(std::filesystem::exists(code + "/secrets/tmp/x"));
}

TEST(RealBwrap, DeniedFileIsAnUnreadableEmptyStandIn) {
  TempTree t;
  t.file("ws/.env", "TOKEN=secret\n");
  Launch l = launch_in(t, t.path("ws"));
  l.policy = split(
      {{":root", Access::read}, {":workspace", Access::write}, {":workspace/.env", Access::deny}});
  const Outcome o = l.run(std::string(kTry) +
                          "try read cat .env; try write sh -c 'echo x > .env'; "
                          "try chmod chmod 644 .env; try remove rm -f .env; try size test -s .env");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "read refused\nwrite refused\nchmod refused\nremove refused\nsize refused\n");
  std::ifstream env(t.path("ws/.env"));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(env), {}), "TOKEN=secret\n");
}

TEST(RealBwrap, HostTmpIsPrivateAndOperatorSettingsAreNotWritable) {
  TempTree t;
  t.dir("home/proj");
  t.file("home/.config/holdfast/settings.json", "{}\n");
  t.file("outside", "host only\n");
  Launch l = launch_in(t, t.path("home/proj"));
  l.policy = split({{":root", Access::read}, {":home", Access::write}});
  const std::string cfg = t.path("home/.config/holdfast");
  const std::string scratch = t.root() + "-scratch";  // in /tmp, next to the tree
  const Outcome o = l.run(std::string(kTry) + "try see-host-tmp test -e " + t.path("outside") +
                          "; try write-private-tmp touch " + scratch + "; try write-home touch " +
                          t.path("home/other") + "; try write-settings sh -c 'echo x >> " + cfg +
                          "/settings.json'" + "; try new-settings touch " + cfg + "/system.json");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out,
            "see-host-tmp refused\nwrite-private-tmp ok\nwrite-home ok\n"
            "write-settings refused\nnew-settings refused\n");
  EXPECT_FALSE(std::filesystem::exists(scratch));  // it went to the private /tmp
}

TEST(RealBwrap, MissingUserSettingsDirectoryCannotBeCreatedInside) {
  TempTree t;
  t.dir("home/proj");
  t.dir("home/.config");
  Launch l = launch_in(t, t.path("home/proj"));
  l.policy = split({{":root", Access::read}, {":home", Access::write}});
  const std::string cfg = t.path("home/.config/holdfast");
  const Outcome o = l.run(std::string(kTry) + "try create-settings sh -c 'mkdir -p " + cfg +
                          " && echo {} > " + cfg + "/settings.json'");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "create-settings refused\n");
  EXPECT_FALSE(std::filesystem::exists(cfg + "/settings.json"));
}

TEST(RealBwrap, SettingsDirectoryCannotBeRenamedAwayAndReplaced) {
  TempTree t;
  t.dir("home/proj");
  t.file("home/.config/holdfast/settings.json", "{}\n");
  Launch l = launch_in(t, t.path("home/proj"));
  l.policy = split({{":root", Access::read}, {":home", Access::write}});
  const std::string config = t.path("home/.config");
  const Outcome o = l.run(std::string(kTry) + "try rename-config mv " + config + " " + config +
                          ".old; try rename-holdfast mv " + config + "/holdfast " + config +
                          "/old; try other-config touch " + config + "/other.conf");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "rename-config refused\nrename-holdfast refused\nother-config ok\n");
  EXPECT_TRUE(std::filesystem::exists(config + "/holdfast/settings.json"));
}

TEST(RealBwrap, EnvironmentIsCleanAndNetworkClosed) {
  TempTree t;
  t.dir("ws");
  Launch l = launch_in(t, t.path("ws"));
  l.environment = {{"PATH", "/usr/bin:/bin"}, {"SECRET_TOKEN", "s3"}, {"LANG", "C"}};
  const Outcome o = l.run(
      "env | sort | grep -v '^PWD=\\|^SHLVL=\\|^_='; "
      "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "HOME=" + t.path("home") + "\nLANG=C\nPATH=/usr/bin:/bin\nTMPDIR=/tmp\nlo\n");
}

TEST(RealBwrap, NetworkOpenSharesTheHostNamespace) {
  TempTree t;
  t.dir("ws");
  Launch l = launch_in(t, t.path("ws"));
  l.policy.network = Network::open;
  const Outcome o = l.run("readlink /proc/self/ns/net");
  ASSERT_EQ(o.status, 0) << o.err;
  char own[128] = {};
  ASSERT_GT(::readlink("/proc/self/ns/net", own, sizeof own - 1), 0);
  EXPECT_EQ(o.out, std::string(own) + "\n");
}

TEST(RealBwrap, CommandCannotCreateUserNamespacesOrKeepCapabilities) {
  TempTree t;
  t.dir("ws");
  Launch l = launch_in(t, t.path("ws"));
  const Outcome o = l.run(
      "grep ^CapEff /proc/self/status; "
      "if unshare -U true 2>/dev/null; then echo userns-ok; "
      "else echo userns-refused; fi; ps -e -o pid= | wc -l");
  ASSERT_EQ(o.status, 0) << o.err;
  // No capabilities; no nested user namespace; a private pid namespace
  // (bwrap's init, sh, ps and wc only).
  EXPECT_EQ(o.out, "CapEff:\t0000000000000000\nuserns-refused\n4\n");
}

}  // namespace
}  // namespace holdfast::sandbox
