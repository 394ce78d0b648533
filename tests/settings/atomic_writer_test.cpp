// The durable atomic writer on the real file system: what it leaves behind
// when killed at each step, mode and owner, symlinked targets, an unwritable
// directory and a full file system.
#include "settings/atomic_writer.hpp"

#include <grp.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "base/system_error.hpp"
#include "base/write_target.hpp"
#include "settings/store.hpp"
#include "tests/support/files.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

namespace fs = std::filesystem;
using testing::names_starting_with;
using testing::read_file;
using testing::run_in_child;
using testing::TempDir;
using testing::write_file;

constexpr WriteStep kAllSteps[] = {
    WriteStep::create_temp, WriteStep::write_data, WriteStep::keep_mode, WriteStep::sync_file,
    WriteStep::backup,      WriteStep::rename,     WriteStep::sync_dir};

const std::string kTempPrefix = ".settings.json.holdfast-tmp.";

struct stat stat_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st;
}

TEST(AtomicWriter, CreatesAndReplacesWithNothingLeftBehind) {
  TempDir dir;
  const auto target = dir / "settings.json";
  write_file_atomically(target, "{\"a\": 1}\n");
  EXPECT_EQ(read_file(target), "{\"a\": 1}\n");
  EXPECT_EQ(stat_of(target).st_mode & 07777, 0644U);  // new_file_mode, whatever the umask
  const ino_t first = stat_of(target).st_ino;
  write_file_atomically(target, "{\"a\": 2}\n");
  EXPECT_EQ(read_file(target), "{\"a\": 2}\n");
  EXPECT_NE(stat_of(target).st_ino, first);  // replaced by rename, never rewritten in place
  EXPECT_EQ(names_starting_with(dir.path(), "."), std::vector<std::string>{});
}

TEST(AtomicWriter, BackupIsAHardLinkOfThePreviousFile) {
  TempDir dir;
  const auto target = dir / "settings.json";
  WriteOptions options;
  options.keep_backup = true;
  write_file_atomically(target, "one\n", options);  // nothing to back up yet
  EXPECT_FALSE(fs::exists(dir / "settings.json.bak"));
  const ino_t first = stat_of(target).st_ino;
  write_file_atomically(target, "two\n", options);
  EXPECT_EQ(read_file(target), "two\n");
  EXPECT_EQ(read_file(dir / "settings.json.bak"), "one\n");
  EXPECT_EQ(stat_of(dir / "settings.json.bak").st_ino, first);  // linked, not copied or moved
  EXPECT_TRUE(names_starting_with(dir.path(), kTempPrefix).empty());
}

// A writer killed (SIGKILL) after any step leaves the old or the new
// document at the path, never a missing or partial one; the next save
// sweeps the temp it left.
TEST(AtomicWriter, KilledAfterEachStepLeavesOldOrNewAndNextSaveSweeps) {
  for (const bool backup : {false, true}) {
    for (const WriteStep step : kAllSteps) {
      SCOPED_TRACE(std::string(write_step_name(step)) + (backup ? " with backup" : ""));
      TempDir dir;
      ScopePaths paths;
      paths.system_dir = dir / "system";
      paths.config_dir = dir.path();
      const auto target = *paths.file(Scope::user);
      Store(paths).set(Scope::user, {"launcher", "launchRecords"}, false);
      const std::string old_bytes = read_file(target);

      StoreOptions options;
      options.keep_backup = backup;
      options.after_write_step = [step](WriteStep done) {
        if (done == step) ::raise(SIGKILL);
      };
      const int code = run_in_child([&] {
        Store(paths, options).set(Scope::user, {"launcher", "launchRecords"}, true);
        return 0;
      });
      ASSERT_EQ(code, -SIGKILL);

      const ScopeFile after = detail::read_scope_file_once(Scope::user, target);
      ASSERT_TRUE(after.exists);
      ASSERT_TRUE(after.valid());
      const bool renamed = step == WriteStep::rename || step == WriteStep::sync_dir;
      if (renamed) {
        EXPECT_EQ(after.document["launcher"]["launchRecords"], true);
        EXPECT_EQ(after.revision, 2U);
        EXPECT_TRUE(names_starting_with(dir.path(), kTempPrefix).empty());
      } else {
        EXPECT_EQ(after.bytes, old_bytes);
        // The dead writer's temp is still there...
        EXPECT_EQ(names_starting_with(dir.path(), kTempPrefix).size(), 1U);
      }
      // ...until the next save, which sweeps it.
      Store(paths).set(Scope::user, {"launcher", "launchRecords"}, false);
      EXPECT_TRUE(names_starting_with(dir.path(), kTempPrefix).empty());
      EXPECT_EQ(detail::read_scope_file_once(Scope::user, target).revision, renamed ? 3U : 2U);
    }
  }
}

