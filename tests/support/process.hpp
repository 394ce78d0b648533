// Processes for tests: forked children whose result comes back through an
// exit status or a pipe, and real programs started with their stdout and
// stderr captured in files.
#pragma once

#include <sys/types.h>

#include <cerrno>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace holdfast::testing {

// Forks; the child runs `body` and _exits with its return value (an escaped
// exception is exit 125). Returns the child's pid (base::fork_call).
pid_t fork_child(const std::function<int()>& body);

// The raw wait status of `pid` (retried on EINTR); -1 when waitpid fails
// (not our child), which exit_code_of reads as neither exit nor signal.
int wait_status(pid_t pid);

// The exit code in a wait status; -N when killed by signal N; -1000 otherwise.
int exit_code_of(int status);

// wait_status then exit_code_of.
int wait_exit_code(pid_t pid);

// Runs `body` in a child and returns its exit code (-signal if killed).
int run_in_child(const std::function<int()>& body);

// A forked child running `body` until it returns (exit 0) or is stopped.
// The destructor kills (SIGKILL) and reaps it.
class Child {
 public:
  explicit Child(const std::function<void()>& body);
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  pid_t pid() const { return pid_; }
  // Waits for the child and returns its raw wait status.
  int wait();

 private:
  pid_t pid_ = -1;
};

// Moves this (single-threaded) process into new namespaces of the kinds in
// `flags` (CLONE_NEWNS, CLONE_NEWNET, ...): as they are where it may, else
// inside a user namespace of its own that maps its uid and gid to root.
// With CLONE_NEWNS every mount is made private, so that nothing done there
// reaches the host. Empty on success, otherwise why not.
std::string enter_own_namespaces(int flags);

// A pipe (O_CLOEXEC) whose ends close themselves.
struct Pipe {
  int read_end = -1;
  int write_end = -1;
  Pipe();
  ~Pipe();
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void close_read();
  void close_write();
  // Writes/reads a plain struct in one piece (pipes keep writes below
  // PIPE_BUF atomic).
  template <typename T>
  bool send(const T& value) {
    return write_all(&value, sizeof value);
  }
  template <typename T>
  bool receive(T& value) {
    return read_all(&value, sizeof value);
  }

 private:
  bool write_all(const void* bytes, std::size_t size);
  bool read_all(void* bytes, std::size_t size);
};

struct CommandResult {
  int exit_code = -1;  // the exit status; -N when killed by signal N
  std::string out;
  std::string err;
};

// A program to start. argv[0] is a path (no PATH search); `env` is its whole
// environment; stdin is /dev/null (or `in`, opened read-only: a file or a
// directory), stdout and stderr go to the files `out` and `err` (truncated,
// or appended to with `append_out`).
struct Command {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;
  std::optional<std::filesystem::path> cwd;  // default: ours
  std::optional<uid_t> uid;                  // drop to this uid and gid (setgroups, setgid, setuid)
  std::filesystem::path out;
  std::filesystem::path err;
  std::optional<std::filesystem::path> in = std::nullopt;
  bool append_out = false;
  // cgroup.procs files the child writes "0" to (joining those cgroups)
  // before it drops its uid.
  std::vector<std::filesystem::path> join_cgroups = {};
};

// A started program; wait_command collects it.
struct Started {
  pid_t pid = -1;
  std::filesystem::path out;
  std::filesystem::path err;
};

// Forks and execs `command`. When the child cannot set itself up it exits
// with 200 (redirection), 201 (uid), 202 (chdir), 203 (exec) or 204
// (cgroup).
Started start_command(const Command& command);

// Waits for the program and reads back its output files.
CommandResult wait_command(const Started& started);

// This process's environment as a map.
std::map<std::string, std::string> current_environment();

// Runs `argv` with the current environment plus `env`, in `cwd` if given;
// stdout and stderr are captured in a temp directory of their own.
CommandResult run_command(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env,
                          const std::optional<std::filesystem::path>& cwd = std::nullopt);

}  // namespace holdfast::testing
