// launch_floor exec|spawn PROGRAM ARGS...
// launch_floor spawn-bounded|spawn-protected PIDS-PARENT MEMORY-PARENT PROGRAM ARGS...
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
//   spawn-protected  spawn-bounded plus the kernel's part of the start
//          gate, for a PROGRAM that is bubblewrap with `--seccomp 3` (the
//          program on descriptor 3): the program goes to bubblewrap through
//          a packet pipe that it fills, its last 4 bytes held back; once
//          bubblewrap has read the rest (the sandbox is built), the
//          sandbox's mounts are made private from a child that joins its
//          user and mount namespaces, its mount table is read once, and the
//          last bytes let it go on. With the Landlock helper put in front
//          of the command in PROGRAM's argv (compare-launch.sh does), this
//          is every step the sandbox issues added to a launch at the
//          kernel's price, with nothing read, planned or checked: the floor
//          under `holdfast run` today.
// Inherited descriptors (the seccomp program on fd 3) pass through as they
// are. Nothing else is done.
#include <fcntl.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
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

// The whole of a small file or descriptor's content.
std::string read_all(int fd) {
  std::string text;
  char buffer[8192];
  ssize_t got = 0;
  while ((got = ::read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, got);
  return text;
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

// A pids and a memory cgroup for one launch, as holdfast makes them on a
// cgroup v1 host, with their `tasks` files open for the child to join.
struct Bounds {
  std::string pids;
  std::string memory;
  int join_pids = -1;
  int join_memory = -1;

  bool make(const char* pids_parent, const char* memory_parent) {
    const std::string name = "/launch-floor-" + std::to_string(::getpid());
    pids = pids_parent + name;
    memory = memory_parent + name;
    if (!make_group(pids, "pids.max", "4096") ||
        !make_group(memory, "memory.limit_in_bytes", "8589934592") ||
        (::access((memory + "/memory.memsw.limit_in_bytes").c_str(), F_OK) == 0 &&
         !write_text(memory + "/memory.memsw.limit_in_bytes", "8589934592"))) {
      std::perror("launch_floor: making the cgroups");
      ::rmdir(memory.c_str());
      ::rmdir(pids.c_str());
      return false;
    }
    join_pids = ::open((pids + "/tasks").c_str(), O_WRONLY | O_CLOEXEC);
    join_memory = ::open((memory + "/tasks").c_str(), O_WRONLY | O_CLOEXEC);
    return join_pids >= 0 && join_memory >= 0;
  }

  // After the launch's last process: wait until both are empty, remove them.
  void remove() {
    ::close(join_pids);
    ::close(join_memory);
    remove_when_empty(pids);
    remove_when_empty(memory);
  }
};

// PROGRAM in the two cgroups whose `tasks` files are open: the child
// joins them between vfork and exec, as bubblewrap's process does in a
// launch. With `gate_fd` >= 0, that descriptor becomes the child's 3.
pid_t start_in(const Bounds& bounds, char** program, int gate_fd = -1) {
  const pid_t pid = ::vfork();
  if (pid == 0) {
    if (::write(bounds.join_pids, "0", 1) == 1 && ::write(bounds.join_memory, "0", 1) == 1 &&
        (gate_fd < 0 || ::dup2(gate_fd, 3) == 3)) {
      ::execve(program[0], program, environ);
    }
    ::_exit(127);
  }
  return pid;
}

int spawn_bounded(const char* pids_parent, const char* memory_parent, char** program) {
  Bounds bounds;
  int status = 127;
  if (bounds.make(pids_parent, memory_parent)) {
    const pid_t pid = start_in(bounds, program);
    if (pid > 0) status = exit_status(pid);
  }
  bounds.remove();
  return status;
}

// The start gate's pipe, as launcher/run/start_gate.cpp fills it: packets
// of one page slot each, the pipe full, the last 4 bytes held back.
//
// This and the private step below repeat StartGate and
// make_sandbox_mounts_private (launcher/run/propagation.cpp) on purpose,
// and must follow them: linked from the launcher library they bring
// libstdc++'s locale and stream set-up before main, which made every
// floor row's own start about 0.15 ms slower (0.48 against 0.32 ms of CPU,
// perf stat -r 500), and a control must not carry that.
struct Gate {
  int read_end = -1;
  int write_end = -1;
  std::string held_back;

  bool fill(const std::string& whole) {
    constexpr std::size_t kPacket = 4096;
    constexpr std::size_t kHeldBack = 4;
    int ends[2];
    if (whole.size() <= kHeldBack || ::pipe2(ends, O_CLOEXEC | O_DIRECT) != 0) return false;
    read_end = ends[0];
    write_end = ends[1];
    const std::string program = whole.substr(0, whole.size() - kHeldBack);
    held_back = whole.substr(program.size());
    std::size_t slots = 1;
    while (slots * kPacket < program.size()) slots *= 2;
    if (program.size() < slots ||
        ::fcntl(write_end, F_SETPIPE_SZ, static_cast<int>(slots * kPacket)) < 0) {
      return false;
    }
    const std::size_t packet = (program.size() + slots - 1) / slots;
    for (std::size_t at = 0; at < program.size(); at += packet) {
      const std::string part = program.substr(at, packet);
      if (::write(write_end, part.data(), part.size()) != static_cast<ssize_t>(part.size())) {
        return false;
      }
    }
    return true;
  }
};

// As make_sandbox_mounts_private does it: a child that shares only our
// memory joins the sandbox's user and mount namespaces.
struct JoinRequest {
  int user_ns;
  int mount_ns;
};

int make_private_in_child(void* raw) {
  const auto& request = *static_cast<const JoinRequest*>(raw);
  if (::setns(request.user_ns, CLONE_NEWUSER) != 0 || ::setns(request.mount_ns, CLONE_NEWNS) != 0 ||
      ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return 1;
  }
  return 0;
}

// What holdfast does at the start gate, at the kernel's price: the
// sandbox's init (bubblewrap's only child), its mounts made private from a
// child in its namespaces, its mount table read once.
bool seal(pid_t bwrap) {
  const std::string self = std::to_string(bwrap);
  const int children =
      ::open(("/proc/" + self + "/task/" + self + "/children").c_str(), O_RDONLY | O_CLOEXEC);
  if (children < 0) return false;
  const std::string init = std::to_string(std::atol(read_all(children).c_str()));
  ::close(children);
  const int mount_ns = ::open(("/proc/" + init + "/ns/mnt").c_str(), O_RDONLY | O_CLOEXEC);
  const int user_ns = mount_ns < 0 ? -1 : ::ioctl(mount_ns, NS_GET_USERNS);
  bool sealed = false;
  if (user_ns >= 0) {
    JoinRequest request{user_ns, mount_ns};
    alignas(16) static char stack[16 * 1024];
    const pid_t child = ::clone(make_private_in_child, stack + sizeof stack,
                                CLONE_VM | CLONE_VFORK | SIGCHLD, &request);
    sealed = child > 0 && exit_status(child) == 0;
    ::close(user_ns);
  }
  if (mount_ns >= 0) ::close(mount_ns);
  const int table = ::open(("/proc/" + init + "/mountinfo").c_str(), O_RDONLY | O_CLOEXEC);
  if (table < 0) return false;
  sealed = sealed && !read_all(table).empty();
  ::close(table);
  return sealed;
}

int spawn_protected(const char* pids_parent, const char* memory_parent, char** program) {
  Gate gate;
  if (!gate.fill(read_all(3))) {
    std::perror("launch_floor: the seccomp program on descriptor 3 into the gate");
    return 127;
  }
  Bounds bounds;
  int status = 127;
  if (bounds.make(pids_parent, memory_parent)) {
    const pid_t pid = start_in(bounds, program, gate.read_end);
    ::close(gate.read_end);
    if (pid > 0) {
      pollfd ready{gate.write_end, POLLOUT, 0};
      // POLLERR instead: bubblewrap ended before reading the program.
      if (::poll(&ready, 1, -1) == 1 && ready.revents == POLLOUT && seal(pid)) {
        if (::write(gate.write_end, gate.held_back.data(), gate.held_back.size()) < 0) {
          std::perror("launch_floor: opening the gate");
        }
      }
      ::close(gate.write_end);
      status = exit_status(pid);
    }
  }
  bounds.remove();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const bool bounded = argc >= 5 && std::strcmp(argv[1], "spawn-bounded") == 0;
  const bool is_protected = argc >= 5 && std::strcmp(argv[1], "spawn-protected") == 0;
  if (!bounded && !is_protected &&
      (argc < 3 || (std::strcmp(argv[1], "exec") != 0 && std::strcmp(argv[1], "spawn") != 0))) {
    std::fprintf(stderr,
                 "usage: launch_floor exec|spawn PROGRAM ARGS...\n"
                 "       launch_floor spawn-bounded|spawn-protected PIDS-PARENT MEMORY-PARENT "
                 "PROGRAM ARGS...\n");
    return 2;
  }
  if (bounded) return spawn_bounded(argv[2], argv[3], argv + 4);
  if (is_protected) return spawn_protected(argv[2], argv[3], argv + 4);
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
