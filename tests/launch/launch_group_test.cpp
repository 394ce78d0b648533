// cgroup::LaunchGroup against the real kernel: a group made where this
// caller's launches make theirs, real processes in it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "launcher/run/cgroup.hpp"

namespace holdfast::launcher::cgroup {
namespace {

namespace fs = std::filesystem;

std::set<pid_t> listed(const fs::path& dir) {
  std::ifstream procs(dir / "cgroup.procs");
  std::set<pid_t> out;
  for (pid_t pid = 0; procs >> pid;) out.insert(pid);
  return out;
}

// A process in `group` that exits once a byte comes on `release`.
// Returns its pid once it has joined (a byte through the pipe `joined`).
pid_t start_member(const LaunchGroup& group, int release, const int joined[2]) {
  const pid_t pid = ::fork();
  if (pid != 0) {
    char byte = 0;
    if (pid > 0 && ::read(joined[0], &byte, 1) != 1) return -1;
    return pid;
  }
  for (const int fd : group.join_fds()) {
    if (::write(fd, "0", 1) != 1) ::_exit(2);
  }
  if (::write(joined[1], "j", 1) != 1) ::_exit(3);
  char byte = 0;
  (void)!::read(release, &byte, 1);
  ::_exit(0);
}

TEST(LaunchGroup, WaitUntilOnlyReturnsOnceEveryOtherProcessHasLeft) {
  const Placement placement = find_placement();
  if (!placement.version) GTEST_SKIP() << placement.unavailable;
  std::optional<LaunchGroup> group;
  try {
    group.emplace(placement, Bounds{64, std::nullopt});
  } catch (const std::exception& e) {
    GTEST_SKIP() << "this caller cannot make a launch cgroup here: " << e.what();
  }
  const std::vector<fs::path> dirs = group->directories();
  int release_init[2];
  int release_other[2];
  int joined[2];
  ASSERT_EQ(::pipe2(release_init, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(release_other, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(joined, O_CLOEXEC), 0);
  // Stands for bubblewrap's init, which the wait lets stay; the others for
  // the rest of a sandbox, which are all on their way out at once.
  const pid_t init = start_member(*group, release_init[0], joined);
  ASSERT_GT(init, 0);
  std::set<pid_t> members{init};
  constexpr int kOthers = 8;
  std::vector<pid_t> others;
  for (int i = 0; i < kOthers; ++i) {
    others.push_back(start_member(*group, release_other[0], joined));
    ASSERT_GT(others.back(), 0);
    members.insert(others.back());
  }
  ASSERT_EQ(listed(dirs.front()), members);

  // The others go; the wait returns once they have all left the cgroup.
  const std::string bytes(kOthers, 'x');
  ASSERT_EQ(::write(release_other[1], bytes.data(), bytes.size()), kOthers);
  group->wait_until_only(init);
  EXPECT_EQ(listed(dirs.front()), std::set<pid_t>{init});

  ASSERT_EQ(::write(release_init[1], "x", 1), 1);
  int status = 0;
  for (const pid_t other : others) EXPECT_EQ(::waitpid(other, &status, 0), other);
  EXPECT_EQ(::waitpid(init, &status, 0), init);
  // The group goes only once empty, and then it is removed.
  group.reset();
  for (const auto& dir : dirs) EXPECT_FALSE(fs::exists(dir)) << dir;
  for (const int fd : {release_init[0], release_init[1], release_other[0], release_other[1],
                       joined[0], joined[1]}) {
    ::close(fd);
  }
}

}  // namespace
}  // namespace holdfast::launcher::cgroup
