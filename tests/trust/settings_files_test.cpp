// Settings files against other local users (issue 28.2): what holdfast
// creates is private (a system scope is readable by all, as every user's
// launches read it), and its lock cannot be held by anyone who cannot write
// the settings: with a readable lock file, another user's shared POSIX lock
// made the owner's `holdfast settings set` hang without a word. A save that
// waits says who holds the lock, and gives up after a bound.
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/process.hpp"
#include "escape_support.hpp"
#include "tests/support/trusted_dir.hpp"

namespace holdfast::run::testing {
namespace {

class SettingsFilesTest : public RunTest {
 protected:
  static mode_t mode_of(const fs::path& path) {
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
  }

  // Opens `path` read-only as `uid`: 0, or the errno.
  static int open_errno_as(uid_t uid, const fs::path& path) {
    return wait_exit_code(fork_child([&] {
      if (::setgroups(0, nullptr) != 0 || ::setgid(uid) != 0 || ::setuid(uid) != 0) return 100;
      const int fd = ::open(path.c_str(), O_RDONLY);
      return fd >= 0 ? 0 : errno;
    }));
  }
};

TEST_F(SettingsFilesTest, UserSettingsAreCreatedPrivate) {
  const holdfast::testing::TestUser owner;
  const fs::path home = base_ / "owner";
  fs::create_directory(home);
  ASSERT_EQ(::chown(home.c_str(), owner.uid(), owner.gid()), 0);
  config_dir_ = home / ".config" / "holdfast";  // made by the save
  Launch launch;
  launch.uid = owner.uid();
  launch.env["HOME"] = home.string();
  launch.env["HOLDFAST_CONFIG_DIR"] = config_dir_.string();
  launch.env["XDG_STATE_HOME"] = (home / "state").string();
  const auto saved = holdfast(
      {"settings", "set", "tools.executionSandbox", R"({"filesystem": "read-only"})"}, launch);
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  EXPECT_EQ(mode_of(home / ".config"), 0700u);
  EXPECT_EQ(mode_of(config_dir_), 0700u);
  EXPECT_EQ(mode_of(config_dir_ / "settings.json"), 0600u);
  EXPECT_EQ(mode_of(config_dir_ / "settings.json.lock"), 0600u);
  // Another user reads neither the policy (what is denied, where the
  // secrets are) nor the lock.
  EXPECT_EQ(open_errno_as(kNobody, config_dir_ / "settings.json"), EACCES);
}

// A system scope is read by every user's launches: readable, but its lock
// is root's alone.
TEST_F(SettingsFilesTest, SystemSettingsAreReadableButTheirLockIsNot) {
  const fs::path etc = base_ / "etc-holdfast";
  system_dir_ = etc;  // made by the save, as /etc/holdfast
  const auto saved = holdfast(
      {"settings", "set", "--scope", "system", "security.requireExecutionSandbox", "true"});
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  EXPECT_EQ(mode_of(etc), 0755u);
  EXPECT_EQ(mode_of(etc / "settings.json"), 0644u);
  EXPECT_EQ(mode_of(etc / "settings.json.lock"), 0600u);
  EXPECT_EQ(open_errno_as(kNobody, etc / "settings.json"), 0);
  EXPECT_EQ(open_errno_as(kNobody, etc / "settings.json.lock"), EACCES)
      << "another user can open the lock, and so hold it";
}

// A lock file an older holdfast left 0644 is made private by the next save.
TEST_F(SettingsFilesTest, ReadableLockFileIsMadePrivateOnTheNextSave) {
  set_policy({{"filesystem", "read-only"}});
  write_file(config_dir_ / "settings.json.lock", "");
  fs::permissions(config_dir_ / "settings.json.lock", fs::perms(0644));
  const auto saved = holdfast({"settings", "set", "tools.executionSandbox.network", "\"closed\""});
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  EXPECT_EQ(mode_of(config_dir_ / "settings.json.lock"), 0600u);
}

// A process holds the scope's lock: the save says which process it waits
// for, and goes on once the lock is free.
TEST_F(SettingsFilesTest, SaveThatWaitsForTheLockSaysWhoHoldsIt) {
  set_policy({{"filesystem", "read-only"}});
  const fs::path lock = config_dir_ / "settings.json.lock";
  write_file(lock, "");
  fs::permissions(lock, fs::perms(0600));
  holdfast::testing::Pipe held;
  holdfast::testing::Pipe release;
  const holdfast::testing::Child holder([&] {
    const int fd = ::open(lock.c_str(), O_RDONLY);
    struct flock shared {};
    shared.l_type = F_RDLCK;
    shared.l_whence = SEEK_SET;
    if (fd < 0 || ::fcntl(fd, F_SETLK, &shared) != 0) ::_exit(1);
    held.send('h');
    char go = 0;
    release.receive(go);  // holds the lock until told
    ::_exit(0);
  });
  char h = 0;
  ASSERT_TRUE(held.receive(h));

  // The save, its stderr on a pipe read line by line.
  holdfast::testing::Pipe errors;
  base::SpawnRequest request;
  request.argv = {holdfast_.string(), "settings", "set", "tools.executionSandbox.network",
                  "\"closed\""};
  request.environment = std::vector<std::string>();
  for (const auto& [name, value] : environment(Launch{})) {
    request.environment->push_back(name + "=" + value);
  }
  request.fds = {{errors.write_end, 2}};
  base::Child save = base::spawn(request);
  errors.close_write();
  std::string said;
  char c = 0;
  while (said.find('\n') == std::string::npos && ::read(errors.read_end, &c, 1) == 1) said += c;
  EXPECT_NE(said.find("holdfast: waiting for pid " + std::to_string(holder.pid())),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("which holds " + lock.string()), std::string::npos) << said;
  release.send('g');
  EXPECT_EQ(base::exit_code(save.wait()), 0);
  EXPECT_NE(read_file(config_dir_ / "settings.json").find("\"network\": \"closed\""),
            std::string::npos);
}

}  // namespace
}  // namespace holdfast::run::testing
