// Invariant 5 against the writers that leave gaps: the snapshot never
// reports the policy absent and never returns an empty policy, while a
// reader without the absence proof does fall into the gap (showing that the
// test can see it).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>

#include "settings/errors.hpp"
#include "settings/key_path.hpp"
#include "settings/snapshot.hpp"
#include "tests/support/files.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

using holdfast::testing::Child;
using holdfast::testing::TempDir;
using holdfast::testing::write_file;

const std::string kPolicyA =
    R"({"tools": {"executionSandbox": {"filesystem": "read-only", "network": "closed"}}, "n": "a"})";
const std::string kPolicyB =
    R"({"tools": {"executionSandbox": {"filesystem": "read-only", "network": "closed"}}, "n": "b"})";

void write_fd(int fd, const std::string& text) {
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) _exit(3);
}

// Writers save at about this rate: far faster than any person or GUI, and
// slow enough that a snapshot can finish between two saves. (This is the
// writers' own pace, not synchronisation.)
const timespec kBetweenSaves{0, 100'000};

// The writer from the seeds: write temp, rename live file to a backup,
// rename temp into place. Between the renames the path does not exist.
[[noreturn]] void rename_backup_writer(const std::filesystem::path& target, bool paced = true) {
  const std::string temp = target.string() + ".tmp";
  const std::string backup = target.string() + ".orig";
  for (std::uint64_t i = 0;; ++i) {
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) _exit(2);
    write_fd(fd, i % 2 == 0 ? kPolicyA : kPolicyB);
    ::close(fd);
    if (::rename(target.c_str(), backup.c_str()) != 0) _exit(4);
    if (::rename(temp.c_str(), target.c_str()) != 0) _exit(5);
    if (paced) ::nanosleep(&kBetweenSaves, nullptr);
  }
}

// An editor-like writer: truncate in place, pause, write.
[[noreturn]] void in_place_writer(const std::filesystem::path& target) {
  const timespec pause{0, 500'000};  // the writer's own behaviour, not synchronisation
  for (std::uint64_t i = 0;; ++i) {
    const int fd = ::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) _exit(2);
    ::nanosleep(&pause, nullptr);
    write_fd(fd, i % 2 == 0 ? kPolicyA : kPolicyB);
    ::close(fd);
    ::nanosleep(&kBetweenSaves, nullptr);
  }
}

class LegacyWriterTest : public ::testing::Test {
 protected:
  LegacyWriterTest() {
    paths_.system_dir = dir_ / "etc";
    paths_.config_dir = dir_ / "config";
    std::filesystem::create_directories(paths_.system_dir);
    std::filesystem::create_directories(paths_.config_dir);
    write_file(user_file(), kPolicyA);
  }
  std::filesystem::path user_file() const { return paths_.config_dir / "settings.json"; }

  static bool has_policy(const Snapshot& snapshot) {
    const auto* policy =
        find_value(snapshot.effective.value, {"tools", "executionSandbox", "filesystem"});
    return policy != nullptr && *policy == "read-only";
  }

  TempDir dir_{holdfast::testing::memory_backed_base()};
  ScopePaths paths_;
};

TEST_F(LegacyWriterTest, RenameBackupWriterNeverMakesThePolicyDisappear) {
  Child writer([&] { rename_backup_writer(user_file()); });
  constexpr int kSnapshots = 100'000;
  int absent = 0;
  int waited = 0;
  int refused = 0;
  for (int i = 0; i < kSnapshots; ++i) {
    try {
      const Snapshot snapshot = take_snapshot(paths_, {});
      if (!has_policy(snapshot)) ++absent;
      if (snapshot.settling[1] == Settling::waited_for_writer) ++waited;
    } catch (const SnapshotError&) {
      ++refused;  // "kept changing": fail closed, counted apart
    }
  }
  EXPECT_EQ(absent, 0) << "snapshots without the policy out of " << kSnapshots;
  EXPECT_LT(refused, kSnapshots / 100) << "the reader should rarely give up";
  std::printf("rename-backup writer: %d snapshots, %d absent, %d waited out a gap, %d refused\n",
              kSnapshots, absent, waited, refused);
}

TEST_F(LegacyWriterTest, NaiveReaderFallsIntoTheRenameBackupGap) {
  // Positive control: plain "ENOENT means no settings" reads against the
  // same writer. If this never saw the gap, the test above would prove
  // nothing.
  Child writer([&] { rename_backup_writer(user_file(), /*paced=*/false); });
  constexpr long kMaxReads = 20'000'000;
  long reads = 0;
  long missing = 0;
  while (reads < kMaxReads && missing < 3) {
    ++reads;
    const int fd = ::open(user_file().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      ASSERT_EQ(errno, ENOENT);
      ++missing;
    } else {
      ::close(fd);
    }
  }
  EXPECT_GT(missing, 0) << "the naive reader never saw the file missing in " << reads << " reads";
  std::printf("naive reader: saw the file missing %ld times in %ld reads\n", missing, reads);
}

TEST_F(LegacyWriterTest, InPlaceWriterNeverYieldsAnEmptyOrResetPolicy) {
  Child writer([&] { in_place_writer(user_file()); });
  SnapshotOptions options;
  options.settle_window = std::chrono::milliseconds(20);
  options.max_wait = std::chrono::milliseconds(200);
  constexpr int kSnapshots = 2'000;
  int honoured = 0;
  int refused = 0;
  int without_policy = 0;
  for (int i = 0; i < kSnapshots; ++i) {
    try {
      const Snapshot snapshot = take_snapshot(paths_, options);
      if (has_policy(snapshot)) {
        ++honoured;
      } else {
        ++without_policy;
      }
    } catch (const InvalidSettings&) {
      ++refused;  // failing closed is allowed; an empty policy is not
    } catch (const SnapshotError&) {
      ++refused;
    }
  }
  EXPECT_EQ(without_policy, 0);
  EXPECT_GT(honoured, 0);
  std::printf("in-place writer: %d snapshots, %d honoured, %d refused, %d without policy\n",
              kSnapshots, honoured, refused, without_policy);
}

}  // namespace
}  // namespace holdfast::settings
