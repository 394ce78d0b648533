#include "tests/service/service_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

#include "tests/support/process.hpp"

namespace holdfast::testing {

namespace fs = std::filesystem;

std::string read_line(int fd) {
  std::string line;
  char c = 0;
  while (::read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

ServiceProcess::ServiceProcess(std::vector<std::string> args) {
  for (const char* sub : {"config", "system", "state", "home", "run"}) {
    fs::create_directories(dir_ / sub);
  }
  env_ = {{"HOLDFAST_CONFIG_DIR", (dir_ / "config").string()},
          {"HOLDFAST_SYSTEM_DIR", (dir_ / "system").string()},
          {"HOLDFAST_STATE_DIR", (dir_ / "state").string()},
          {"HOME", (dir_ / "home").string()},
          {"XDG_RUNTIME_DIR", (dir_ / "run").string()},
          {"PATH", "/usr/bin:/bin"}};
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
  std::vector<std::string> argv = {HOLDFAST_BINARY, "serve"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> envp;
  for (const auto& [k, v] : env_) envp.push_back(k + "=" + v);
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    std::vector<char*> a;
    for (auto& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    std::vector<char*> e;
    for (auto& s : envp) e.push_back(s.data());
    e.push_back(nullptr);
    ::execve(a[0], a.data(), e.data());
    ::_exit(127);
  }
  ::close(out[1]);
  const std::string line = read_line(out[0]);
  ::close(out[0]);
  const std::string prefix = "holdfast serve: listening on ";
  if (line.rfind(prefix, 0) != 0) {
    throw std::runtime_error("holdfast serve did not start: \"" + line + "\"");
  }
  where_ = line.substr(prefix.size());
}

ServiceProcess::~ServiceProcess() {
  if (pid_ > 0) stop();
}

int ServiceProcess::stop() {
  ::kill(pid_, SIGTERM);
  const int code = wait_exit_code(pid_);
  pid_ = -1;
  return code;
}

std::unique_ptr<httplib::Client> ServiceProcess::unix_client() const {
  auto client = std::make_unique<httplib::Client>(socket().string());
  client->set_address_family(AF_UNIX);
  return client;
}

ServiceProcess::Result ServiceProcess::holdfast(std::vector<std::string> args,
                                                const std::optional<fs::path>& cwd) const {
  args.insert(args.begin(), HOLDFAST_BINARY);
  const CommandResult r = run_command(args, env_, cwd);
  return Result{r.exit_code, r.out, r.err};
}

}  // namespace holdfast::testing
