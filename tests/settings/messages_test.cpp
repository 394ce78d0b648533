// Failures of the writer and the lock say what happened to which file, and
// carry no system error that did not happen. Each failure is real: a lock
// deadlock the kernel refuses, an fsync that a seccomp filter (libseccomp)
// fails with EIO, a directory or a FIFO where a settings file should be.
#include <gtest/gtest.h>
#include <seccomp.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "base/system_error.hpp"
#include "settings/atomic_writer.hpp"
#include "settings/file_lock.hpp"
#include "settings/scope_file.hpp"
#include "tests/support/files.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::TempDir;
using testing::write_file;

// Takes the lock on `first`, reports it, waits for the go, then takes the
// lock on `second`. Writes what the second lock threw to `report`; exit 1
// when it threw.
int lock_in_order(const fs::path& first, const fs::path& second, testing::Pipe& held,
                  testing::Pipe& go, const fs::path& report) {
  const ScopeLock lock(first);
  held.send('x');
  char unused = 0;
  if (!go.receive(unused)) return 2;
  try {
    const ScopeLock also(second);
  } catch (const std::exception& e) {
    write_file(report, e.what());
    return 1;
  }
  return 0;
}

TEST(Messages, LockFailureNamesTheLockFile) {
  // Two processes take the same two scope locks in opposite orders: the
  // kernel refuses the request that would close the cycle (EDEADLK), a real
  // lock failure like ENOLCK on a file system without POSIX locks.
  TempDir dir;
  const fs::path user = dir / "user.json";
  const fs::path system = dir / "system.json";
  testing::Pipe a_held, b_held, a_go, b_go;
  const pid_t a = testing::fork_child(
      [&] { return lock_in_order(user, system, a_held, a_go, dir / "a.report"); });
  const pid_t b = testing::fork_child(
      [&] { return lock_in_order(system, user, b_held, b_go, dir / "b.report"); });
  char unused = 0;
  ASSERT_TRUE(a_held.receive(unused));
  ASSERT_TRUE(b_held.receive(unused));
  a_go.send('x');
  b_go.send('x');
  const int a_exit = testing::wait_exit_code(a);
  const int b_exit = testing::wait_exit_code(b);
  // Exactly one of them was refused; the other got its lock once the
  // refused one had exited.
  ASSERT_EQ((a_exit == 1) + (b_exit == 1), 1) << a_exit << " " << b_exit;
  EXPECT_EQ(a_exit + b_exit, 1);
  const bool a_refused = a_exit == 1;
  const std::string message = read_file(dir / (a_refused ? "a.report" : "b.report"));
  const fs::path lock_file = ScopeLock::lock_path_for(a_refused ? system : user);
  EXPECT_NE(message.find(lock_file.string()), std::string::npos) << message;
  EXPECT_NE(message.find(std::strerror(EDEADLK)), std::string::npos) << message;
}

// Makes every later fsync fail with EIO in this process.
void fail_every_fsync() {
  const scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
  if (filter == nullptr || seccomp_rule_add(filter, SCMP_ACT_ERRNO(EIO), SCMP_SYS(fsync), 0) != 0 ||
      seccomp_load(filter) != 0) {
    std::abort();
  }
  seccomp_release(filter);
}

TEST(Messages, DirectorySyncFailingAfterTheRenameSaysTheContentIsInPlace) {
  TempDir dir;
  const fs::path target = dir / "settings.json";
  write_file(target, "{\"old\": 1}");
  const int exit_code = testing::run_in_child([&] {
    WriteOptions options;
    // Once the temp has been renamed over the target, only the directory's
    // fsync is left, and it fails.
    options.after_step = [](WriteStep step) {
      if (step == WriteStep::rename) fail_every_fsync();
    };
    try {
      write_file_atomically(target, "{\"new\": 1}", options);
    } catch (const base::SystemError& e) {
      write_file(dir / "report", e.what());
      return e.error_number() == EIO ? 0 : 2;
    }
    return 1;
  });
  const std::string message = read_file(dir / "report");
  ASSERT_EQ(exit_code, 0) << message;
  EXPECT_EQ(read_file(target), "{\"new\": 1}");
  EXPECT_NE(message.find("the new content of " + target.string() + " is in place"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("may not survive a crash"), std::string::npos) << message;
  EXPECT_NE(message.find(dir.path().string() + ": " + std::strerror(EIO)), std::string::npos)
      << message;
}

TEST(Messages, NotARegularFileSaysWhatItIsWithoutASystemError) {
  TempDir dir;
  const fs::path directory = dir / "directory.json";
  fs::create_directory(directory);
  const fs::path fifo = dir / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  for (const auto& [path, kind] :
       {std::pair{directory, "a directory"}, std::pair{fifo, "a FIFO"}}) {
    try {
      detail::read_scope_file_once(Scope::workspace, path);
      ADD_FAILURE() << path << " was read";
    } catch (const base::SystemError& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.error_number(), 0) << message;
      EXPECT_EQ(message.find(std::strerror(EINVAL)), std::string::npos) << message;
      EXPECT_NE(message.find(path.string() + ": it is " + kind + ", not a regular file"),
                std::string::npos)
          << message;
    }
  }
}

}  // namespace
}  // namespace holdfast::settings
