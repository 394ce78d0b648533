// The process runner with real programs: exit codes and signals, captured
// output, the environment, the working directory and passed descriptors,
// failures to start reported with errno, stopping, and that no child is
// left behind.
#include "base/process.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "base/fd.hpp"
#include "base/system_error.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::base {
namespace {

using namespace std::chrono_literals;

SpawnRequest shell(const std::string& script) { return {{"/bin/sh", "-c", script}, {}, {}, {}}; }

TEST(Process, ExitCodesComeBackAsTheProgramGaveThem) {
  for (const int code : {0, 1, 3, 127}) {
    const Captured r = run_captured(shell("exit " + std::to_string(code)));
    ASSERT_TRUE(WIFEXITED(r.status)) << code;
    EXPECT_EQ(WEXITSTATUS(r.status), code);
    EXPECT_EQ(exit_code(r.status), code);
  }
}

TEST(Process, StdoutAndStderrAreCapturedApartOrTogether) {
  const std::string script = "printf out1; printf err1 >&2; printf out2; printf err2 >&2";
  const Captured apart = run_captured(shell(script));
  EXPECT_EQ(apart.out, "out1out2");
  EXPECT_EQ(apart.err, "err1err2");
  const Captured together = run_captured(shell(script), Stderr::into_stdout);
  EXPECT_EQ(together.out, "out1err1out2err2");
  EXPECT_EQ(together.err, "");
}

// More than a pipe holds on both streams at once: neither may block the other.
TEST(Process, LargeOutputOnBothStreamsIsReadToTheEnd) {
  const Captured r = run_captured(
      shell("head -c 300000 /dev/zero | tr '\\0' a; head -c 200000 /dev/zero | tr '\\0' b >&2"));
  EXPECT_EQ(exit_code(r.status), 0);
  EXPECT_EQ(r.out, std::string(300000, 'a'));
  EXPECT_EQ(r.err, std::string(200000, 'b'));
}

TEST(Process, AMissingProgramIsReportedWithItsErrno) {
  try {
    (void)spawn({{"/nonexistent/holdfast-no-such-program"}, {}, {}, {}});
    FAIL() << "started a program that does not exist";
  } catch (const SystemError& e) {
    EXPECT_EQ(e.error_number(), ENOENT);
    EXPECT_EQ(e.path(), "/nonexistent/holdfast-no-such-program");
    EXPECT_NE(std::string(e.what()).find("cannot start /nonexistent/holdfast-no-such-program: "),
              std::string::npos)
        << e.what();
  }
}

TEST(Process, AFileThatIsNotExecutableIsReportedWithEacces) {
  testing::TempDir dir;
  testing::write_file(dir / "script", "#!/bin/sh\nexit 0\n");
  ASSERT_EQ(::chmod((dir / "script").c_str(), 0644), 0);
  try {
    (void)run_captured({{(dir / "script").string()}, {}, {}, {}});
    FAIL() << "started a file without execute permission";
  } catch (const SystemError& e) {
    EXPECT_EQ(e.error_number(), EACCES) << e.what();
  }
}

TEST(Process, ASignalEndingTheProgramIsInItsStatus) {
  const Captured r = run_captured(shell("kill -TERM $$"));
  ASSERT_TRUE(WIFSIGNALED(r.status));
  EXPECT_EQ(WTERMSIG(r.status), SIGTERM);
  EXPECT_EQ(exit_code(r.status), 128 + SIGTERM);
}

TEST(Process, TheEnvironmentIsTheOneGivenOrOursWithAdditions) {
  SpawnRequest given = shell("printf '%s|%s' \"$ONLY\" \"${HOME-unset}\"");
  given.environment = std::vector<std::string>{"ONLY=this"};
  EXPECT_EQ(run_captured(given).out, "this|unset");

  ASSERT_EQ(::setenv("HOLDFAST_BASE_TEST_OURS", "ours", 1), 0);
  ASSERT_EQ(::setenv("HOLDFAST_BASE_TEST_REPLACED", "old", 1), 0);
  SpawnRequest added = shell(
      "printf '%s|%s|%s' \"$HOLDFAST_BASE_TEST_OURS\" "
      "\"$HOLDFAST_BASE_TEST_REPLACED\" \"$HOLDFAST_BASE_TEST_ADDED\"");
  added.environment =
      environment_with({{"HOLDFAST_BASE_TEST_REPLACED", "new"}, {"HOLDFAST_BASE_TEST_ADDED", "x"}});
  EXPECT_EQ(run_captured(added).out, "ours|new|x");
  int replaced = 0;
  for (const auto& entry : *added.environment) {
    if (entry.starts_with("HOLDFAST_BASE_TEST_REPLACED=")) ++replaced;
  }
  EXPECT_EQ(replaced, 1);
}

TEST(Process, TheProgramStartsInTheDirectoryGiven) {
  testing::TempDir dir;
  SpawnRequest request = shell("pwd -P");
  request.cwd = dir.path();
  EXPECT_EQ(run_captured(request).out, std::filesystem::canonical(dir.path()).string() + "\n");
  request.cwd = dir / "missing";
  EXPECT_THROW((void)run_captured(request), SystemError);
}

// A descriptor of ours (O_CLOEXEC, as all of ours are) reaches the program
// under the number asked for, also when that is its own number.
TEST(Process, DescriptorsArePassedUnderTheNumbersAskedFor) {
  for (const bool same_number : {false, true}) {
    int fds[2];
    ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
    UniqueFd read_end(fds[0]);
    UniqueFd write_end(fds[1]);
    const int to = same_number ? write_end.get() : 7;
    SpawnRequest request = shell("printf passed >&" + std::to_string(to));
    request.fds.push_back({write_end.get(), to});
    Child child = spawn(request);
    write_end.reset();
    EXPECT_EQ(exit_code(child.wait()), 0);
    EXPECT_EQ(read_all(read_end.get(), "the pipe"), "passed") << "same number: " << same_number;
  }
}

TEST(Process, StopEndsWithSigtermOrSigkillAfterTheGrace) {
  // Ends on SIGTERM: its status says so.
  Child polite = spawn(shell("exec sleep 60"));
  const int first = polite.stop(10s);
  ASSERT_TRUE(WIFSIGNALED(first));
  EXPECT_EQ(WTERMSIG(first), SIGTERM);
  EXPECT_FALSE(polite.running());

  // Ignores SIGTERM (it says so once the trap is set): SIGKILL after the grace.
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  UniqueFd ready(fds[0]);
  UniqueFd ready_write(fds[1]);
  SpawnRequest request = shell("trap '' TERM; echo ready; while :; do sleep 1; done");
  request.fds.push_back({ready_write.get(), 1});
  Child stubborn = spawn(request);
  ready_write.reset();
  char byte = 0;
  ASSERT_EQ(::read(ready.get(), &byte, 1), 1);
  const int second = stubborn.stop(50ms);
  ASSERT_TRUE(WIFSIGNALED(second));
  EXPECT_EQ(WTERMSIG(second), SIGKILL);
}

TEST(Process, AChildNotWaitedForIsKilledAndReaped) {
  pid_t pid = -1;
  {
    Child child = spawn(shell("exec sleep 60"));
    pid = child.pid();
    ASSERT_GT(pid, 0);
  }
  // Reaped: no longer our child (a zombie would still be waitable).
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(Process, MovingAChildMovesTheDutyToWait) {
  Child first = spawn(shell("exit 4"));
  Child second = std::move(first);
  EXPECT_FALSE(first.running());  // NOLINT(bugprone-use-after-move): what a move leaves
  EXPECT_EQ(exit_code(second.wait()), 4);
}

// A second wait must not become waitpid(-1), which would reap another
// child of ours.
TEST(Process, WaitingTwiceIsAnErrorAndReapsNoOtherChild) {
  Child other = spawn(shell("exit 5"));
  Child child = spawn(shell("exit 0"));
  EXPECT_EQ(exit_code(child.wait()), 0);
  EXPECT_THROW((void)child.wait(), SystemError);
  EXPECT_THROW((void)child.stop(1s), SystemError);
  EXPECT_EQ(exit_code(other.wait()), 5);
}

TEST(Process, ForkCallExitsWithTheBodysValueOr125OnAnException) {
  EXPECT_EQ(exit_code(fork_call([] { return 9; }).wait()), 9);
  EXPECT_EQ(exit_code(fork_call([]() -> int { throw std::runtime_error("no"); }).wait()), 125);
}

TEST(Process, ExitCodeOfAStatusThatIsNeitherExitNorSignal) {
  // A stopped child's status (WIFSTOPPED) is neither.
  Child child = spawn(shell("kill -STOP $$; exit 0"));
  int status = 0;
  ASSERT_EQ(::waitpid(child.pid(), &status, WUNTRACED), child.pid());
  ASSERT_TRUE(WIFSTOPPED(status));
  EXPECT_EQ(exit_code(status), -1);
}

}  // namespace
}  // namespace holdfast::base
