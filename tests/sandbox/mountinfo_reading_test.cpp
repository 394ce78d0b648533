// read_mountinfo against the real kernel: a table of several pages read
// while mounts come and go beside it. The kernel hands mountinfo out a page
// per read(), so a reading that spans a change joins two tables: one from
// before it for what was already read, one from after it for the rest.
// Older kernels even resumed by position, so that an unmount ahead of the
// reader made it skip an entry that never went away. read_mountinfo must
// return only tables that existed.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "launcher/sandbox/mount_table.hpp"
#include "tests/support/process.hpp"

namespace holdfast::sandbox {
namespace {

// In the child: 60 tmpfs mounts with long names (the table spans several
// pages) under a tmpfs of its own; a second thread unmounts the oldest and
// then mounts a new one, again and again, at a random pace, while this one
// reads the table 400 times. There are never more than 60 of them, so a
// reading with more joined two tables (the oldest read before it went, the
// newest after it came); and a name that was mounted before a reading began
// and still is after it ended (names are never reused) must be in it.
// Exit status: 0 all readings whole, 1 a reading was not (what on stderr),
// 2 no reading came back at all, 3 the set-up failed.
int read_while_mounts_change(const std::string& base) {
  if (!holdfast::testing::enter_own_namespaces(CLONE_NEWNS).empty()) return 3;
  if (::mount("none", base.c_str(), "tmpfs", 0, nullptr) != 0) return 3;
  const std::string padding(60, 'x');
  std::mutex mutex;
  std::deque<std::string> mounted;  // oldest first; only names that are mounted
  int next = 0;
  const auto make_one = [&]() -> bool {
    const std::string point = base + "/m" + std::to_string(next++) + padding;
    if (::mkdir(point.c_str(), 0755) != 0) return false;
    if (::mount("none", point.c_str(), "tmpfs", 0, nullptr) != 0) return false;
    const std::lock_guard lock(mutex);
    mounted.push_back(point);
    return true;
  };
  constexpr std::size_t kMounts = 60;
  for (std::size_t i = 0; i < kMounts; ++i) {
    if (!make_one()) return 3;
  }

  std::atomic<bool> stop{false};
  std::atomic<bool> churn_failed{false};
  std::thread churn([&] {
    std::mt19937 random(12345);
    std::uniform_int_distribution<int> pause_us(0, 300);
    while (!stop) {
      std::string oldest;
      {
        const std::lock_guard lock(mutex);
        oldest = mounted.front();
        mounted.pop_front();  // unpublished before it goes
      }
      if (::umount2(oldest.c_str(), MNT_DETACH) != 0 || !make_one()) {
        churn_failed = true;
        return;
      }
      // Pacing of the load, not a wait for anything: some readings overlap
      // a change, some do not.
      std::this_thread::sleep_for(std::chrono::microseconds(pause_us(random)));
    }
  });

  int returned = 0;
  int result = 0;
  for (int reading = 0; reading < 400 && result == 0; ++reading) {
    std::set<std::string> before;
    {
      const std::lock_guard lock(mutex);
      before.insert(mounted.begin(), mounted.end());
    }
    std::string text;
    try {
      text = read_mountinfo("self");
    } catch (const MountTableError&) {
      continue;  // no pause in 16 readings: refused, which is no wrong table
    }
    ++returned;
    std::set<std::string> seen;
    for (const MountEntry& entry : parse_mountinfo(text)) {
      if (entry.mount_point.starts_with(base + "/m")) seen.insert(entry.mount_point);
    }
    if (seen.size() > kMounts) {
      std::fprintf(stderr,
                   "reading %d has %zu of the mounts, of which there are never more than %zu\n",
                   reading, seen.size(), kMounts);
      result = 1;
      break;
    }
    const std::lock_guard lock(mutex);
    for (const std::string& point : mounted) {
      if (before.count(point) != 0 && seen.count(point) == 0) {
        std::fprintf(stderr, "reading %d has no %s, mounted all the while\n", reading,
                     point.c_str());
        result = 1;
        break;
      }
    }
  }
  stop = true;
  churn.join();
  if (churn_failed) return 3;
  if (result == 0 && returned == 0) return 2;
  return result;
}

TEST(ReadMountinfo, ReturnsOnlyTablesThatExistedWhileMountsComeAndGo) {
  char base[] = "/tmp/holdfast-mountinfo.XXXXXX";
  ASSERT_NE(::mkdtemp(base), nullptr);
  // A process of its own: the namespaces it enters and its thread stay
  // out of the test program.
  const int code = holdfast::testing::run_in_child([&] { return read_while_mounts_change(base); });
  ::rmdir(base);
  if (code == 3) GTEST_SKIP() << "no mount namespace of its own here";
  EXPECT_NE(code, 2) << "every reading was refused: nothing was checked";
  EXPECT_EQ(code, 0) << "a reading was not a table that existed (see above)";
}

}  // namespace
}  // namespace holdfast::sandbox
