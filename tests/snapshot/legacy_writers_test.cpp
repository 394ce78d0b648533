// The snapshot reader against writers that leave gaps: it never reports the
// policy absent and never returns an empty policy, while a reader that
// believes a missing file does fall into the gap (showing that the test can
// see it). Each test also checks that the gap was really exercised (the
// reader had to wait) and that the writer was still at work at the end.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "settings/atomic_writer.hpp"
#include "settings/errors.hpp"
#include "settings/key_path.hpp"
#include "settings/snapshot.hpp"
#include "tests/snapshot/writer_steps.hpp"
#include "tests/support/files.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

using holdfast::testing::Child;
using holdfast::testing::still_running;
using holdfast::testing::TempDir;
using holdfast::testing::write_file;
using holdfast::testing::write_new;

const std::string kLegacyPolicyA =
    R"({"tools": {"executionSandbox": {"filesystem": "read-only", "network": "closed"}}, "n": "a"})";
const std::string kLegacyPolicyB =
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
    write_new(temp, i % 2 == 0 ? kLegacyPolicyA : kLegacyPolicyB);
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
    write_fd(fd, i % 2 == 0 ? kLegacyPolicyA : kLegacyPolicyB);
    ::close(fd);
    ::nanosleep(&kBetweenSaves, nullptr);
  }
}

// The writer from the reading issue: like the one above, but the backup is
// named NAME.prev (on no list of writer names) and it pauses between the
// two renames, so the gap is long and shows no evidence.
[[noreturn]] void pausing_prev_writer(const std::filesystem::path& target, timespec pause) {
  // As long between saves as inside one: the file is there half the time.
  const std::string temp = target.string() + ".next";
  const std::string backup = target.string() + ".prev";
  for (std::uint64_t i = 0;; ++i) {
    write_new(temp, i % 2 == 0 ? kLegacyPolicyA : kLegacyPolicyB);
    if (::rename(target.c_str(), backup.c_str()) != 0) _exit(4);
    ::nanosleep(&pause, nullptr);
    if (::rename(temp.c_str(), target.c_str()) != 0) _exit(5);
    ::nanosleep(&pause, nullptr);
  }
}

// How long the writers below leave their gap open, and then the file in
// place: longer than the settle window the tests give the reader (so that
// no evidence rule can wait it out), short next to the reader's patience.
const timespec kGap{0, 20'000'000};

// A tool that replaces the whole configuration directory: it builds a new
// one beside it, moves the old one away, moves the new one in, and removes
// the old one. Between the two renames the directory does not exist.
[[noreturn]] void directory_swap_writer(const std::filesystem::path& directory) {
  namespace fs = std::filesystem;
  const fs::path fresh = directory.string() + ".new";
  const fs::path old = directory.string() + ".old";
  for (std::uint64_t i = 0;; ++i) {
    std::error_code ec;
    fs::remove_all(fresh, ec);
    if (::mkdir(fresh.c_str(), 0755) != 0) _exit(2);
    write_new((fresh / "settings.json").string(), i % 2 == 0 ? kLegacyPolicyA : kLegacyPolicyB);
    if (::rename(directory.c_str(), old.c_str()) != 0) _exit(4);
    ::nanosleep(&kGap, nullptr);
    if (::rename(fresh.c_str(), directory.c_str()) != 0) _exit(5);
    fs::remove_all(old, ec);
    ::nanosleep(&kGap, nullptr);
  }
}

// settings.json is a symlink; the writer points it at a new file by
// removing the link and making a new one (a moment with no link), and the
// file it pointed at is removed before the new link exists (a moment with a
// dangling link).
[[noreturn]] void symlink_flip_writer(const std::filesystem::path& link) {
  for (std::uint64_t i = 0;; ++i) {
    const std::string next = link.string() + "." + std::to_string(i % 2) + ".real";
    const std::string current = link.string() + "." + std::to_string((i + 1) % 2) + ".real";
    write_new(next, i % 2 == 0 ? kLegacyPolicyA : kLegacyPolicyB);
    ::unlink(current.c_str());  // the link dangles
    ::nanosleep(&kGap, nullptr);
    if (::unlink(link.c_str()) != 0) _exit(4);  // no link at all
    ::nanosleep(&kGap, nullptr);
    if (::symlink(next.c_str(), link.c_str()) != 0) _exit(5);
    ::nanosleep(&kGap, nullptr);
  }
}

class LegacyWriterTest : public ::testing::Test {
 protected:
  LegacyWriterTest() {
    paths_.system_dir = dir_ / "etc";
    paths_.config_dir = dir_ / "config";
    paths_.state_dir = dir_ / "state";
    std::filesystem::create_directories(paths_.system_dir);
    std::filesystem::create_directories(paths_.config_dir);
    write_file(user_file(), kLegacyPolicyA);
    write_file(*paths_.file(Scope::system), R"j({"permissions": {"deny": ["Read(/secret)"]}})j");
    // The state every installation reaches after its first launch: the
    // operator files have been read once and are remembered.
    (void)take_snapshot(paths_, {});
  }

  struct Counts {
    int snapshots = 0;
    int absent = 0;   // read without the policy: the failure this file exists for
    int waited = 0;   // the reader found the file missing or damaged and waited
    int refused = 0;  // failed closed
    std::string first_refusal;
  };

