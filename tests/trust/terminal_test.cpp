// The terminal handed in (issue 20.5): `holdfast run -- CMD &` from an
// interactive shell read the operator's type-ahead, because the command,
// in a session of its own, is never stopped by SIGTTIN. A real pty here:
// a session whose leader plays the shell (its group is the foreground
// one), holdfast started in a group of its own, in the background or
// brought to the foreground, and a line typed ahead before it starts.
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "escape_support.hpp"

namespace holdfast::run::testing {
namespace {

class TerminalTest : public EscapeTest {
 protected:
  struct Seen {
    std::string command_read;  // what the confined command read, from its output
    std::string left;          // what the shell could still read afterwards
    int exit_code = -1;
  };

  // Types "typed-ahead\n" into a new pty, then starts `holdfast run -- sh
  // -c 'read line; echo ...'` on it in a process group of its own, in the
  // foreground of the terminal or not.
  Seen type_ahead_then_launch(bool foreground) {
    const int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    EXPECT_GE(master, 0);
    EXPECT_EQ(::grantpt(master), 0);
    EXPECT_EQ(::unlockpt(master), 0);
    const std::string slave_name = ::ptsname(master);
    EXPECT_EQ(::write(master, "typed-ahead\n", 12), 12);

    const fs::path out = base_ / "terminal.out";
    const fs::path left = base_ / "terminal.left";
    const auto env = environment(as_caller());
    std::vector<std::string> env_strings;
    for (const auto& [name, value] : env) env_strings.push_back(name + "=" + value);
    const std::vector<std::string> args = {
        holdfast_.string(), "run", "--",
        "/bin/sh",          "-c",  "if read -r line; then echo \"read:$line\"; else echo eof; fi"};
    const std::optional<uid_t> uid = as_caller().uid;
    const fs::path cwd = workspace_;

    // The session leader: the shell. Its answer is its exit status; what
    // it found left on the terminal goes to `left`.
    const pid_t shell = fork_child([&]() -> int {
      if (::setsid() < 0) return 90;
      const int tty = ::open(slave_name.c_str(), O_RDWR);  // becomes the controlling terminal
      if (tty < 0) return 91;
      ::signal(SIGTTOU, SIG_IGN);  // the shell hands the terminal around
      int ready[2];
      if (::pipe(ready) != 0) return 92;
      const pid_t job = ::fork();
      if (job == 0) {
        ::setpgid(0, 0);
        char go = 0;
        ::close(ready[1]);
        if (::read(ready[0], &go, 1) != 1) ::_exit(93);  // until the shell placed it
        const int sink = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (sink < 0 || ::dup2(tty, 0) < 0 || ::dup2(sink, 1) < 0 || ::dup2(sink, 2) < 0) {
          ::_exit(94);
        }
        if (uid && (::setgroups(0, nullptr) != 0 || ::setgid(*uid) != 0 || ::setuid(*uid) != 0)) {
          ::_exit(95);
        }
        if (::chdir(cwd.c_str()) != 0) ::_exit(96);
        std::vector<char*> argv;
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        std::vector<char*> envp;
        for (auto& e : env_strings) envp.push_back(e.data());
        envp.push_back(nullptr);
        ::execve(argv[0], argv.data(), envp.data());
        ::_exit(97);
      }
      ::setpgid(job, job);
      if (foreground && ::tcsetpgrp(tty, job) != 0) return 98;
      ::close(ready[0]);
      if (::write(ready[1], "g", 1) != 1) return 99;
      int status = 0;
      ::waitpid(job, &status, 0);
      ::tcsetpgrp(tty, ::getpgrp());
      // What is left for the shell: the typed line, unless someone took it.
      ::fcntl(tty, F_SETFL, O_NONBLOCK);
      char buffer[64];
      const ssize_t n = ::read(tty, buffer, sizeof buffer);
      write_file(left, n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : "");
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    });
    Seen seen;
    seen.exit_code = wait_exit_code(shell);
    seen.command_read = read_file(out);
    seen.left = read_file(left);
    ::close(master);
    return seen;
  }
};

TEST_P(TerminalTest, BackgroundLaunchDoesNotReadTheTerminal) {
  const Seen seen = type_ahead_then_launch(/*foreground=*/false);
  EXPECT_EQ(seen.exit_code, 0) << seen.command_read;
  EXPECT_NE(seen.command_read.find("eof"), std::string::npos) << seen.command_read;
  EXPECT_EQ(seen.command_read.find("typed-ahead"), std::string::npos)
      << "the background command read the operator's type-ahead: " << seen.command_read;
  EXPECT_NE(seen.command_read.find("started in the background"), std::string::npos)
      << seen.command_read;
  EXPECT_EQ(seen.left, "typed-ahead\n") << "the shell lost its input";
}

// Control: in the foreground the command has the terminal, as it should.
TEST_P(TerminalTest, ForegroundLaunchReadsTheTerminal) {
  const Seen seen = type_ahead_then_launch(/*foreground=*/true);
  EXPECT_EQ(seen.exit_code, 0) << seen.command_read;
  EXPECT_NE(seen.command_read.find("read:typed-ahead"), std::string::npos) << seen.command_read;
  EXPECT_EQ(seen.left, "");
}

HOLDFAST_ESCAPE_SUITE(TerminalTest);

}  // namespace
}  // namespace holdfast::run::testing
