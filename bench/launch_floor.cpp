// launch_floor exec|spawn PROGRAM ARGS...
//
// The least a separate launcher program can add to starting PROGRAM, as a
// control for bench/compare-launch.sh:
//   exec   replaces itself with PROGRAM: the cost of one more program start;
//   spawn  starts PROGRAM with posix_spawn and waits for it, exiting with
//          its status: one more program start plus a parent that stays to
//          supervise, which is the shape of `holdfast run`.
// Inherited descriptors (the seccomp program on fd 3) pass through as they
// are. Nothing else is done, so whatever holdfast costs beyond `spawn` is
// holdfast's own work.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

extern char** environ;  // NOLINT(readability-redundant-declaration)

int main(int argc, char** argv) {
  if (argc < 3 || (std::strcmp(argv[1], "exec") != 0 && std::strcmp(argv[1], "spawn") != 0)) {
    std::fprintf(stderr, "usage: launch_floor exec|spawn PROGRAM ARGS...\n");
    return 2;
  }
  char** program = argv + 2;
  if (std::strcmp(argv[1], "exec") == 0) {
    ::execv(program[0], program);
    std::perror(program[0]);
    return 127;
  }
  pid_t pid = 0;
  if (const int error = ::posix_spawn(&pid, program[0], nullptr, nullptr, program, environ)) {
    std::fprintf(stderr, "%s: %s\n", program[0], std::strerror(error));
    return 127;
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
