// supervise(): the real bubblewrap, the exit status told apart from bwrap
// failing, the timeout.
#include "launcher/run/supervise.hpp"

#include <gtest/gtest.h>

#include "launcher/run/launch_plan.hpp"

namespace holdfast::launcher {
namespace {

SuperviseRequest request_for(const std::vector<std::string>& command) {
  SuperviseRequest request;
  request.bwrap_path = locate_bwrap().value_or("/usr/bin/bwrap");
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
  const auto outcome = supervise(request);
  EXPECT_FALSE(outcome.command_status.has_value());
  EXPECT_EQ(exit_status_of(outcome), kExitRefused);
}

TEST(Supervise, TimeoutStopsTheCommandAndIs124) {
  auto request = request_for({"/bin/sh", "-c", "while :; do :; done"});
  request.timeout = std::chrono::milliseconds(200);
  const auto outcome = supervise(request);
  EXPECT_TRUE(outcome.timed_out);
  EXPECT_EQ(exit_status_of(outcome), kExitTimeout);
}

}  // namespace
}  // namespace holdfast::launcher
