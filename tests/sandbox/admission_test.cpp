// Every refusal: the rule, the path and the entry it names, and that it says
// what to do. build_bwrap_args must refuse the same way.
#include "launcher/sandbox/admission.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "fake_facts.hpp"
#include "launcher/sandbox/bwrap_args.hpp"

namespace holdfast::sandbox {
namespace {

using testing::FakeHost;

using testing::split;

Policy workspace_write() { return split({{":root", Access::read}, {":workspace", Access::write}}); }

// A host where /code is a plain workspace with no protected names.
FakeHost code_host_without_repository() {
  FakeHost host("/code", "/code");
  host.dir("/code").missing("/code/.git", "/code").missing("/code/.holdfast", "/code");
  return host;
}

std::vector<Refusal> refusals_for(const Policy& p, FakeHost& host) {
  auto found = check_admission(p, host.facts());
  // The builder refuses exactly when admission does.
  if (found.empty()) {
    EXPECT_NO_THROW(build_bwrap_args(p, host.facts(), {"true"}, testing::options(9)));
  } else {
    try {
      build_bwrap_args(p, host.facts(), {"true"}, testing::options(9));
      ADD_FAILURE() << "build_bwrap_args did not refuse";
    } catch (const Refused& r) {
      EXPECT_EQ(r.refusals(), found);
    }
  }
  return found;
}

void expect_one(const std::vector<Refusal>& found, const std::string& rule, const std::string& path,
                const std::string& entry = "") {
  ASSERT_EQ(found.size(), 1u) << (found.empty() ? "none" : found[0].to_string());
  EXPECT_EQ(found[0].rule, rule);
  EXPECT_EQ(found[0].path, path);
  EXPECT_EQ(found[0].entry, entry);
  EXPECT_FALSE(found[0].message.empty());
  EXPECT_FALSE(found[0].remedy.empty());
  const std::string text = found[0].to_string();
  EXPECT_NE(text.find(rule), std::string::npos);
  EXPECT_NE(text.find(path), std::string::npos);
  EXPECT_NE(text.find("To fix: "), std::string::npos);
}

TEST(Admission, PlainWorkspaceIsAdmitted) {
  auto host = code_host_without_repository();
  EXPECT_TRUE(refusals_for(workspace_write(), host).empty());
}

// A walk that hit its limit leaves deeper protected names writable: the
// launch is refused, naming the root, the limit and the setting.
TEST(Admission, AnUnfinishedWalkForProtectedNamesIsRefused) {
  FakeHost host = code_host_without_repository();
  host.facts().tree.roots = {"/code"};
  host.facts().scan_budget = 7;
  EXPECT_TRUE(refusals_for(workspace_write(), host).empty());
  host.facts().tree.complete = false;
  const auto found = refusals_for(workspace_write(), host);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule, "protection-scan-incomplete");
  EXPECT_EQ(found[0].path, "/code");
  EXPECT_NE(found[0].message.find("more than 7 directories"), std::string::npos);
  EXPECT_NE(found[0].remedy.find("tools.protectedNames.scanLimit"), std::string::npos);
  EXPECT_NE(found[0].remedy.find("--workspace"), std::string::npos);
}

TEST(Admission, WorkspaceMustExist) {
  FakeHost host("/nowhere", "/");
  host.workspace(FakeHost::make("/nowhere", "/nowhere", Kind::missing, "/"));
  expect_one(refusals_for(workspace_write(), host), "workspace-missing", "/nowhere");
}

TEST(Admission, WorkspaceMustBeADirectory) {
  FakeHost host("/code/file", "/code");
  host.workspace(FakeHost::make("/code/file", "/code/file", Kind::file));
  expect_one(refusals_for(workspace_write(), host), "workspace-missing", "/code/file");
}

TEST(Admission, WorkspaceMustNotBeRoot) {
  FakeHost host("/", "/");
  expect_one(refusals_for(workspace_write(), host), "workspace-is-root", "/");
}

TEST(Admission, WorkspaceMustNotContainHome) {
  FakeHost host("/home", "/home");
  host.dir("/home").missing("/home/.git", "/home").missing("/home/.holdfast", "/home");
  const auto found = refusals_for(workspace_write(), host);
  // /home is every user's home, and contains the user settings directory.
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].rule, "workspace-contains-home");
  EXPECT_EQ(found[0].path, "/home");
  EXPECT_EQ(found[1].rule, "workspace-holds-shared-state");
  EXPECT_EQ(found[2].rule, "workspace-overlaps-settings");
}

