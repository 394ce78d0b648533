// Exact-argv tests: the builder is pure, so each test states the host it
// means (FakeHost) and the whole argv it expects.
#include "launcher/sandbox/bwrap_args.hpp"

#include <gtest/gtest.h>

#include "fake_facts.hpp"
#include "launcher/sandbox/refusal.hpp"

namespace holdfast::sandbox {
namespace {

using testing::FakeHost;
using Args = std::vector<std::string>;

using testing::split;

Args head(bool network_closed = true) {
  Args a = {"bwrap",         "--unshare-user", "--unshare-pid",
            "--unshare-ipc", "--unshare-uts",  "--unshare-cgroup-try"};
  if (network_closed) a.push_back("--unshare-net");
  a.insert(a.end(), {"--new-session", "--die-with-parent", "--cap-drop", "ALL", "--disable-userns",
                     "--clearenv", "--setenv", "HOME", "/home/u", "--setenv", "PATH",
                     "/usr/bin:/bin", "--setenv", "TERM", "xterm", "--setenv", "TMPDIR", "/tmp"});
  return a;
}

Args cat(std::initializer_list<Args> parts) {
  Args out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::string lines(const Args& args) {
  std::string out;
  for (const auto& a : args) out += a + "\n";
  return out;
}

#define EXPECT_ARGV(actual, expected) EXPECT_EQ(lines(actual), lines(expected))

const BuildOptions kOptions = testing::options(9);

// --size of every private tmpfs (/tmp, /dev/shm) under the default limits:
// 1024 MiB.
const std::string kTmpfsSize = "1073741824";

// The fresh /dev (with its sized /dev/shm) and /proc, both read-only.
Args fresh_dev_and_proc() {
  return {"--dev",        "/dev", "--size", kTmpfsSize, "--tmpfs",      "/dev/shm",
          "--remount-ro", "/dev", "--proc", "/proc",    "--remount-ro", "/proc"};
}

// /code with an existing .git directory and no .holdfast.
FakeHost code_host() {
  FakeHost host("/code", "/code");
  host.dir("/code").dir("/code/.git").missing("/code/.holdfast", "/code");
  return host;
}

TEST(BwrapArgs, ReadOnly) {
  FakeHost host("/code", "/code/src");
  host.dir("/code");
  const Policy p = split({{":root", Access::read}, {":workspace", Access::read}});
  EXPECT_ARGV(build_bwrap_args(p, host.facts(), {"make", "-j2"}, kOptions),
              cat({head(), {"--ro-bind", "/",        "/",       "--dev",        "/dev",
                            "--size",    kTmpfsSize, "--tmpfs", "/dev/shm",     "--remount-ro",
                            "/dev",      "--proc",   "/proc",   "--remount-ro", "/proc",
                            "--size",    kTmpfsSize, "--tmpfs", "/tmp",         "--chdir",
                            "/code/src", "--",       "make",    "-j2"}}));
}

TEST(BwrapArgs, WorkspaceWriteNetworkClosedWithExistingAndMissingProtectedNames) {
  auto host = code_host();
  const Policy p = split({{":root", Access::read}, {":workspace", Access::write}});
  EXPECT_ARGV(build_bwrap_args(p, host.facts(), {"sh"}, kOptions),
              cat({head(true),
                   {"--ro-bind", "/", "/", "--dev", "/dev", "--size", kTmpfsSize, "--tmpfs",
                    "/dev/shm", "--remount-ro", "/dev", "--proc", "/proc", "--remount-ro", "/proc",
                    // depth 1
                    "--bind", "/code", "/code", "--size", kTmpfsSize, "--tmpfs", "/tmp",
                    // existing .git: read-only bind; missing .holdfast: an
                    // empty read-only directory so it cannot be created
                    "--ro-bind", "/code/.git", "/code/.git", "--perms", "0555", "--tmpfs",
                    "/code/.holdfast", "--remount-ro", "/code/.holdfast", "--chdir", "/code", "--",
                    "sh"}}));
}

TEST(BwrapArgs, NetworkOpenKeepsTheHostNetwork) {
  auto host = code_host();
  const Args open = build_bwrap_args(
      split({{":root", Access::read}, {":workspace", Access::write}}, Network::open), host.facts(),
      {"sh"}, kOptions);
  Args closed = build_bwrap_args(
      split({{":root", Access::read}, {":workspace", Access::write}}, Network::closed),
      host.facts(), {"sh"}, kOptions);
  EXPECT_EQ(std::count(open.begin(), open.end(), "--unshare-net"), 0);
  EXPECT_EQ(std::count(closed.begin(), closed.end(), "--unshare-net"), 1);
  closed.erase(std::find(closed.begin(), closed.end(), "--unshare-net"));
  EXPECT_ARGV(open, closed);
}

// The seed's split example.
TEST(BwrapArgs, SplitPolicyFromTheSeed) {
  FakeHost host("/code", "/code");
  host.dir("/code").dir("/code/.git").missing("/code/.holdfast", "/code");
  host.dir("/code/secrets").dir("/code/secrets/tmp");
  host.missing("/code/secrets/tmp/.git", "/code/secrets/tmp");
  host.missing("/code/secrets/tmp/.holdfast", "/code/secrets/tmp");
  const Policy p = split({{":root", Access::read},
                          {"/code", Access::write},
                          {"/code/.git", Access::read},
                          {"/code/secrets", Access::deny},
                          {"/code/secrets/tmp", Access::write}});
  EXPECT_ARGV(build_bwrap_args(p, host.facts(), {"sh"}, kOptions),
              cat({head(),
                   {"--ro-bind", "/", "/", "--dev", "/dev", "--size", kTmpfsSize, "--tmpfs",
                    "/dev/shm", "--remount-ro", "/dev", "--proc", "/proc", "--remount-ro", "/proc",
                    // depth 1: the writable root, the private tmp
                    "--bind", "/code", "/code", "--size", kTmpfsSize, "--tmpfs", "/tmp",
                    // depth 2: read-only carve-out, protected name, the denied
                    // directory (0111: a writable path is reopened inside it)
                    "--ro-bind", "/code/.git", "/code/.git", "--perms", "0555", "--tmpfs",
                    "/code/.holdfast", "--perms", "0111", "--tmpfs", "/code/secrets",
                    // depth 3: reopened writable directory
                    "--bind", "/code/secrets/tmp", "/code/secrets/tmp",
                    // depth 4: its protected names
                    "--perms", "0555", "--tmpfs", "/code/secrets/tmp/.git", "--perms", "0555",
                    "--tmpfs", "/code/secrets/tmp/.holdfast",
                    // masks become read-only last, after everything inside them
                    "--remount-ro", "/code/.holdfast", "--remount-ro", "/code/secrets",
                    "--remount-ro", "/code/secrets/tmp/.git", "--remount-ro",
                    "/code/secrets/tmp/.holdfast", "--chdir", "/code", "--", "sh"}}));
}

TEST(BwrapArgs, SymlinkedWorkspaceIsBoundAndEnteredAtItsCanonicalPath) {
  // /home/u/ws -> /data/ws; the caller sits in /home/u/ws/sub.
  FakeHost host("/data/ws", "/data/ws/sub");
  PathFacts ws = FakeHost::make("/home/u/ws", "/data/ws", Kind::directory);
  ws.symlinks = {{"/home/u/ws", "/home/u"}};
  ws.link_target = "/data/ws";
  PathFacts cwd = FakeHost::make("/home/u/ws/sub", "/data/ws/sub", Kind::directory);
  cwd.symlinks = ws.symlinks;
  host.workspace(ws).cwd(cwd);
  host.dir("/data/ws")
      .missing("/data/ws/.git", "/data/ws")
      .missing("/data/ws/.holdfast", "/data/ws");
  const Policy p = split({{":root", Access::read}, {":workspace", Access::write}});
  EXPECT_ARGV(build_bwrap_args(p, host.facts(), {"pwd"}, kOptions), cat({head(),
                                                                         {"--ro-bind",
                                                                          "/",
                                                                          "/",
                                                                          "--dev",
                                                                          "/dev",
                                                                          "--size",
                                                                          kTmpfsSize,
                                                                          "--tmpfs",
                                                                          "/dev/shm",
                                                                          "--remount-ro",
                                                                          "/dev",
                                                                          "--proc",
                                                                          "/proc",
                                                                          "--remount-ro",
                                                                          "/proc",
                                                                          "--size",
                                                                          kTmpfsSize,
                                                                          "--tmpfs",
                                                                          "/tmp",
                                                                          "--bind",
                                                                          "/data/ws",
                                                                          "/data/ws",
                                                                          "--perms",
                                                                          "0555",
                                                                          "--tmpfs",
                                                                          "/data/ws/.git",
                                                                          "--perms",
                                                                          "0555",
                                                                          "--tmpfs",
                                                                          "/data/ws/.holdfast",
                                                                          "--remount-ro",
                                                                          "/data/ws/.git",
                                                                          "--remount-ro",
                                                                          "/data/ws/.holdfast",
                                                                          "--chdir",
                                                                          "/data/ws/sub",
                                                                          "--",
                                                                          "pwd"}}));
}

TEST(BwrapArgs, DeniedFileBecomesAnEmptyUnreadableFile) {
  auto host = code_host();
  host.file("/code/.env");
  const Policy p = split(
      {{":root", Access::read}, {":workspace", Access::write}, {":workspace/.env", Access::deny}});
  EXPECT_ARGV(build_bwrap_args(p, host.facts(), {"sh"}, kOptions), cat({head(),
                                                                        {"--ro-bind",
                                                                         "/",
                                                                         "/",
                                                                         "--dev",
                                                                         "/dev",
                                                                         "--size",
                                                                         kTmpfsSize,
                                                                         "--tmpfs",
                                                                         "/dev/shm",
                                                                         "--remount-ro",
                                                                         "/dev",
                                                                         "--proc",
                                                                         "/proc",
                                                                         "--remount-ro",
                                                                         "/proc",
                                                                         "--bind",
                                                                         "/code",
                                                                         "/code",
                                                                         "--size",
                                                                         kTmpfsSize,
                                                                         "--tmpfs",
                                                                         "/tmp",
                                                                         "--perms",
                                                                         "0000",
                                                                         "--ro-bind-data",
                                                                         "9",
                                                                         "/code/.env",
                                                                         "--ro-bind",
                                                                         "/code/.git",
                                                                         "/code/.git",
                                                                         "--perms",
                                                                         "0555",
                                                                         "--tmpfs",
                                                                         "/code/.holdfast",
                                                                         "--remount-ro",
                                                                         "/code/.holdfast",
                                                                         "--chdir",
                                                                         "/code",
                                                                         "--",
                                                                         "sh"}}));
  EXPECT_TRUE(plan_mounts(resolve_policy(p, host.facts()), host.facts()).needs_empty_file);
  EXPECT_THROW(build_bwrap_args(p, host.facts(), {"sh"}, {}), std::invalid_argument);
}

TEST(BwrapArgs, DenyOnAnAncestorOfAWritableRoot) {
  FakeHost host("/home/u/code", "/home/u/code");
  host.dir("/home").dir("/home/u/code").missing("/home/u/code/.git", "/home/u/code");
  host.missing("/home/u/code/.holdfast", "/home/u/code");
  const Policy p =
      split({{":root", Access::read}, {"/home", Access::deny}, {":workspace", Access::write}});
  EXPECT_ARGV(
      build_bwrap_args(p, host.facts(), {"sh"}, kOptions),
      cat({head(),
           {"--ro-bind", "/", "/", "--dev", "/dev", "--size", kTmpfsSize, "--tmpfs", "/dev/shm",
            "--remount-ro", "/dev", "--proc", "/proc", "--remount-ro", "/proc",
            // the deny goes first and stays traversable only
            "--perms", "0111", "--tmpfs", "/home", "--size", kTmpfsSize, "--tmpfs", "/tmp",
            // the path to the writable root is recreated inside it
            "--perms", "0111", "--dir", "/home/u", "--bind", "/home/u/code", "/home/u/code",
            "--perms", "0555", "--tmpfs", "/home/u/code/.git", "--perms", "0555", "--tmpfs",
            "/home/u/code/.holdfast", "--remount-ro", "/home", "--remount-ro", "/home/u/code/.git",
            "--remount-ro", "/home/u/code/.holdfast", "--chdir", "/home/u/code", "--", "sh"}}));
}

TEST(BwrapArgs, GitWorktreeFileProtectsItsGitdir) {
  FakeHost host("/code", "/code");
  host.dir("/code").git_file("/code/.git", "/code/.repo/worktrees/main");
  host.missing("/code/.holdfast", "/code").dir("/code/.repo/worktrees/main");
  const Policy p = split({{":root", Access::read}, {":workspace", Access::write}});
  EXPECT_ARGV(
      build_bwrap_args(p, host.facts(), {"sh"}, kOptions),
      cat({head(),
           {"--ro-bind", "/", "/", "--dev", "/dev", "--size", kTmpfsSize, "--tmpfs", "/dev/shm",
            "--remount-ro", "/dev", "--proc", "/proc", "--remount-ro", "/proc", "--bind", "/code",
            "/code", "--size", kTmpfsSize, "--tmpfs", "/tmp", "--ro-bind", "/code/.git",
            "/code/.git", "--perms", "0555", "--tmpfs", "/code/.holdfast",
            // the gitdir's ancestors are pinned so they cannot be renamed away
            "--bind", "/code/.repo", "/code/.repo", "--bind", "/code/.repo/worktrees",
            "/code/.repo/worktrees", "--ro-bind", "/code/.repo/worktrees/main",
            "/code/.repo/worktrees/main", "--remount-ro", "/code/.holdfast", "--chdir", "/code",
            "--", "sh"}}));
}

TEST(BwrapArgs, ExplicitWriteOnAProtectedNameIsHonoured) {
  auto host = code_host();
  host.missing("/code/.git/.git", "/code/.git").missing("/code/.git/.holdfast", "/code/.git");
  const Policy p = split(
      {{":root", Access::read}, {":workspace", Access::write}, {":workspace/.git", Access::write}});
  const Args args = build_bwrap_args(p, host.facts(), {"sh"}, kOptions);
  // No read-only bind of /code/.git: it is inside the writable /code bind.
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    EXPECT_FALSE(args[i] == "--ro-bind" && args[i + 1] == "/code/.git");
  }
}

TEST(BwrapArgs, EmptyRootWithMinimalSystemDirectories) {
  FakeHost host("/code", "/code");
  host.dir("/code").missing("/code/.git", "/code").missing("/code/.holdfast", "/code");
  host.dir("/usr").dir("/etc");
  for (const std::string name : {"bin", "lib"}) {
    PathFacts f = FakeHost::make("/" + name, "/usr/" + name, Kind::directory);
    f.symlinks = {{"/" + name, "/"}};
    f.link_target = "usr/" + name;
    host.add(f);
  }
  host.facts().tokens.minimal = {"/bin", "/usr", "/lib", "/etc"};
  const Policy p = split({{":minimal", Access::read}, {":workspace", Access::write}});
  EXPECT_ARGV(build_bwrap_args(p, host.facts(), {"sh"}, kOptions),
              cat({head(),
                   {// no base bind: bubblewrap's empty root
                    "--dev",
                    "/dev",
                    "--size",
                    kTmpfsSize,
                    "--tmpfs",
                    "/dev/shm",
                    "--remount-ro",
                    "/dev",
                    "--proc",
                    "/proc",
                    "--remount-ro",
                    "/proc",
                    "--bind",
                    "/code",
                    "/code",
                    "--ro-bind",
                    "/etc",
                    "/etc",
                    "--size",
                    kTmpfsSize,
                    "--tmpfs",
                    "/tmp",
                    "--ro-bind",
                    "/usr",
                    "/usr",
                    "--perms",
                    "0555",
                    "--tmpfs",
                    "/code/.git",
                    "--perms",
                    "0555",
                    "--tmpfs",
                    "/code/.holdfast",
                    "--symlink",
                    "usr/bin",
                    "/bin",
                    "--symlink",
                    "usr/lib",
                    "/lib",
                    "--chmod",
                    "0111",
                    "/",
                    "--remount-ro",
                    "/code/.git",
                    "--remount-ro",
                    "/code/.holdfast",
                    "--remount-ro",
                    "/",
                    "--chdir",
                    "/code",
                    "--",
                    "sh"}}));
}

TEST(BwrapArgs, EmptyRootRecreatesTheWayToADeepWorkspace) {
  FakeHost host("/srv/a/code", "/srv/a/code");
  host.dir("/srv/a/code").dir("/srv/a/code/.git").dir("/srv/a/code/.holdfast");
  const Policy p = split({{":workspace", Access::write}});
  EXPECT_ARGV(build_bwrap_args(p, host.facts(), {"sh"}, kOptions), cat({head(),
                                                                        {"--dev",
                                                                         "/dev",
                                                                         "--size",
                                                                         kTmpfsSize,
                                                                         "--tmpfs",
                                                                         "/dev/shm",
                                                                         "--remount-ro",
                                                                         "/dev",
                                                                         "--proc",
                                                                         "/proc",
                                                                         "--remount-ro",
                                                                         "/proc",
                                                                         "--size",
                                                                         kTmpfsSize,
                                                                         "--tmpfs",
                                                                         "/tmp",
                                                                         "--perms",
                                                                         "0111",
                                                                         "--dir",
                                                                         "/srv",
                                                                         "--perms",
                                                                         "0111",
                                                                         "--dir",
                                                                         "/srv/a",
                                                                         "--bind",
                                                                         "/srv/a/code",
                                                                         "/srv/a/code",
                                                                         "--ro-bind",
                                                                         "/srv/a/code/.git",
                                                                         "/srv/a/code/.git",
                                                                         "--ro-bind",
                                                                         "/srv/a/code/.holdfast",
                                                                         "/srv/a/code/.holdfast",
                                                                         "--chmod",
                                                                         "0111",
                                                                         "/",
                                                                         "--remount-ro",
                                                                         "/",
                                                                         "--chdir",
                                                                         "/srv/a/code",
                                                                         "--",
                                                                         "sh"}}));
}

TEST(BwrapArgs, WorkspaceUnderTmpIsBoundOverThePrivateTmp) {
  FakeHost host("/tmp/p/code", "/tmp/p/code");
  host.dir("/tmp/p/code").dir("/tmp/p/code/.git").dir("/tmp/p/code/.holdfast");
  const Policy p = split({{":root", Access::read}, {":workspace", Access::write}});
  EXPECT_ARGV(build_bwrap_args(p, host.facts(), {"sh"}, kOptions), cat({head(),
                                                                        {"--ro-bind",
                                                                         "/",
                                                                         "/",
                                                                         "--dev",
                                                                         "/dev",
                                                                         "--size",
                                                                         kTmpfsSize,
                                                                         "--tmpfs",
                                                                         "/dev/shm",
                                                                         "--remount-ro",
                                                                         "/dev",
                                                                         "--proc",
                                                                         "/proc",
                                                                         "--remount-ro",
                                                                         "/proc",
                                                                         "--size",
                                                                         kTmpfsSize,
                                                                         "--tmpfs",
                                                                         "/tmp",
                                                                         "--perms",
                                                                         "0111",
                                                                         "--dir",
                                                                         "/tmp/p",
                                                                         "--bind",
                                                                         "/tmp/p/code",
                                                                         "/tmp/p/code",
                                                                         "--ro-bind",
                                                                         "/tmp/p/code/.git",
                                                                         "/tmp/p/code/.git",
                                                                         "--ro-bind",
                                                                         "/tmp/p/code/.holdfast",
                                                                         "/tmp/p/code/.holdfast",
                                                                         "--chdir",
                                                                         "/tmp/p/code",
                                                                         "--",
                                                                         "sh"}}));
}

TEST(BwrapArgs, WritableHomeKeepsTheUserSettingsDirectoryReadOnly) {
  FakeHost host("/home/u/code", "/home/u/code");
  host.dir("/home/u").missing("/home/u/.git", "/home/u").missing("/home/u/.holdfast", "/home/u");
  host.dir("/home/u/code").dir("/home/u/code/.git").dir("/home/u/code/.holdfast");
  const Policy p = split({{":root", Access::read}, {":home", Access::write}});
  EXPECT_ARGV(build_bwrap_args(p, host.facts(), {"sh"}, kOptions),
              cat({head(),
                   {"--ro-bind", "/", "/", "--dev", "/dev", "--size", kTmpfsSize, "--tmpfs",
                    "/dev/shm", "--remount-ro", "/dev", "--proc", "/proc", "--remount-ro", "/proc",
                    "--size", kTmpfsSize, "--tmpfs", "/tmp", "--bind", "/home/u", "/home/u",
                    // ~/.config is pinned (it cannot be renamed away)
                    "--bind", "/home/u/.config", "/home/u/.config", "--perms", "0555", "--tmpfs",
                    "/home/u/.git", "--perms", "0555", "--tmpfs", "/home/u/.holdfast",
                    // the missing ~/.config/holdfast cannot be created inside
                    "--perms", "0555", "--tmpfs", "/home/u/.config/holdfast", "--remount-ro",
                    "/home/u/.git", "--remount-ro", "/home/u/.holdfast", "--remount-ro",
                    "/home/u/.config/holdfast", "--chdir", "/home/u/code", "--", "sh"}}));
}

TEST(BwrapArgs, NestedWritableRootIsPinnedSoItsGitCannotBeReplaced) {
  FakeHost host("/code", "/code");
  host.dir("/code").dir("/code/.git").dir("/code/.holdfast");
  host.dir("/code/vendor/lib").dir("/code/vendor/lib/.git").dir("/code/vendor/lib/.holdfast");
  const Policy p = split({{":root", Access::read},
                          {":workspace", Access::write},
                          {":workspace/vendor/lib", Access::write}});
  EXPECT_ARGV(
      build_bwrap_args(p, host.facts(), {"sh"}, kOptions),
      cat({head(),
           {"--ro-bind", "/", "/", "--dev", "/dev", "--size", kTmpfsSize, "--tmpfs", "/dev/shm",
            "--remount-ro", "/dev", "--proc", "/proc", "--remount-ro", "/proc", "--bind", "/code",
            "/code", "--size", kTmpfsSize, "--tmpfs", "/tmp", "--ro-bind", "/code/.git",
            "/code/.git", "--ro-bind", "/code/.holdfast", "/code/.holdfast",
            // /code/vendor/lib needs no bind of its own (write under
            // write), but renaming /code/vendor away would let the
            // command plant a new lib/.git: both are pinned
            "--bind", "/code/vendor", "/code/vendor", "--bind", "/code/vendor/lib",
            "/code/vendor/lib", "--ro-bind", "/code/vendor/lib/.git", "/code/vendor/lib/.git",
            "--ro-bind", "/code/vendor/lib/.holdfast", "/code/vendor/lib/.holdfast", "--chdir",
            "/code", "--", "sh"}}));
}

TEST(BwrapArgs, SeccompFdAndBwrapPathAreEmitted) {
  auto host = code_host();
  const Policy p = split({{":root", Access::read}, {":workspace", Access::write}});
  const Args args = build_bwrap_args(p, host.facts(), {"id"},
                                     testing::options(std::nullopt, 7, "/usr/bin/bwrap"));
  EXPECT_EQ(args.front(), "/usr/bin/bwrap");
  ASSERT_GE(args.size(), 5u);
  EXPECT_EQ(Args(args.end() - 4, args.end()), (Args{"--seccomp", "7", "--", "id"}));
}

TEST(BwrapArgs, EnvironmentIsAnAllowList) {
  auto host = code_host();
  host.facts().environment = {{"PATH", "/p"},        {"SSH_AUTH_SOCK", "/s"},
                              {"LC_ALL", "C"},       {"AWS_SECRET_ACCESS_KEY", "x"},
                              {"USER", "u"},         {"LANG", "C.UTF-8"},
                              {"TMPDIR", "/var/tmp"}};
  const Policy p = split({{":root", Access::read}, {":workspace", Access::write}});
  const Args args = build_bwrap_args(p, host.facts(), {"env"}, kOptions);
  Args env;
  for (std::size_t i = 0; i + 2 < args.size(); ++i) {
    if (args[i] == "--setenv") env.insert(env.end(), {args[i + 1], args[i + 2]});
  }
  EXPECT_EQ(env, (Args{"HOME", "/home/u", "LANG", "C.UTF-8", "LC_ALL", "C", "PATH", "/p", "TMPDIR",
                       "/tmp", "USER", "u"}));
  EXPECT_NE(std::find(args.begin(), args.end(), "--clearenv"), args.end());
}

TEST(BwrapArgs, EmptyCommandIsAnError) {
  auto host = code_host();
  EXPECT_THROW(build_bwrap_args(default_policy(), host.facts(), {}, kOptions),
               std::invalid_argument);
}

TEST(BwrapArgs, FactsForAnotherPolicyAreAnErrorNotAGuess) {
  auto host = code_host();
  const Policy p = split({{":root", Access::read}, {"/elsewhere", Access::write}});
  EXPECT_THROW(build_bwrap_args(p, host.facts(), {"sh"}, kOptions), std::logic_error);
}

// A launch passes each bind source as a descriptor it opened and checked.
TEST(BwrapArgs, DescriptorsReplaceBindSourcePaths) {
  auto host = code_host();
  const Policy p = split({{":root", Access::read}, {":workspace", Access::write}});
  BuildOptions o = kOptions;
  o.bind_fds = std::map<std::string, int>{{"/", 20}, {"/code", 21}, {"/code/.git", 22}};
  EXPECT_ARGV(build_bwrap_args(p, host.facts(), {"sh"}, o), cat({head(true),
                                                                 {"--ro-bind-fd", "20", "/"},
                                                                 fresh_dev_and_proc(),
                                                                 {"--bind-fd",    "21",
                                                                  "/code",        "--size",
                                                                  kTmpfsSize,     "--tmpfs",
                                                                  "/tmp",         "--ro-bind-fd",
                                                                  "22",           "/code/.git",
                                                                  "--perms",      "0555",
                                                                  "--tmpfs",      "/code/.holdfast",
                                                                  "--remount-ro", "/code/.holdfast",
                                                                  "--chdir",      "/code",
                                                                  "--",           "sh"}}));
  // A bind without its descriptor is an error, never a path.
  o.bind_fds->erase("/code/.git");
  EXPECT_THROW(build_bwrap_args(p, host.facts(), {"sh"}, o), std::invalid_argument);
}

TEST(MountPlan, ListsBindsChecksAndTheMountPointsCreatedOnTheHost) {
  auto host = code_host();
  const Policy p = split({{":root", Access::read}, {":workspace", Access::write}});
  using T = MountCheck::Type;
  const MountPlan plan = plan_mounts(resolve_policy(p, host.facts()), host.facts());
  EXPECT_EQ(plan.bind_sources, (std::vector<std::string>{"/", "/code", "/code/.git"}));
  EXPECT_EQ(plan.checks, (std::vector<MountCheck>{{"/", T::bind, true},
                                                  {"/code", T::bind, false},
                                                  {"/tmp", T::tmpfs, false},
                                                  {"/code/.git", T::bind, true},
                                                  {"/code/.holdfast", T::tmpfs, true}}));
  EXPECT_EQ(plan.created_on_host, (std::vector<std::string>{"/code/.holdfast"}));
  EXPECT_FALSE(plan.needs_empty_file);
}

// The operations themselves, typed, in bubblewrap's order: what the argv,
// the descriptors, the start-gate checks and the cleanup are all read from.
TEST(MountPlan, OperationsInBubblewrapsOrder) {
  auto host = code_host();
  const Policy p = split({{":root", Access::read}, {":workspace", Access::write}});
  using K = MountOp::Kind;
  const std::string shm = std::to_string(p.limits.tmpfs_mib * 1024 * 1024);
  EXPECT_EQ(plan_mounts(resolve_policy(p, host.facts()), host.facts()).ops,
            (std::vector<MountOp>{{K::ro_bind, "/"},
                                  {K::dev, "/dev"},
                                  {K::tmpfs, "/dev/shm", "", shm},
                                  {K::remount_ro, "/dev"},
                                  {K::proc, "/proc"},
                                  {K::remount_ro, "/proc"},
                                  {K::bind, "/code"},
                                  {K::tmpfs, "/tmp", "", shm},
                                  {K::ro_bind, "/code/.git"},
                                  {K::tmpfs, "/code/.holdfast", "0555"},
                                  {K::remount_ro, "/code/.holdfast"}}));
}

// The renderer renders the plan it is given, operation for operation, and
// computes no mount of its own from the policy: a plan that plan_mounts
// would never make (operations out of bubblewrap's usual order, paths the
// policy does not name) comes out exactly as written, between the fixed head
// and the --chdir. A refused policy has no plan.
TEST(MountPlan, TheArgvRendersThePlanItIsGiven) {
  auto host = code_host();
  const Policy p = split({{":root", Access::read}, {":workspace", Access::write}});
  using K = MountOp::Kind;
  MountPlan plan;
  plan.ops = {{K::remount_ro, "/srv"},
              {K::tmpfs, "/srv", "0700", "4096"},
              {K::symlink, "/srv/link", "", "", "usr/lib"},
              {K::dir, "/srv/d", "0111"},
              {K::chmod, "/srv", "", "", "0555"},
              {K::denied_file, "/srv/secret", "0000"},
              {K::ro_bind, "/opt"},
              {K::bind, "/var/cache"},
              {K::proc, "/proc2"},
              {K::dev, "/dev2"}};
  plan.needs_empty_file = true;
  BuildOptions options = testing::options(8, 3);
  options.bind_fds = std::map<std::string, int>{{"/opt", 30}, {"/var/cache", 31}};
  EXPECT_ARGV(build_bwrap_args(p, host.facts(), plan, {"sh"}, options), cat({head(),
                                                                             {"--remount-ro",
                                                                              "/srv",
                                                                              "--perms",
                                                                              "0700",
                                                                              "--size",
                                                                              "4096",
                                                                              "--tmpfs",
                                                                              "/srv",
                                                                              "--symlink",
                                                                              "usr/lib",
                                                                              "/srv/link",
                                                                              "--perms",
                                                                              "0111",
                                                                              "--dir",
                                                                              "/srv/d",
                                                                              "--chmod",
                                                                              "0555",
                                                                              "/srv",
                                                                              "--perms",
                                                                              "0000",
                                                                              "--ro-bind-data",
                                                                              "8",
                                                                              "/srv/secret",
                                                                              "--ro-bind-fd",
                                                                              "30",
                                                                              "/opt",
                                                                              "--bind-fd",
                                                                              "31",
                                                                              "/var/cache",
                                                                              "--proc",
                                                                              "/proc2",
                                                                              "--dev",
                                                                              "/dev2",
                                                                              "--chdir",
                                                                              "/code",
                                                                              "--seccomp",
                                                                              "3",
                                                                              "--",
                                                                              "sh"}}));
  FakeHost whole_disk("/", "/");  // workspace-is-root
  whole_disk.dir("/");
  EXPECT_THROW(plan_mounts(resolve_policy(p, whole_disk.facts()), whole_disk.facts()), Refused);
}

// Every repository below a writable root is read-only, and the directories
// above it up to the workspace are pinned, so it cannot be moved aside.
TEST(BwrapArgs, NestedRepositoryIsReadOnlyAndPinned) {
  auto host = code_host();
  host.dir("/code/vendor").dir("/code/vendor/lib").nested_git("/code/vendor/lib/.git");
  const Policy p = split({{":root", Access::read}, {":workspace", Access::write}});
  EXPECT_ARGV(build_bwrap_args(p, host.facts(), {"sh"}, kOptions), cat({head(true),
                                                                        {"--ro-bind", "/", "/"},
                                                                        fresh_dev_and_proc(),
                                                                        {"--bind",
                                                                         "/code",
                                                                         "/code",
                                                                         "--size",
                                                                         kTmpfsSize,
                                                                         "--tmpfs",
                                                                         "/tmp",
                                                                         "--ro-bind",
                                                                         "/code/.git",
                                                                         "/code/.git",
                                                                         "--perms",
                                                                         "0555",
                                                                         "--tmpfs",
                                                                         "/code/.holdfast",
                                                                         "--bind",
                                                                         "/code/vendor",
                                                                         "/code/vendor",
                                                                         "--bind",
                                                                         "/code/vendor/lib",
                                                                         "/code/vendor/lib",
                                                                         "--ro-bind",
                                                                         "/code/vendor/lib/.git",
                                                                         "/code/vendor/lib/.git",
                                                                         "--remount-ro",
                                                                         "/code/.holdfast",
                                                                         "--chdir",
                                                                         "/code",
                                                                         "--",
                                                                         "sh"}}));
}

// holdfast's state directory under a writable $HOME: read-only, and when
// missing an empty read-only directory (it cannot be created inside).
TEST(BwrapArgs, StateDirectoryUnderAWritableHomeIsReadOnly) {
  FakeHost host("/home/u/code", "/home/u/code");
  host.dir("/home/u").missing("/home/u/.git", "/home/u").missing("/home/u/.holdfast", "/home/u");
  host.dir("/home/u/code").dir("/home/u/code/.git").dir("/home/u/code/.holdfast");
  host.dir("/home/u/.config").dir("/home/u/.config/holdfast");
  host.operator_dirs_exist();
  host.dir("/home/u/.local/state");
  host.state_dir(FakeHost::make("/home/u/.local/state/holdfast", "/home/u/.local/state/holdfast",
                                Kind::missing, "/home/u/.local/state"));
  const Policy p = split({{":root", Access::read}, {":home", Access::write}});
  EXPECT_ARGV(
      build_bwrap_args(p, host.facts(), {"sh"}, kOptions),
      cat({head(true),
           {"--ro-bind", "/", "/", "--dev", "/dev", "--size", kTmpfsSize, "--tmpfs", "/dev/shm",
            "--remount-ro", "/dev", "--proc", "/proc", "--remount-ro", "/proc", "--size",
            kTmpfsSize, "--tmpfs", "/tmp", "--bind", "/home/u", "/home/u", "--bind",
            "/home/u/.config", "/home/u/.config", "--perms", "0555", "--tmpfs", "/home/u/.git",
            "--perms", "0555", "--tmpfs", "/home/u/.holdfast",
            // the state directory's ancestors are pinned
            "--bind", "/home/u/.local", "/home/u/.local", "--ro-bind", "/home/u/.config/holdfast",
            "/home/u/.config/holdfast", "--bind", "/home/u/.local/state", "/home/u/.local/state",
            // the missing state directory cannot be created inside
            "--perms", "0555", "--tmpfs", "/home/u/.local/state/holdfast", "--remount-ro",
            "/home/u/.git", "--remount-ro", "/home/u/.holdfast", "--remount-ro",
            "/home/u/.local/state/holdfast", "--chdir", "/home/u/code", "--", "sh"}}));
  EXPECT_EQ(plan_mounts(resolve_policy(p, host.facts()), host.facts()).created_on_host,
            (std::vector<std::string>{"/home/u/.git", "/home/u/.holdfast",
                                      "/home/u/.local/state/holdfast"}));
}

TEST(BwrapArgs, NetworkAllowListGetsItsOwnNamespaceTheProxyAndTheStub) {
  auto host = code_host();
  host.facts().holdfast_executable = "/usr/bin/holdfast";
  Policy p = split({{":root", Access::read}, {":workspace", Access::write}}, Network::allow_list);
  BuildOptions options = kOptions;
  options.resolv_conf_fd = 7;
  const Args args = build_bwrap_args(p, host.facts(), {"sh"}, options);
  EXPECT_EQ(std::count(args.begin(), args.end(), "--unshare-net"), 1);
  const auto setenv = [&](const std::string& name) -> std::string {
    for (std::size_t i = 0; i + 2 < args.size(); ++i) {
      if (args[i] == "--setenv" && args[i + 1] == name) return args[i + 2];
    }
    return "(unset)";
  };
  EXPECT_EQ(setenv("HTTPS_PROXY"), "http://127.0.0.1:3128");
  EXPECT_EQ(setenv("http_proxy"), "http://127.0.0.1:3128");
  EXPECT_EQ(setenv("ALL_PROXY"), "socks5h://127.0.0.1:3128");
  EXPECT_EQ(setenv("GRPC_PROXY"), "http://127.0.0.1:3128");
  EXPECT_EQ(setenv("NO_PROXY"), "");
  EXPECT_EQ(setenv("GIT_SSH_COMMAND"),
            "ssh -o 'ProxyCommand='\\''/usr/bin/holdfast'\\'' net-connect %h %p'");
  // The stub's resolv.conf goes over the host's, after every bind (of /
  // and so of /etc among them).
  const auto data = std::find(args.begin(), args.end(), "--ro-bind-data");
  ASSERT_NE(data, args.end());
  ASSERT_LT(data + 2, args.end());
  EXPECT_EQ(*(data + 1), "7");
  EXPECT_EQ(*(data + 2), "/etc/resolv.conf");
  for (const char* bind : {"--bind", "--ro-bind"}) {
    EXPECT_EQ(std::find(data, args.end(), bind), args.end()) << bind << " after the resolv.conf";
  }
  // Closed and open networks get none of it.
  for (const Network other : {Network::closed, Network::open}) {
    const Args plain =
        build_bwrap_args(split({{":root", Access::read}}, other), host.facts(), {"sh"}, options);
    EXPECT_EQ(std::count(plain.begin(), plain.end(), "--ro-bind-data"), 0);
    EXPECT_EQ(std::count(plain.begin(), plain.end(), "HTTPS_PROXY"), 0);
  }
  p.network = Network::allow_list;
  EXPECT_THROW(build_bwrap_args(p, host.facts(), {"sh"}, kOptions), std::invalid_argument);
}

}  // namespace
}  // namespace holdfast::sandbox
