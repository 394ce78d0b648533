// The stress version of swap_test.cpp: a neighbour exchanges the workspace
// directory and a symlink to $HOME (renameat2 RENAME_EXCHANGE, so one of
// the two is always there) at random moments while holdfast launches over
// and over. A launch may run (it saw and mounted the directory) or fail
// closed (it saw the symlink, or the swap came between its checks and
// bubblewrap's mounts); the command must never write into $HOME.
//
// HOLDFAST_SWAP_LAUNCHES overrides the number of launches (default 500).
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

#include <atomic>
#include <cstdlib>
#include <random>

#include "run_support.hpp"

namespace holdfast::run::testing {
namespace {

class SwapStressTest : public RunTest {};

TEST_F(SwapStressTest, WorkspaceAndSymlinkToHomeSwappedDuringLaunches) {
  const char* count_env = std::getenv("HOLDFAST_SWAP_LAUNCHES");
  const int launches = count_env != nullptr ? std::atoi(count_env) : 500;
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}});
  const fs::path parent = base_ / "projects";
  const fs::path ws = parent / "ws";
  const fs::path alt = parent / "alt";
  fs::create_directories(ws);
  // Relative, as an attacker would make it: bubblewrap resolves mount
  // destinations under its own temporary root.
  ASSERT_EQ(home_, base_ / "home");
  fs::create_directory_symlink("../home", alt);

  // The swap count, shared with the swapper.
  auto* swaps = static_cast<std::atomic<long>*>(::mmap(nullptr, sizeof(std::atomic<long>),
                                                       PROT_READ | PROT_WRITE,
                                                       MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(swaps, MAP_FAILED);
  new (swaps) std::atomic<long>(0);
  holdfast::testing::Child swapper([&] {
    std::mt19937 random(12345);
    std::uniform_int_distribution<long> pause_ns(0, 3'000'000);
    for (;;) {
      if (::renameat2(AT_FDCWD, ws.c_str(), AT_FDCWD, alt.c_str(), RENAME_EXCHANGE) == 0) {
        swaps->fetch_add(1);
      }
      // The attacker's own pace (0-3 ms), not synchronisation: some
      // launches see a quiet moment, most see a swap somewhere.
      const timespec pause{0, pause_ns(random)};
      ::nanosleep(&pause, nullptr);
    }
  });

  Launch launch;
  launch.cwd = base_;
  int ran = 0;
  int failed_closed = 0;
  int other = 0;
  std::string other_example;
  const auto count = [&](const Result& result) {
    if (result.exit_code == 125) {
      ++failed_closed;
    } else if (result.exit_code == 0) {
      ++ran;
    } else {
      ++other;
      other_example = std::to_string(result.exit_code) + ": " + result.err;
    }
  };
  const std::vector<std::string> args = {
      "run",     "--workspace", ws.string(),
      "--cwd",   ws.string(),   "--",
      "/bin/sh", "-c",          "echo x > \"$1\"/escaped-$$; exit 0",
      "sh",      home_.string()};
  // Two launches at a time (the machine has two cores), as agents do.
  for (int i = 0; i < launches; i += 2) {
    const Started first = start(args, launch);
    if (i + 1 < launches) count(wait(start(args, launch)));
    count(wait(first));
  }
  ::kill(swapper.pid(), SIGKILL);
  swapper.wait();

  int escapes = 0;
  for (const auto& entry : fs::directory_iterator(home_)) {
    if (entry.path().filename().string().starts_with("escaped-")) ++escapes;
  }
  std::cout << "launches " << launches << ": ran " << ran << ", failed closed " << failed_closed
            << ", other " << other << "; swaps " << swaps->load() << "; escapes " << escapes
            << "\n";
  EXPECT_EQ(escapes, 0) << "the workspace bind landed on $HOME";
  EXPECT_EQ(other, 0) << other_example;
  EXPECT_GT(swaps->load(), launches) << "the swapper did not keep up";
  ::munmap(swaps, sizeof(std::atomic<long>));
}

}  // namespace
}  // namespace holdfast::run::testing