// The same with write_file_atomically called directly, the writer the store
// uses, on a document that did not exist before.
TEST(AtomicWriter, KilledAfterEachStepOnANewFileLeavesNothingOrTheNewFile) {
  for (const WriteStep step : kAllSteps) {
    SCOPED_TRACE(write_step_name(step));
    TempDir dir;
    const auto target = dir / "settings.json";
    const int code = run_in_child([&] {
      WriteOptions options;
      options.after_step = [step](WriteStep done) {
        if (done == step) ::raise(SIGKILL);
      };
      write_file_atomically(target, "{\"new\": true}\n", options);
      return 0;
    });
    ASSERT_EQ(code, -SIGKILL);
    if (step == WriteStep::rename || step == WriteStep::sync_dir) {
      EXPECT_EQ(read_file(target), "{\"new\": true}\n");
    } else {
      EXPECT_FALSE(fs::exists(target));
    }
    EXPECT_EQ(sweep_stale_temps(target, /*all=*/false),
              step == WriteStep::rename || step == WriteStep::sync_dir ? 0 : 1);
    EXPECT_TRUE(names_starting_with(dir.path(), kTempPrefix).empty());
  }
}

TEST(AtomicWriter, SweepKeepsTempsOfLiveWritersAndOtherFiles) {
  TempDir dir;
  const auto target = dir / "settings.json";
  write_file(dir / (kTempPrefix + std::to_string(::getpid()) + ".1"), "live");
  // A pid that has exited: fork a child, reap it, use its pid.
  const pid_t dead = testing::fork_child([] { return 0; });
  testing::wait_status(dead);
  write_file(dir / (kTempPrefix + std::to_string(dead) + ".2"), "dead");
  write_file(dir / (kTempPrefix + std::to_string(dead) + ".3.bak"), "dead backup staging");
  write_file(dir / ".other.json.holdfast-tmp.1.1", "another file's temp");
  write_file(dir / "settings.json.bak", "backup");

  EXPECT_EQ(sweep_stale_temps(target, /*all=*/false), 2);
  EXPECT_EQ(names_starting_with(dir.path(), kTempPrefix),
            std::vector<std::string>{kTempPrefix + std::to_string(::getpid()) + ".1"});
  EXPECT_TRUE(fs::exists(dir / ".other.json.holdfast-tmp.1.1"));
  EXPECT_TRUE(fs::exists(dir / "settings.json.bak"));
  EXPECT_EQ(sweep_stale_temps(target, /*all=*/true), 1);
  EXPECT_TRUE(names_starting_with(dir.path(), kTempPrefix).empty());
}

TEST(AtomicWriter, ModeAndOwnerOfTheExistingFileAreKept) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (chown, setuid); the suite runs as root";
  TempDir dir;
  ScopePaths paths;
  paths.system_dir = dir.path();
  paths.config_dir = dir / "user";
  const auto target = *paths.file(Scope::system);
  write_file(target, "{\"$revision\": 4}\n");
  ASSERT_EQ(::chmod(target.c_str(), 0640), 0);
  ASSERT_EQ(::chown(target.c_str(), 1234, 5678), 0);
  const ino_t before = stat_of(target).st_ino;

  Store(paths).set(Scope::system, {"security", "requireExecutionSandbox"}, true);
  const struct stat after = stat_of(target);
  EXPECT_NE(after.st_ino, before);  // it really is a new file
  EXPECT_EQ(after.st_mode & 07777, 0640U);
  EXPECT_EQ(after.st_uid, 1234U);
  EXPECT_EQ(after.st_gid, 5678U);
  EXPECT_EQ(detail::read_scope_file_once(Scope::system, target).revision, 5U);

  // A restrictive mode survives a direct write too.
  ASSERT_EQ(::chmod(target.c_str(), 0600), 0);
  write_file_atomically(target, "{}\n");
  EXPECT_EQ(stat_of(target).st_mode & 07777, 0600U);
  EXPECT_EQ(stat_of(target).st_uid, 1234U);
}