TEST(Admission, DirectoriesHoldingSystemStateOrOtherUsersFilesAreNotWorkspaces) {
  // The directory itself, an ancestor of it, or (for home-like directories)
  // a whole entry directly inside it.
  for (const std::string ws : {"/var",           "/var/lib",       "/var/lib/postgresql",
                               "/var/cache",     "/var/log",       "/var/spool",
                               "/var/mail",      "/var/tmp",       "/var/home/bob",
                               "/tmp",           "/run",           "/run/user",
                               "/run/user/1000", "/run/media/bob", "/home",
                               "/home/bob",      "/root",          "/srv",
                               "/opt",           "/mnt",           "/media",
                               "/media/usb"}) {
    FakeHost host(ws, ws);
    host.dir(ws).missing(ws + "/.git", ws).missing(ws + "/.holdfast", ws);
    const auto found = refusals_for(workspace_write(), host);
    ASSERT_FALSE(found.empty()) << ws;
    const bool shared = std::any_of(found.begin(), found.end(), [&](const Refusal& r) {
      return r.rule == "workspace-holds-shared-state" && r.path == ws &&
             r.to_string().find("To fix: use a project directory below it") != std::string::npos;
    });
    EXPECT_TRUE(shared) << ws << ": " << (found.empty() ? "" : found[0].to_string());
  }
  // Projects below them are workspaces.
  for (const std::string ws : {"/var/tmp/build", "/var/lib/jenkins/workspace", "/tmp/p",
                               "/home/bob/src", "/srv/www", "/opt/project", "/mnt/data",
                               "/run/media/bob/usb", "/media/usb/project", "/run/user/1000/x"}) {
    FakeHost host(ws, ws);
    host.dir(ws).missing(ws + "/.git", ws).missing(ws + "/.holdfast", ws);
    EXPECT_TRUE(refusals_for(workspace_write(), host).empty()) << ws;
  }
}

TEST(Admission, BootAndTheOtherSystemTreesAreNotWorkspaces) {
  for (const std::string ws : {"/boot", "/boot/efi", "/efi", "/lib32/x", "/libx32/x"}) {
    FakeHost host(ws, ws);
    host.dir(ws).missing(ws + "/.git", ws).missing(ws + "/.holdfast", ws);
    const auto found = refusals_for(workspace_write(), host);
    ASSERT_FALSE(found.empty()) << ws;
    EXPECT_EQ(found[0].rule, "workspace-overlaps-system") << ws;
  }
}

TEST(Admission, WorkspaceMustNotOverlapSystemDirectories) {
  for (const std::string ws : {"/usr/src/p", "/etc/x", "/proc/1", "/dev/shm", "/sys/fs", "/bin/x",
                               "/sbin/x", "/lib/x", "/lib64/x"}) {
    FakeHost host(ws, ws);
    host.dir(ws).missing(ws + "/.git", ws).missing(ws + "/.holdfast", ws);
    const auto found = refusals_for(workspace_write(), host);
    ASSERT_FALSE(found.empty()) << ws;
    EXPECT_EQ(found[0].rule, "workspace-overlaps-system") << ws;
    EXPECT_EQ(found[0].path, ws);
    // Inside /proc and /dev the workspace entry itself cannot be enforced either.
    const bool fresh = ws.starts_with("/proc") || ws.starts_with("/dev");
    EXPECT_EQ(found.size(), fresh ? 2u : 1u) << ws;
  }
}

