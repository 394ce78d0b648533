// Helpers shared by the settings tests: a temp directory that removes
// itself, whole-file read/write, forked children whose result comes back
// through an exit status or a pipe, and running the real `holdfast` binary.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace holdfast::settings::testing {

namespace fs = std::filesystem;

// mkdtemp under /tmp (a real disk here, so fsync and rename are real).
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "holdfast-settings-test.XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Names in `dir` that start with `prefix` (leftover temps, backups, ...).
inline std::vector<std::string> names_starting_with(const fs::path& dir,
                                                    const std::string& prefix) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(prefix)) names.push_back(name);
  }
  return names;
}

// Forks; the child runs `body` and _exits with its return value (an escaped
// exception is exit 125). Returns the child's pid.
inline pid_t fork_child(const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int code = 125;
    try {
      code = body();
    } catch (...) {
    }
    ::_exit(code);
  }
  return pid;
}

// The raw wait status of `pid`.
inline int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Runs `body` in a child and returns its exit code (-signal if killed).
inline int run_in_child(const std::function<int()>& body) {
  const int status = wait_status(fork_child(body));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1000;
}

// A pipe whose ends close themselves.
struct Pipe {
  int read_end = -1;
  int write_end = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) std::abort();
    read_end = fds[0];
    write_end = fds[1];
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void close_read() {
    if (read_end >= 0) ::close(read_end);
    read_end = -1;
  }
  void close_write() {
    if (write_end >= 0) ::close(write_end);
    write_end = -1;
  }
  // Writes/reads a plain struct in one piece (pipes keep writes below
  // PIPE_BUF atomic).
  template <typename T>
  bool send(const T& value) {
    return ::write(write_end, &value, sizeof value) == static_cast<ssize_t>(sizeof value);
  }
  template <typename T>
  bool receive(T& value) {
    std::size_t got = 0;
    auto* bytes = reinterpret_cast<char*>(&value);
    while (got < sizeof value) {
      const ssize_t n = ::read(read_end, bytes + got, sizeof value - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      got += static_cast<std::size_t>(n);
    }
    return true;
  }
};

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `argv` with the current environment plus `env`, in `cwd` if given;
// stdout and stderr go to files that are read back after it exits.
inline CommandResult run_command(const std::vector<std::string>& argv,
                                 const std::map<std::string, std::string>& env,
                                 const std::optional<fs::path>& cwd = std::nullopt) {
  TempDir capture;
  const fs::path out_path = capture / "stdout";
  const fs::path err_path = capture / "stderr";
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(126);
    if (cwd && ::chdir(cwd->c_str()) != 0) ::_exit(126);
    for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  const int status = wait_status(pid);
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  return result;
}

}  // namespace holdfast::settings::testing
