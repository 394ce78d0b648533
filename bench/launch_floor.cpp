// launch_floor exec|spawn PROGRAM ARGS...
// launch_floor spawn-bounded PIDS-PARENT MEMORY-PARENT PROGRAM ARGS...
//
// The least a separate launcher program can add to starting PROGRAM, as a
// control for bench/compare-launch.sh:
//   exec   replaces itself with PROGRAM: the cost of one more program start;
//   spawn  starts PROGRAM with posix_spawn and waits for it, exiting with
//          its status: one more program start plus a parent that stays to
//          supervise, which is the shape of `holdfast run`;
//   spawn-bounded  spawn plus the kernel's part of bounding the launch as a
//          whole (cgroup v1, as `holdfast run` does on such a host): make a
//          pids and a memory cgroup below the given parents, write their
//          limits (memory + swap too where the kernel has it), start
//          PROGRAM in both (the child writes "0" to their `tasks` between
//          vfork and exec), wait for it, wait until the cgroups are empty
//          and remove them. What holdfast costs beyond this is its own
//          work, not the bounds the kernel keeps.
// Inherited descriptors (the seccomp program on fd 3) pass through as they
// are. Nothing else is done.
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace {

int exit_status(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool write_text(const std::string& file, const std::string& text) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// The limits holdfast's built-in policy writes (4096 tasks; the memory
// figure does not change the cost of writing it).
bool make_group(const std::string& dir, const char* file, const char* value) {
  if (::mkdir(dir.c_str(), 0755) != 0) return false;
  return write_text(dir + "/" + file, value);
}

// rmdir fails with EBUSY while the sandbox's last processes leave.
void remove_when_empty(const std::string& dir) {
  while (::rmdir(dir.c_str()) != 0 && errno == EBUSY) ::sched_yield();
}

// PROGRAM in the two cgroups whose `tasks` files are open: the child
// joins them between vfork and exec, as bubblewrap's process does in a
// launch.
pid_t start_in(int join_pids, int join_memory, char** program) {
  const pid_t pid = ::vfork();
  if (pid == 0) {
    if (::write(join_pids, "0", 1) == 1 && ::write(join_memory, "0", 1) == 1) {
      ::execve(program[0], program, environ);
    }
    ::_exit(127);
  }
  return pid;
}

int spawn_bounded(const char* pids_parent, const char* memory_parent, char** program) {
  const std::string name = "/launch-floor-" + std::to_string(::getpid());
  const std::string pids = pids_parent + name;
  const std::string memory = memory_parent + name;
  if (!make_group(pids, "pids.max", "4096") ||
      !make_group(memory, "memory.limit_in_bytes", "8589934592") ||
      (::access((memory + "/memory.memsw.limit_in_bytes").c_str(), F_OK) == 0 &&
       !write_text(memory + "/memory.memsw.limit_in_bytes", "8589934592"))) {
    std::perror("launch_floor: making the cgroups");
    ::rmdir(memory.c_str());
    ::rmdir(pids.c_str());
    return 127;
  }
  const int join_pids = ::open((pids + "/tasks").c_str(), O_WRONLY | O_CLOEXEC);
  const int join_memory = ::open((memory + "/tasks").c_str(), O_WRONLY | O_CLOEXEC);
  int status = 127;
  if (join_pids >= 0 && join_memory >= 0) {
    const pid_t pid = start_in(join_pids, join_memory, program);
    if (pid > 0) status = exit_status(pid);
  }
  ::close(join_pids);
  ::close(join_memory);
  remove_when_empty(pids);
  remove_when_empty(memory);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const bool bounded = argc >= 5 && std::strcmp(argv[1], "spawn-bounded") == 0;
  if (!bounded &&
      (argc < 3 || (std::strcmp(argv[1], "exec") != 0 && std::strcmp(argv[1], "spawn") != 0))) {
    std::fprintf(stderr,
                 "usage: launch_floor exec|spawn PROGRAM ARGS...\n"
                 "       launch_floor spawn-bounded PIDS-PARENT MEMORY-PARENT PROGRAM ARGS...\n");
    return 2;
  }
  if (bounded) return spawn_bounded(argv[2], argv[3], argv + 4);
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
  return exit_status(pid);
}
