// The start gate holds a reader of the seccomp program (as bubblewrap reads
// it) until open(), and says when the reader has started.
#include "launcher/run/start_gate.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <string>

#include "tests/support/process.hpp"

namespace holdfast::launcher {
namespace {

// A child that reads the program to end of file, as bubblewrap reads
// --seccomp, and reports how many bytes it got. (bubblewrap never has the
// write end: it is close-on-exec; a forked child closes it by hand.)
pid_t read_to_end(const StartGate& gate, holdfast::testing::Pipe& result) {
  const int fd = gate.program_fd();
  const int write_end = gate.ready_fd();
  return holdfast::testing::fork_child([&, fd, write_end] {
    ::close(write_end);
    std::size_t total = 0;
    char buffer[8192];
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n <= 0) break;
      total += static_cast<std::size_t>(n);
    }
    return result.send(total) ? 0 : 1;
  });
}

bool writable_now(int fd) {
  pollfd p{fd, POLLOUT, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLOUT) != 0;
}

TEST(StartGate, SaysWhenTheProgramWasReadAndHoldsTheReaderUntilOpened) {
  for (const std::size_t size : {2080u, 8192u, 20000u}) {
    const std::string program(size, 'p');
    StartGate gate(program);
    EXPECT_FALSE(writable_now(gate.ready_fd())) << size << ": not full before anyone read";
    holdfast::testing::Pipe result;
    const pid_t reader = read_to_end(gate, result);
    pollfd ready{gate.ready_fd(), POLLOUT, 0};
    ASSERT_EQ(::poll(&ready, 1, -1), 1);  // the reader has taken the packets
    gate.open();
    std::size_t got = 0;
    ASSERT_TRUE(result.receive(got));
    EXPECT_EQ(got, size);
    EXPECT_EQ(holdfast::testing::wait_exit_code(reader), 0);
  }
}

TEST(StartGate, AGateNeverOpenedGivesNoValidProgram) {
  const std::string program(2080, 'p');
  holdfast::testing::Pipe result;
  pid_t reader = -1;
  {
    StartGate gate(program);
    reader = read_to_end(gate, result);
  }  // holdfast gone before the mounts were checked
  std::size_t got = 0;
  ASSERT_TRUE(result.receive(got));
  EXPECT_EQ(got, program.size() - 4);
  EXPECT_NE(got % 8, 0u) << "bubblewrap refuses a program whose length is no multiple of 8";
  EXPECT_EQ(holdfast::testing::wait_exit_code(reader), 0);
}

}  // namespace
}  // namespace holdfast::launcher