  // Takes at least `n` snapshots against a running writer, and goes on (up
  // to ten times as many) until one of them has met the writer's gap, and
  // counts what happened.
  // (`gapless` writers never make it wait: exactly `n`.)
  Counts read_against(pid_t writer, int n, bool gapless = false,
                      const SnapshotOptions& options = {}) {
    Counts counts;
    for (int i = 0; i < n || (!gapless && counts.waited == 0 && i < 10 * n); ++i) {
      ++counts.snapshots;
      try {
        const Snapshot snapshot = take_snapshot(paths_, options);
        if (!has_policy(snapshot)) ++counts.absent;
        if (snapshot.settling[1] != Settling::immediate) ++counts.waited;
      } catch (const SnapshotError& e) {
        if (counts.refused++ == 0) counts.first_refusal = e.what();
      } catch (const InvalidSettings& e) {
        if (counts.refused++ == 0) counts.first_refusal = e.what();
      }
    }
    EXPECT_TRUE(still_running(writer)) << "the writer died before the reader finished";
    return counts;
  }

  // A settle window shorter than the writers' gaps: only the memory of the
  // file, not a guess about writers, can keep the reader from calling it
  // absent.
  static SnapshotOptions short_settle_window() {
    SnapshotOptions options;
    options.settle_window = std::chrono::milliseconds(5);
    return options;
  }

  // The reading held: never without the policy, rarely refused, and (for a
  // writer that leaves a gap) the gap was really met.
  static void expect_held(const Counts& c, bool met_the_gap) {
    EXPECT_EQ(c.absent, 0);
    if (met_the_gap) {
      EXPECT_GT(c.waited, 0) << "the reader never met the gap: this run proved nothing";
    }
    EXPECT_LT(c.refused, c.snapshots / 100) << "the reader should rarely give up";
  }

  static void print(const char* writer, const Counts& c) {
    std::printf("%s: %d snapshots, %d absent, %d waited out a gap, %d refused%s%s\n", writer,
                c.snapshots, c.absent, c.waited, c.refused, c.refused > 0 ? "; first: " : "",
                c.first_refusal.c_str());
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
  const Counts c = read_against(writer.pid(), 5'000);
  print("rename-backup writer", c);
  expect_held(c, /*met_the_gap=*/true);
}

TEST_F(LegacyWriterTest, PausingWriterWithAnUnlistedBackupNameNeverMakesThePolicyDisappear) {
  Child writer([&] { pausing_prev_writer(user_file(), kGap); });
  const Counts c = read_against(writer.pid(), 200, false, short_settle_window());
  print("pausing .prev writer", c);
  expect_held(c, /*met_the_gap=*/true);
}

TEST_F(LegacyWriterTest, DirectorySwapNeverMakesThePolicyDisappear) {
  Child writer([&] { directory_swap_writer(paths_.config_dir); });
  const Counts c = read_against(writer.pid(), 200, false, short_settle_window());
  print("directory swap writer", c);
  expect_held(c, /*met_the_gap=*/true);
}

TEST_F(LegacyWriterTest, SymlinkFlipNeverMakesThePolicyDisappear) {
  std::filesystem::remove(user_file());
  write_file(user_file().string() + ".1.real", kLegacyPolicyA);
  std::filesystem::create_symlink(user_file().string() + ".1.real", user_file());
  Child writer([&] { symlink_flip_writer(user_file()); });
  const Counts c = read_against(writer.pid(), 200, false, short_settle_window());
  print("symlink flip writer", c);
  expect_held(c, /*met_the_gap=*/true);
}

TEST_F(LegacyWriterTest, SameContentResavedAtAKilohertzIsNotRefused) {
  // The old-style writer re-saving the same bytes about 1000 times a
  // second: every save is a new inode, but the content never changes.
  // Judged by content the reading is consistent; judged by inode it kept
  // "changing" and launches were refused.
  Child writer([&] {
    const std::string temp = user_file().string() + ".tmp";
    const std::string backup = user_file().string() + ".orig";
    const timespec pace{0, 1'000'000};  // the writer's own rate
    for (;;) {
      write_new(temp, kLegacyPolicyA);
      if (::rename(user_file().c_str(), backup.c_str()) != 0) _exit(4);
      if (::rename(temp.c_str(), user_file().c_str()) != 0) _exit(5);
      ::nanosleep(&pace, nullptr);
    }
  });
  // (Its gap is two renames apart and rarely met; refusals are the subject.)
  const Counts c = read_against(writer.pid(), 2'000, /*gapless=*/true);
  print("same-content writer", c);
  expect_held(c, /*met_the_gap=*/false);
}

TEST_F(LegacyWriterTest, OneScopeRewrittenWithoutPauseIsNotRefused) {
  // holdfast's own writer saving new content to one scope as fast as it
  // can, while the other scope stays: the other scope brackets every
  // reading of this one, so the snapshot is consistent.
  Child writer([&] {
    for (std::uint64_t i = 0;; ++i) {
      WriteOptions options;
      options.durable = false;  // the pace of a busy writer, not of the disk
      write_file_atomically(user_file(), i % 2 == 0 ? kLegacyPolicyA : kLegacyPolicyB, options);
    }
  });
  const Counts c = read_against(writer.pid(), 2'000, /*gapless=*/true);
  print("holdfast writer, no pause", c);
  expect_held(c, /*met_the_gap=*/false);
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
  EXPECT_TRUE(still_running(writer.pid())) << "the writer died before the reader finished";
  EXPECT_EQ(without_policy, 0);
  EXPECT_GT(honoured, 0);
  std::printf("in-place writer: %d snapshots, %d honoured, %d refused, %d without policy\n",
              kSnapshots, honoured, refused, without_policy);
}

}  // namespace
}  // namespace holdfast::settings
