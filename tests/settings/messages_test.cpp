// Failures of the writer and the lock say what happened to which file, and
// carry no system error that did not happen. Each failure is real: a lock
// another process holds past the bound, an fsync that a seccomp filter (libseccomp)
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

// A save waits for the scope's lock a bounded time: then the failure names
// the lock file and the process that holds it (F_GETLK), and whoever waits
// is told once, at the start, whom it waits for.
TEST(Messages, LockTimeoutNamesTheLockFileAndItsHolder) {
  TempDir dir;
  const fs::path user = dir / "user.json";
  testing::Pipe held, go;
  const pid_t holder = testing::fork_child([&] {
    const ScopeLock lock(user);
    held.send('x');
    char unused = 0;
    go.receive(unused);
    return 0;
  });
  char unused = 0;
  ASSERT_TRUE(held.receive(unused));
  LockWait wait;
  wait.bound = std::chrono::milliseconds(200);
  std::vector<std::string> told;
  wait.on_wait = [&](const fs::path& lock, const std::string& who) {
    told.push_back(lock.string() + " " + who);
  };
  const std::string pid = "pid " + std::to_string(holder);
  try {
    const ScopeLock lock(user, wait);
    ADD_FAILURE() << "the lock was taken while another process held it";
  } catch (const LockTimeout& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(ScopeLock::lock_path_for(user).string()), std::string::npos) << message;
    EXPECT_NE(message.find("held by " + pid), std::string::npos) << message;
    EXPECT_NE(message.find("nothing was saved"), std::string::npos) << message;
  }
  ASSERT_EQ(told.size(), 1u);
  EXPECT_NE(told[0].find(pid), std::string::npos) << told[0];
  go.send('x');
  EXPECT_EQ(testing::wait_exit_code(holder), 0);
  const ScopeLock free_now(user, wait);  // released: taken at once
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