// Symlinked targets: the link is kept and the file it points at replaced,
// in the link target's directory (both for relative and absolute links).
void check_symlinked_save(bool absolute) {
  TempDir dir;
  fs::create_directories(dir / "real");
  fs::create_directories(dir / "conf");
  const auto real = dir / "real" / "settings.json";
  const auto link = dir / "conf" / "settings.json";
  write_file(real, "{\"$revision\": 1}\n");
  ASSERT_EQ(::chmod(real.c_str(), 0600), 0);
  const fs::path link_text = absolute ? real : fs::path("../real/settings.json");
  fs::create_symlink(link_text, link);

  ScopePaths paths;
  paths.system_dir = dir / "system";
  paths.config_dir = dir / "conf";
  Store(paths).set(Scope::user, {"launcher", "launchRecords"}, true);

  ASSERT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(fs::read_symlink(link), link_text);
  const ScopeFile saved = detail::read_scope_file_once(Scope::user, real);
  EXPECT_EQ(saved.revision, 2U);
  EXPECT_EQ(saved.document["launcher"]["launchRecords"], true);
  EXPECT_EQ(read_file(link), saved.bytes);
  EXPECT_EQ(stat_of(real).st_mode & 07777, 0600U);
  // Temps and the lock live beside the real file; beside the link only
  // holdfast's presence marker (settings/presence.hpp), named for the link.
  EXPECT_TRUE(names_starting_with(dir / "real", kTempPrefix).empty());
  auto beside_link = names_starting_with(dir / "conf", "");
  std::sort(beside_link.begin(), beside_link.end());
  EXPECT_EQ(beside_link,
            (std::vector<std::string>{".settings.json.holdfast-seen", "settings.json"}));
  EXPECT_TRUE(fs::exists(dir / "real" / "settings.json.lock"));

  // write_file_atomically directly behaves the same.
  write_file_atomically(link, "{\"$revision\": 9}\n");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(read_file(real), "{\"$revision\": 9}\n");
  EXPECT_EQ(base::resolve_write_target(link), real.lexically_normal());
}

TEST(AtomicWriter, SymlinkedTargetRelativeLinkIsKept) { check_symlinked_save(false); }
TEST(AtomicWriter, SymlinkedTargetAbsoluteLinkIsKept) { check_symlinked_save(true); }

TEST(AtomicWriter, SymlinkChainAndDanglingLink) {
  TempDir dir;
  const auto real = dir / "real.json";
  fs::create_symlink("middle.json", dir / "settings.json");
  fs::create_symlink("real.json", dir / "middle.json");
  // Dangling: the file is created where the chain points.
  write_file_atomically(dir / "settings.json", "{}\n");
  EXPECT_EQ(read_file(real), "{}\n");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir / "settings.json")));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir / "middle.json")));
}

// As nobody, a save into a root-owned 0755 directory fails with EACCES
// naming the path; the original is intact.
TEST(AtomicWriter, UnwritableDirectoryIsAClearErrorAndTheOriginalIsIntact) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (chown, setuid); the suite runs as root";
  TempDir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);  // nobody may enter, not write
  const auto target = dir / "settings.json";
  write_file_atomically(target, "{\"$revision\": 1}\n");
  ASSERT_EQ(::chmod(target.c_str(), 0666), 0);  // even a writable file is replaced, not edited
  testing::Pipe report;
  const int code = run_in_child([&] {
    report.close_read();
    if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) return 10;
    std::string message;
    int error = 0;
    try {
      write_file_atomically(target, "{\"$revision\": 2}\n");
      return 11;
    } catch (const base::SystemError& e) {
      error = e.error_number();
      message = e.what();
      if (e.path() != target) return 12;
    }
    try {
      ScopePaths paths;
      paths.system_dir = dir.path();
      paths.config_dir = dir.path();
      Store(paths).set(Scope::user, {"launcher", "launchRecords"}, true);
      return 13;
    } catch (const base::SystemError& e) {
      if (e.error_number() != EACCES) return 14;
      if (std::string(e.what()).find(target.string()) == std::string::npos) return 15;
    }
    const int size = static_cast<int>(message.size());
    report.send(error);
    report.send(size);
    return ::write(report.write_end, message.data(), message.size()) == size ? 0 : 16;
  });
  report.close_write();
  ASSERT_EQ(code, 0);
  int error = 0;
  int size = 0;
  ASSERT_TRUE(report.receive(error));
  ASSERT_TRUE(report.receive(size));
  std::string message(static_cast<std::size_t>(size), '\0');
  ASSERT_EQ(::read(report.read_end, message.data(), message.size()), size);
  EXPECT_EQ(error, EACCES);
  EXPECT_NE(message.find(target.string()), std::string::npos) << message;
  EXPECT_NE(message.find("Permission denied"), std::string::npos) << message;
  EXPECT_NE(message.find("cannot create temp file in " + dir.path().string()), std::string::npos)
      << message;
  EXPECT_EQ(read_file(target), "{\"$revision\": 1}\n");
  EXPECT_EQ(names_starting_with(dir.path(), ""), std::vector<std::string>{"settings.json"});
}

