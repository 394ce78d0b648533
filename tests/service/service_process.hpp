// The real `holdfast serve` as a child process for tests: its settings,
// state and runtime directories in a temp directory, readiness taken from
// the "listening on" line it prints (no sleeping), SIGTERM at the end.
//
// The program is the build's holdfast (HOLDFAST_BINARY), or the one
// HOLDFAST_SERVICE_TEST_BINARY names: to run these tests against another
// build, e.g. to see a test fail on an older one.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/process.hpp"
#include "tests/service/http_client.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::testing {

// The holdfast program the service tests run.
std::string holdfast_binary();

class ServiceProcess {
 public:
  // `args` after `holdfast serve`; without --listen or --socket the socket
  // is DIR/run/holdfast/holdfast.sock. `env` is added to (or replaces in)
  // the environment the service runs with.
  // `cwd`: where it runs (ours when empty).
  explicit ServiceProcess(std::vector<std::string> args = {},
                          std::map<std::string, std::string> env = {},
                          std::filesystem::path cwd = {});
  ~ServiceProcess();
  ServiceProcess(const ServiceProcess&) = delete;
  ServiceProcess& operator=(const ServiceProcess&) = delete;

  // The environment the service runs with, for CLI commands that must see
  // the same settings.
  const std::map<std::string, std::string>& env() const { return env_; }
  const std::filesystem::path& dir() const { return dir_.path(); }
  std::filesystem::path config_dir() const { return dir_ / "config"; }
  std::filesystem::path state_dir() const { return dir_ / "state"; }
  std::filesystem::path socket() const { return dir_ / "run" / "holdfast" / "holdfast.sock"; }
  // What the service printed after "listening on ".
  const std::string& where() const { return where_; }
  pid_t pid() const { return child_.pid(); }

  // SIGTERM, then the exit code.
  int stop();

  // A connection to the Unix socket.
  HttpConnection unix_client() const { return HttpConnection::unix_socket(socket()); }

  // Runs `holdfast ARGS` with the service's environment.
  struct Result {
    int exit_code;
    std::string out;
    std::string err;
  };
  Result holdfast(std::vector<std::string> args,
                  const std::optional<std::filesystem::path>& cwd = std::nullopt) const;

 private:
  TempDir dir_;
  std::map<std::string, std::string> env_;
  base::Child child_;
  std::string where_;
};

// The first line of a started program's output pipe (whose write end the
// test no longer holds), or "" at end of file. Takes the read end.
std::string read_line(Pipe& pipe);

}  // namespace holdfast::testing
