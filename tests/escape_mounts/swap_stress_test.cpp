// The workspace directory itself swapped while launches start. A neighbour
// exchanges the workspace with a symlink to another directory (renameat2
// RENAME_EXCHANGE, so one of the two is always there), at random moments,
// while holdfast launches over and over with --workspace naming it and the
// caller's cwd inside the real directory (the directory itself, entered
// once: a shell's cwd does not follow a rename). A launch may run (it
// resolved the workspace to the real directory) or fail closed (it met the
// symlink, or the swap came between its look and bubblewrap's mounts); the
// command must never write into the symlink's target, which the policy
// keeps read-only. Before the workspace was one object (opened once, the
// cwd checked against it by identity, bound from that descriptor), 9 of
// 167 launches wrote there.
//
// HOLDFAST_SWAP_LAUNCHES sets the number of launches per caller (default
// 800: two callers, two launches at a time, about a minute on a busy
// 2-core machine).
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <random>

#include "escape_support.hpp"

namespace holdfast::run::testing {
namespace {

class SwapStressTest : public EscapeTest {};

int launches_per_caller() {
  const char* count = std::getenv("HOLDFAST_SWAP_LAUNCHES");
  return count != nullptr && std::atoi(count) > 0 ? std::atoi(count) : 800;
}

int count_entries(const fs::path& dir, const std::string& prefix) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().starts_with(prefix)) ++n;
  }
  return n;
}

TEST_P(SwapStressTest, WorkspaceSwappedWithASymlinkWhileLaunchesStart) {
  const int launches = launches_per_caller();
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}});
  const fs::path parent = base_ / "projects";
  const fs::path ws = parent / "ws";
  const fs::path alt = parent / "alt";
  const fs::path victim = parent / "victim";
  fs::create_directories(ws);
  fs::create_directories(victim);
  // Relative, as an attacker would make it.
  fs::create_directory_symlink("victim", alt);
  for (const auto& p : {parent, ws, victim}) own(p);
  // The caller's cwd: the real workspace directory itself.
  const int cwd = ::open(ws.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(cwd, 0);

  auto* swaps = static_cast<std::atomic<long>*>(::mmap(nullptr, sizeof(std::atomic<long>),
                                                       PROT_READ | PROT_WRITE,
                                                       MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(swaps, MAP_FAILED);
  new (swaps) std::atomic<long>(0);
  holdfast::testing::Child swapper([&] {
    std::mt19937 random(as_user() ? 54321 : 12345);
    std::uniform_int_distribution<long> pause_ns(0, 3'000'000);
    std::uniform_int_distribution<long> long_pause_ns(0, 60'000'000);
    std::uniform_int_distribution<int> one_in(0, 7);
    for (;;) {
      if (::renameat2(AT_FDCWD, ws.c_str(), AT_FDCWD, alt.c_str(), RENAME_EXCHANGE) == 0) {
        swaps->fetch_add(1);
      }
      // The attacker's own pace (0-3 ms, one pause in eight up to 60 ms),
      // not synchronisation: launches meet swaps at every step, and some
      // meet a quiet moment long enough to run, so that both outcomes are
      // exercised.
      const timespec pause{0, one_in(random) == 0 ? long_pause_ns(random) : pause_ns(random)};
      ::nanosleep(&pause, nullptr);
    }
  });

  Launch launch;
  launch.cwd = ws;  // $PWD, as the caller's shell has it
  launch.cwd_fd = cwd;
  int ran = 0;
  int failed_closed = 0;
  int other = 0;
  std::string other_example;
  std::map<std::string, int> refusals;  // why launches failed closed, by first words
  const auto count = [&](const Result& result) {
    if (result.exit_code == 125) {
      ++failed_closed;
      ++refusals[result.err.substr(0, 90)];
    } else if (result.exit_code == 0) {
      ++ran;
    } else {
      ++other;
      other_example = std::to_string(result.exit_code) + ": " + result.err;
    }
  };
  // The command marks that it ran in its cwd (the real workspace) and tries
  // the symlink's target.
  const auto args = [&](int i) -> std::vector<std::string> {
    return {"run",
            "--workspace",
            ws.string(),
            "--",
            "/bin/sh",
            "-c",
            ": > ran-$2; echo x > \"$1\"/escaped-$2 2>/dev/null; exit 0",
            "sh",
            victim.string(),
            std::to_string(i)};
  };
  // Two launches at a time (the machine has two cores), as agents do.
  for (int i = 0; i < launches; i += 2) {
    const Started first = start(args(i), as_caller(launch));
    if (i + 1 < launches) count(wait(start(args(i + 1), as_caller(launch))));
    count(wait(first));
  }
  ::kill(swapper.pid(), SIGKILL);
  swapper.wait();
  ::close(cwd);

  // The real workspace is wherever the last swap left it.
  const fs::path real = fs::is_symlink(ws) ? alt : ws;
  const int escapes = count_entries(victim, "escaped-");
  const int ran_marks = count_entries(real, "ran-");
  std::cout << "launches " << launches << ": ran " << ran << " (marks " << ran_marks
            << "), failed closed " << failed_closed << ", other " << other << "; swaps "
            << swaps->load() << "; escapes " << escapes << "\n";
  for (const auto& [why, n] : refusals) std::cout << "  " << n << " x " << why << "\n";
  EXPECT_EQ(escapes, 0) << "a launch wrote into the symlink's target";
  EXPECT_EQ(other, 0) << other_example;
  EXPECT_GT(ran, 0) << "no launch ran: the test saw nothing";
  EXPECT_EQ(ran_marks, ran) << "a launch that exited 0 did not run in the real workspace";
  EXPECT_GT(swaps->load(), launches) << "the swapper did not keep up";
  ::munmap(swaps, sizeof(std::atomic<long>));
}

INSTANTIATE_TEST_SUITE_P(Callers, SwapStressTest, ::testing::Values(Caller::root, Caller::user),
                         caller_name);

}  // namespace
}  // namespace holdfast::run::testing