TEST(Admission, WorkspaceMustNotOverlapOperatorSettings) {
  // An ancestor of the settings directory...
  FakeHost host("/data", "/data");
  host.facts().operator_dirs = {
      FakeHost::make("/data/holdfast", "/data/holdfast", Kind::directory)};
  host.dir("/data").missing("/data/.git", "/data").missing("/data/.holdfast", "/data");
  expect_one(refusals_for(workspace_write(), host), "workspace-overlaps-settings", "/data");
  // ... and a directory inside it.
  const std::string p = "/home/u/.config/holdfast/p";
  FakeHost inside(p, p);
  inside.dir(p).missing(p + "/.git", p).missing(p + "/.holdfast", p);
  const auto found = refusals_for(workspace_write(), inside);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].rule, "workspace-overlaps-settings");
  EXPECT_EQ(found[0].path, p);
  // ... and the workspace-write entry would make it writable.
  EXPECT_EQ(found[1].rule, "settings-dir-writable");
  EXPECT_EQ(found[1].entry, ":workspace");
}

TEST(Admission, CwdMustBeInsideTheWorkspace) {
  auto host = code_host_without_repository();
  host.cwd(FakeHost::make("/elsewhere", "/elsewhere", Kind::directory));
  expect_one(refusals_for(workspace_write(), host), "cwd-outside-workspace", "/elsewhere");
  // By canonical path: /code2 is not inside /code.
  host.cwd(FakeHost::make("/code2", "/code2", Kind::directory));
  expect_one(refusals_for(workspace_write(), host), "cwd-outside-workspace", "/code2");
}

TEST(Admission, CwdMustNotBeDenied) {
  auto host = code_host_without_repository();
  host.dir("/code/secrets").cwd(FakeHost::make("/code/secrets", "/code/secrets", Kind::directory));
  auto p = workspace_write();
  p = split(
      {{":root", Access::read}, {":workspace", Access::write}, {"/code/secrets", Access::deny}});
  expect_one(refusals_for(p, host), "cwd-denied", "/code/secrets");
}

TEST(Admission, HomeTokenWithoutHome) {
  auto host = code_host_without_repository();
  host.facts().tokens.home.clear();
  expect_one(refusals_for(split({{":root", Access::read}, {":home/x", Access::deny}}), host),
             "home-unknown", ":home/x", ":home/x");
}

TEST(Admission, NoEntryInsideProcOrDev) {
  auto host = code_host_without_repository();
  host.dir("/dev/shm")
      .missing("/dev/shm/.git", "/dev/shm")
      .missing("/dev/shm/.holdfast", "/dev/shm");
  expect_one(refusals_for(split({{":root", Access::read},
                                 {":workspace", Access::write},
                                 {"/dev/shm", Access::write}}),
                          host),
             "entry-in-fresh-mount", "/dev/shm", "/dev/shm");
}

TEST(Admission, OperatorSettingsAreNeverWritable) {
  auto host = code_host_without_repository();
  host.dir("/etc/holdfast").missing("/etc/holdfast/.git", "/etc/holdfast");
  host.missing("/etc/holdfast/.holdfast", "/etc/holdfast");
  expect_one(refusals_for(split({{":root", Access::read},
                                 {":workspace", Access::write},
                                 {"/etc/holdfast", Access::write}}),
                          host),
             "settings-dir-writable", "/etc/holdfast", "/etc/holdfast");
}

TEST(Admission, CarveOutThroughAWritableSymlink) {
  auto host = code_host_without_repository();
  // /code/link -> /data; the carve-out /code/link/keys lands on /data/keys,
  // but the link itself sits in writable /code.
  PathFacts f = FakeHost::make("/code/link/keys", "/data/keys", Kind::directory);
  f.symlinks = {{"/code/link", "/code"}};
  host.add(f);
  expect_one(refusals_for(split({{":root", Access::read},
                                 {":workspace", Access::write},
                                 {"/code/link/keys", Access::deny}}),
                          host),
             "carve-out-through-writable-symlink", "/code/link/keys", "/code/link/keys");
}

TEST(Admission, SymlinkInAReadOnlyDirectoryIsFine) {
  auto host = code_host_without_repository();
  PathFacts f = FakeHost::make("/opt/link/keys", "/data/keys", Kind::directory);
  f.symlinks = {{"/opt/link", "/opt"}};
  host.add(f);
  EXPECT_TRUE(refusals_for(split({{":root", Access::read},
                                  {":workspace", Access::write},
                                  {"/opt/link/keys", Access::deny}}),
                           host)
                  .empty());
}

