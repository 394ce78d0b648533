#include "tests/service/service_process.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include "base/line_reader.hpp"
#include "tests/support/process.hpp"

namespace holdfast::testing {

namespace fs = std::filesystem;

std::string holdfast_binary() {
  const char* other = std::getenv("HOLDFAST_SERVICE_TEST_BINARY");
  return other != nullptr && other[0] != '\0' ? other : HOLDFAST_BINARY;
}

std::string read_line(Pipe& pipe) {
  base::LineReader lines(base::UniqueFd(std::exchange(pipe.read_end, -1)));
  return lines.next(std::chrono::milliseconds(-1)).value_or("");
}

ServiceProcess::ServiceProcess(std::vector<std::string> args,
                               std::map<std::string, std::string> env, fs::path cwd) {
  for (const char* sub : {"config", "system", "state", "home", "run"}) {
    fs::create_directories(dir_ / sub);
  }
  // holdfast refuses a state directory others can read (launch records).
  fs::permissions(dir_ / "state", fs::perms::owner_all, fs::perm_options::replace);
  fs::permissions(dir_ / "run", fs::perms::owner_all);  // as XDG_RUNTIME_DIR is
  env_ = {{"HOLDFAST_CONFIG_DIR", (dir_ / "config").string()},
          {"HOLDFAST_SYSTEM_DIR", (dir_ / "system").string()},
          {"HOLDFAST_STATE_DIR", (dir_ / "state").string()},
          {"HOME", (dir_ / "home").string()},
          {"XDG_RUNTIME_DIR", (dir_ / "run").string()},
          {"PATH", "/usr/bin:/bin"}};
  for (auto& [name, value] : env) env_[name] = value;
  base::SpawnRequest request;
  // setpriv (util-linux, essential in Debian) asks the kernel to kill the
  // service when this test process dies, then becomes it: a test that
  // crashes must not leave `holdfast serve` holding ctest's output pipe
  // (ctest would wait for it until the suite's timeout).
  request.argv = {"/usr/bin/setpriv", "--pdeathsig", "KILL", "--", holdfast_binary(), "serve"};
  request.argv.insert(request.argv.end(), args.begin(), args.end());
  request.cwd = std::move(cwd);
  request.environment.emplace();
  for (const auto& [name, value] : env_) request.environment->push_back(name + "=" + value);
  Pipe out;
  request.fds.push_back({out.write_end, STDOUT_FILENO});
  child_ = base::spawn(request);
  // Only the service holds the write end now: a service that ends before
  // printing gives end of file, not a hang.
  out.close_write();
  const std::string line = read_line(out);
  const std::string prefix = "holdfast serve: listening on ";
  if (line.rfind(prefix, 0) != 0) {
    throw std::runtime_error("holdfast serve did not start: \"" + line + "\"");
  }
  where_ = line.substr(prefix.size());
}

ServiceProcess::~ServiceProcess() {
  if (child_.running()) stop();
}

int ServiceProcess::stop() {
  child_.kill(SIGTERM);
  return exit_code_of(child_.wait());
}

ServiceProcess::Result ServiceProcess::holdfast(std::vector<std::string> args,
                                                const std::optional<fs::path>& cwd) const {
  args.insert(args.begin(), holdfast_binary());
  const CommandResult r = run_command(args, env_, cwd);
  return Result{r.exit_code, r.out, r.err};
}

}  // namespace holdfast::testing