// A file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored) makes write() fail with
// EFBIG part-way: a clear error, the original intact, no temp left.
TEST(AtomicWriter, FileTooLargeIsAClearErrorAndNothingIsLeft) {
  TempDir dir;
  const auto target = dir / "settings.json";
  write_file_atomically(target, "{\"$revision\": 1}\n");
  const int code = run_in_child([&] {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{1024, 1024};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return 10;
    try {
      write_file_atomically(target, std::string(8192, ' ') + "{}");
      return 11;
    } catch (const base::SystemError& e) {
      if (e.error_number() != EFBIG) return 12;
      if (std::string(e.what()).find("cannot write") == std::string::npos) return 13;
      if (std::string(e.what()).find(kTempPrefix) == std::string::npos) return 14;
    }
    return 0;
  });
  EXPECT_EQ(code, 0);
  EXPECT_EQ(read_file(target), "{\"$revision\": 1}\n");
  EXPECT_EQ(names_starting_with(dir.path(), ""), std::vector<std::string>{"settings.json"});
}

// A real full file system: a 64 KiB tmpfs mounted in a private mount
// namespace of a child (so nothing outlives the test), filled by a save.
TEST(AtomicWriter, FullFileSystemIsAClearErrorAndNothingIsLeft) {
  TempDir dir;
  const auto mount_point = dir / "small";
  fs::create_directories(mount_point);
  const int code = run_in_child([&] {
    if (::unshare(CLONE_NEWNS) != 0) return 77;
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return 77;
    if (::mount("holdfast-test", mount_point.c_str(), "tmpfs", 0, "size=64k,mode=0755") != 0) {
      return 77;
    }
    ScopePaths paths;
    paths.system_dir = mount_point;
    paths.config_dir = mount_point;
    Store store(paths);
    store.set(Scope::user, {"launcher", "launchRecords"}, true);
    const auto target = *paths.file(Scope::user);
    const std::string before = read_file(target);
    try {
      // Larger than the whole file system.
      store.set(Scope::user, {"permissions", "deny"},
                nlohmann::json::array({std::string(100 * 1024, 'x')}));
      return 11;
    } catch (const base::SystemError& e) {
      if (e.error_number() != ENOSPC) return 12;
      if (std::string(e.what()).find("No space left on device") == std::string::npos) return 13;
    }
    if (read_file(target) != before) return 14;
    if (detail::read_scope_file_once(Scope::user, target).revision != 1) return 15;
    // Only the settings file, its lock and holdfast's presence marker remain.
    auto left = names_starting_with(mount_point, "");
    std::sort(left.begin(), left.end());
    if (left != std::vector<std::string>{".settings.json.holdfast-seen", "settings.json",
                                         "settings.json.lock"}) {
      return 16;
    }
    // And the next save, once there is room, works.
    store.set(Scope::user, {"launcher", "launchRecords"}, false);
    return detail::read_scope_file_once(Scope::user, target).revision == 2 ? 0 : 17;
  });
  if (code == 77) GTEST_SKIP() << "cannot mount a tmpfs here (needs CAP_SYS_ADMIN)";
  EXPECT_EQ(code, 0);
  // The mount belonged to the child's namespace: gone with it.
  EXPECT_TRUE(fs::is_empty(mount_point));
}

}  // namespace
}  // namespace holdfast::settings