TEST(Admission, MissingCarveOutUnderAWritableRoot) {
  auto host = code_host_without_repository();
  host.missing("/code/secrets", "/code");
  expect_one(refusals_for(split({{":root", Access::read},
                                 {":workspace", Access::write},
                                 {"/code/secrets", Access::deny}}),
                          host),
             "missing-carve-out-under-writable", "/code/secrets", "/code/secrets");
  // Missing under a read-only parent: nothing can create it; admitted.
  host.missing("/opt/secrets", "/opt");
  EXPECT_TRUE(refusals_for(split({{":root", Access::read},
                                  {":workspace", Access::write},
                                  {"/opt/secrets", Access::deny}}),
                           host)
                  .empty());
}

TEST(Admission, ProtectedNameThatIsASymlink) {
  FakeHost host("/code", "/code");
  host.dir("/code").missing("/code/.holdfast", "/code");
  PathFacts git = FakeHost::make("/code/.git", "/store/code.git", Kind::directory);
  git.symlinks = {{"/code/.git", "/code"}};
  git.link_target = "/store/code.git";
  host.add(git);
  expect_one(refusals_for(workspace_write(), host), "protected-name-is-symlink", "/code/.git",
             "/code");
}

}  // namespace
}  // namespace holdfast::sandbox

namespace holdfast::sandbox {
namespace {

using testing::FakeHost;

TEST(Admission, OperatorSettingsThroughAWritableSymlink) {
  auto host = code_host_without_repository();
  // ~/.config -> ~/dotfiles/config, inside a writable home: the command
  // could retarget the link and choose the next launch's user settings.
  PathFacts cfg = FakeHost::make("/home/u/.config/holdfast", "/home/u/dotfiles/config/holdfast",
                                 Kind::directory);
  cfg.symlinks = {{"/home/u/.config", "/home/u"}};
  host.facts().operator_dirs[1] = cfg;
  host.dir("/home/u").missing("/home/u/.git", "/home/u").missing("/home/u/.holdfast", "/home/u");
  expect_one(
      refusals_for(
          split({{":root", Access::read}, {":home", Access::write}, {":workspace", Access::write}}),
          host),
      "trusted-path-through-writable-symlink", "/home/u/.config/holdfast");
  // With a read-only home the link cannot be changed: admitted.
  EXPECT_TRUE(refusals_for(workspace_write(), host).empty());
}

TEST(Admission, MissingSettingsDirectoryWithAMissingParentUnderAWritableHome) {
  auto host = code_host_without_repository();
  // Neither ~/.config nor ~/.config/holdfast exists; home is writable.
  host.facts().operator_dirs[1] = FakeHost::make(
      "/home/u/.config/holdfast", "/home/u/.config/holdfast", Kind::missing, "/home/u");
  host.dir("/home/u").missing("/home/u/.git", "/home/u").missing("/home/u/.holdfast", "/home/u");
  const Policy p =
      split({{":root", Access::read}, {":home", Access::write}, {":workspace", Access::write}});
  expect_one(refusals_for(p, host), "trusted-path-missing-under-writable",
             "/home/u/.config/holdfast", "/home/u/.config/holdfast");
  // Once ~/.config exists the missing holdfast directory can be masked.
  host.facts().operator_dirs[1].existing_ancestor = "/home/u/.config";
  EXPECT_TRUE(refusals_for(p, host).empty());
}

TEST(Admission, GitdirThroughAWritableSymlink) {
  FakeHost host("/code", "/code");
  host.dir("/code").git_file("/code/.git", "/code/link/wt").missing("/code/.holdfast", "/code");
  PathFacts gitdir = FakeHost::make("/code/link/wt", "/repo/.git/worktrees/wt", Kind::directory);
  gitdir.symlinks = {{"/code/link", "/code"}};
  host.add(gitdir);
  expect_one(refusals_for(workspace_write(), host), "trusted-path-through-writable-symlink",
             "/code/link/wt", "/code");
}

// holdfast's state directory (launch records) is protected like the
// settings directories.
TEST(Admission, StateDirectoryIsNeverWritable) {
  auto host = code_host_without_repository();
  host.dir("/home/u/.local/state/holdfast");
  host.missing("/home/u/.local/state/holdfast/.git", "/home/u/.local/state/holdfast");
  host.missing("/home/u/.local/state/holdfast/.holdfast", "/home/u/.local/state/holdfast");
  host.state_dir(FakeHost::make("/home/u/.local/state/holdfast", "/home/u/.local/state/holdfast",
                                Kind::directory));
  const Policy p = split({{":root", Access::read},
                          {":workspace", Access::write},
                          {"/home/u/.local/state/holdfast", Access::write}});
  expect_one(refusals_for(p, host), "state-dir-writable", "/home/u/.local/state/holdfast",
             "/home/u/.local/state/holdfast");
}

TEST(Admission, WorkspaceMustNotOverlapTheStateDirectory) {
  FakeHost host("/srv/state", "/srv/state");
  host.dir("/srv/state").missing("/srv/state/.git", "/srv/state");
  host.missing("/srv/state/.holdfast", "/srv/state");
  host.state_dir(FakeHost::make("/srv/state/holdfast", "/srv/state/holdfast", Kind::directory));
  host.dir("/srv/state/holdfast");
  expect_one(refusals_for(workspace_write(), host), "workspace-overlaps-state", "/srv/state");
}

TEST(Admission, StateDirectoryThroughAWritableSymlink) {
  auto host = code_host_without_repository();
  PathFacts state = FakeHost::make("/code/state", "/srv/state", Kind::directory);
  state.symlinks = {{"/code/state", "/code"}};
  host.state_dir(state).dir("/srv/state");
  expect_one(refusals_for(workspace_write(), host), "trusted-path-through-writable-symlink",
             "/code/state");
}

// The settings file is a symlink to a file in the writable workspace.
TEST(Admission, SettingsFileWritableInside) {
  auto host = code_host_without_repository();
  PathFacts file = FakeHost::make("/etc/holdfast/settings.json", "/code/policy.json", Kind::file);
  file.symlinks = {{"/etc/holdfast/settings.json", "/etc/holdfast"}};
  file.id = {1, 42};
  file.links = 1;
  host.settings_file(file, {1, 42});
  expect_one(refusals_for(workspace_write(), host), "settings-file-writable-inside",
             "/etc/holdfast/settings.json");
}

// A second name (hard link) could be anywhere on a file system that a
// writable bind exposes.
TEST(Admission, SettingsFileWithHardLinksOnAWritableFileSystem) {
  auto host = code_host_without_repository();
  PathFacts file =
      FakeHost::make("/etc/holdfast/settings.json", "/etc/holdfast/settings.json", Kind::file);
  file.id = {7, 42};
  file.links = 2;
  host.settings_file(file, {7, 42});
  host.identity("/code", {7, 100});
  expect_one(refusals_for(workspace_write(), host), "settings-file-linked-into-writable",
             "/etc/holdfast/settings.json");
  // The same file on another file system than every writable path: its
  // other names cannot be inside.
  auto elsewhere = code_host_without_repository();
  elsewhere.settings_file(file, {7, 42}).identity("/code", {8, 100});
  EXPECT_TRUE(refusals_for(workspace_write(), elsewhere).empty());
}

TEST(Admission, SettingsFileThatIsNoLongerTheFileRead) {
  auto host = code_host_without_repository();
  PathFacts file =
      FakeHost::make("/etc/holdfast/settings.json", "/etc/holdfast/settings.json", Kind::file);
  file.id = {7, 43};
  file.links = 1;
  host.settings_file(file, {7, 42});
  expect_one(refusals_for(workspace_write(), host), "settings-file-changed",
             "/etc/holdfast/settings.json");
}

TEST(Admission, NestedRepositoryGitdirThroughAWritableSymlink) {
  auto host = code_host_without_repository();
  PathFacts git = FakeHost::make("/code/lib/.git", "/code/lib/.git", Kind::file);
  git.gitdir = "/code/link/lib.git";
  host.add(git);
  host.facts().nested_git.push_back("/code/lib/.git");
  PathFacts gitdir = FakeHost::make("/code/link/lib.git", "/code/store/lib.git", Kind::directory);
  gitdir.symlinks = {{"/code/link", "/code"}};
  host.add(gitdir);
  expect_one(refusals_for(workspace_write(), host), "trusted-path-through-writable-symlink",
             "/code/link/lib.git", "/code/lib");
}

}  // namespace
}  // namespace holdfast::sandbox
