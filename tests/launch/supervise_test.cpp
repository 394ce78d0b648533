// supervise(): the real bubblewrap, the exit status told apart from bwrap
// failing, the timeout.
#include "launcher/run/supervise.hpp"

#include <gtest/gtest.h>

#include "launcher/run/bubblewrap.hpp"
#include "launcher/run/trusted_executable.hpp"

namespace holdfast::launcher {
namespace {

// The installed bubblewrap, judged and open (as a launch finds it).
int bubblewrap_fd() {
  static const ExecutableLookup found = find_trusted_executable(kDefaultBubblewrap);
  return found.executable ? found.executable->fd.get() : -1;
}

SuperviseRequest request_for(const std::vector<std::string>& command) {
  SuperviseRequest request;
  request.bwrap_path = kDefaultBubblewrap;
  request.bwrap_fd = bubblewrap_fd();
  request.bwrap_args = {"--unshare-user",
                        "--unshare-pid",
                        "--die-with-parent",
                        "--ro-bind",
                        "/",
                        "/",
                        "--proc",
                        "/proc",
                        "--dev",
                        "/dev",
                        "--"};
  request.bwrap_args.insert(request.bwrap_args.end(), command.begin(), command.end());
  return request;
}

TEST(Supervise, ReportsTheCommandsExitStatus) {
  const auto outcome = supervise(request_for({"/bin/sh", "-c", "exit 3"}));
  ASSERT_TRUE(outcome.command_status.has_value());
  EXPECT_EQ(*outcome.command_status, 3);
  EXPECT_EQ(exit_status_of(outcome), 3);
  EXPECT_GT(outcome.sandbox_init_pid, 0);
}

TEST(Supervise, ReportsDeathBySignalAs128PlusN) {
  const auto outcome = supervise(request_for({"/bin/sh", "-c", "kill -KILL $$"}));
  EXPECT_EQ(exit_status_of(outcome), 128 + 9);
}

TEST(Supervise, BwrapFailingBeforeTheCommandIs125NotTheCommandsStatus) {
  auto request = request_for({"/bin/true"});
  request.bwrap_args.insert(request.bwrap_args.begin(), {"--bind", "/nonexistent-source", "/x"});
  const auto outcome = supervise(std::move(request));
  EXPECT_FALSE(outcome.command_status.has_value());
  EXPECT_EQ(exit_status_of(outcome), kExitRefused);
}

TEST(Supervise, TimeoutStopsTheCommandAndIs124) {
  auto request = request_for({"/bin/sh", "-c", "while :; do :; done"});
  request.timeout = std::chrono::milliseconds(200);
  const auto outcome = supervise(std::move(request));
  EXPECT_TRUE(outcome.timed_out);
  EXPECT_EQ(exit_status_of(outcome), kExitTimeout);
}

}  // namespace
}  // namespace holdfast::launcher
