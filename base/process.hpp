// Starting programs and waiting for them: the one process runner of the
// production code. A program is started with posix_spawn (argv, the
// environment, a working directory, and which of our descriptors it gets
// as which of its own), yields a Child that must be waited for, and every
// failure to start is a SystemError carrying errno.
//
// The launcher's supervisor starts bubblewrap its own way (it needs a
// parent-death signal, which posix_spawn cannot set); everything else
// starts processes here.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace holdfast::base {

// The exit code a raw wait status stands for, as a shell reports it: the
// code, or 128 + N for a process killed by signal N; -1 for neither.
int exit_code(int wait_status);

// A process we started and have not reaped yet. Destroying a Child that
// was not waited for kills it (SIGKILL) and reaps it, so none is left
// running or as a zombie.
class Child {
 public:
  Child() = default;
  explicit Child(pid_t pid) : pid_(pid) {}
  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child();

  pid_t pid() const { return pid_; }
  // True until it has been waited for.
  bool running() const { return pid_ > 0; }

  // Waits for it to end and returns the raw wait status (EINTR retried).
  // Throws SystemError when waitpid fails or it was waited for already.
  int wait();
  // Hands the duty to wait over to the caller: returns the pid, and this
  // Child no longer owns it.
  pid_t release() { return std::exchange(pid_, -1); }
  // Sends `signal` (nothing once it has been waited for).
  void kill(int signal) const;
  // SIGTERM; SIGKILL when it has not ended within `grace`; then waits.
  // Returns the raw wait status.
  int stop(std::chrono::milliseconds grace);

 private:
  void kill_and_reap();
  pid_t pid_ = -1;
};

// One of our descriptors given to the program as descriptor `to` (dup2 in
// the child; `from` may equal `to`, and is then made inheritable).
struct FdMapping {
  int from = -1;
  int to = -1;
};

struct SpawnRequest {
  // argv[0] is the program's path; PATH is not searched.
  std::vector<std::string> argv;
  // The program's whole environment ("NAME=value"); ours when absent.
  std::optional<std::vector<std::string>> environment;
  // Its working directory; ours when empty.
  std::filesystem::path cwd;
  // Descriptors it gets besides those it inherits anyway (ours without
  // O_CLOEXEC).
  std::vector<FdMapping> fds;
};

// Starts the program. Throws SystemError ("cannot start PROGRAM: ...")
// with the errno of the failure, including a program that does not exist
// (ENOENT) or cannot be executed (EACCES, ENOEXEC).
Child spawn(const SpawnRequest& request);

// What a program that ran to its end wrote, and how it ended.
struct Captured {
  int status = -1;  // raw wait status
  std::string out;
  std::string err;  // empty when stderr went to `out`
};

enum class Stderr { separate, into_stdout };

// Starts the program with its stdout (and stderr) on pipes, reads both to
// their end, and waits for it. Throws SystemError when it cannot be started
// or its output cannot be read.
Captured run_captured(SpawnRequest request, Stderr stderr_goes = Stderr::separate);

// Forks; the child runs `body` and _exits with its return value (125 when
// an exception escapes it). For a child that must run our own code rather
// than a program; it should do little besides (we may have threads).
// Throws SystemError when fork fails.
Child fork_call(const std::function<int()>& body);

// Our environment ("NAME=value" entries) with the variables of `extra` set,
// replacing ours of the same name.
std::vector<std::string> environment_with(const std::map<std::string, std::string>& extra);

}  // namespace holdfast::base
