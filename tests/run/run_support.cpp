#include "run_support.hpp"

#include <fcntl.h>
#include <grp.h>
#include <openssl/evp.h>
#include <poll.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace holdfast::run::testing {

std::string sha256_hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  std::string hex;
  char two[3];
  for (unsigned int i = 0; i < length; ++i) {
    std::snprintf(two, sizeof two, "%02x", digest[i]);
    hex += two;
  }
  return hex;
}

int userns_errno_as(uid_t uid) {
  return wait_exit_code(fork_child([uid] {
    if (::setgroups(0, nullptr) != 0 || ::setgid(uid) != 0 || ::setuid(uid) != 0) return 100;
    return ::unshare(CLONE_NEWUSER) == 0 ? 0 : errno;
  }));
}

Fifo::Fifo(const fs::path& path) : path_(path) {
  if (::mkfifo(path.c_str(), 0666) == 0) {
    // 0666 whatever the umask: the command may run as another uid.
    ::chmod(path.c_str(), 0666);
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  }
}

Fifo::~Fifo() {
  if (fd_ >= 0) ::close(fd_);
}

bool Fifo::read_line_unless_exited(pid_t holdfast, std::string& line) const {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, holdfast, 0));
  if (pidfd < 0) return false;
  while (line.find('\n') == std::string::npos) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {pidfd, POLLIN, 0}};
    if (::poll(fds, 2, -1) <= 0) break;
    if ((fds[0].revents & POLLIN) != 0) {
      char buffer[64];
      const ssize_t n = ::read(fd_, buffer, sizeof buffer);
      if (n > 0) line.append(buffer, static_cast<std::size_t>(n));
    }
    if ((fds[1].revents & POLLIN) != 0 && line.find('\n') == std::string::npos) break;
  }
  ::close(pidfd);
  return line.find('\n') != std::string::npos;
}

Gate::Gate(const fs::path& path) : path_(path) {
  if (::mkfifo(path.c_str(), 0666) == 0) {
    ::chmod(path.c_str(), 0666);
    fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  }
}

Gate::~Gate() {
  if (fd_ >= 0) ::close(fd_);
}

void Gate::open() { ASSERT_EQ(::write(fd_, "go\n", 3), 3); }

ProbeAnswer ProbeRun::at(const std::string& check) const {
  const auto it = answers.find(check);
  if (it == answers.end()) {
    ADD_FAILURE() << "the probe did not answer " << check << "; holdfast exit " << result.exit_code
                  << "\nstdout: " << result.out << "\nstderr: " << result.err;
    return {};
  }
  return it->second;
}

void RunTest::SetUp() {
  // TempDir's 0755: traversable by everyone (the unprivileged variant runs
  // as 65534); not writable by others, as strict modes require of settings
  // directories.
  base_ = fs::canonical(base_dir_.path());
  probe_ = base_ / "bin" / "holdfast-probe";
  fs::create_directories(probe_.parent_path());
  fs::copy_file(kProbe, probe_);
  holdfast_ = base_ / "bin" / "holdfast";
  std::error_code linked;
  fs::create_hard_link(kHoldfast, holdfast_, linked);
  if (linked) fs::copy_file(kHoldfast, holdfast_);
  workspace_ = base_ / "ws";
  system_dir_ = base_ / "system";
  config_dir_ = base_ / "config";
  state_dir_ = base_ / "state";
  home_ = base_ / "home";
  outside_ = base_ / "outside";
  for (const auto& dir : {workspace_, system_dir_, config_dir_, state_dir_, home_, outside_}) {
    fs::create_directory(dir);
  }
}

void RunTest::write_settings(const fs::path& dir, const std::string& text) {
  write_file(dir / "settings.json", text);
  fs::permissions(dir / "settings.json", fs::perms::owner_read | fs::perms::owner_write |
                                             fs::perms::group_read | fs::perms::others_read);
}

void RunTest::set_policy(const nlohmann::json& policy, const nlohmann::json& extra) {
  nlohmann::json doc = extra;
  doc["tools"]["executionSandbox"] = policy;
  write_settings(config_dir_, doc.dump(2) + "\n");
}

std::map<std::string, std::string> RunTest::environment(const Launch& launch) const {
  std::map<std::string, std::string> env;
  for (const auto& [name, value] : holdfast::testing::current_environment()) {
    if (name.starts_with("HOLDFAST_") || name.starts_with("XDG_")) continue;
    env[name] = value;
  }
  env["HOLDFAST_SYSTEM_DIR"] = system_dir_.string();
  env["HOLDFAST_CONFIG_DIR"] = config_dir_.string();
  env["XDG_STATE_HOME"] = state_dir_.string();
  env["HOME"] = home_.string();
  for (const auto& [name, value] : launch.env) env[name] = value;
  for (const auto& name : launch.unset) env.erase(name);
  return env;
}

Started RunTest::start(const std::vector<std::string>& args, const Launch& launch) {
  const int n = ++serial_;
  holdfast::testing::Command command;
  command.argv = {holdfast_.string()};
  command.argv.insert(command.argv.end(), args.begin(), args.end());
  command.cwd = launch.cwd.value_or(workspace_);
  command.env = environment(launch);
  // The logical cwd, as a shell would set it.
  command.env["PWD"] = command.cwd->string();
  // The directory itself, not a name: the child enters it through its own
  // copy of the descriptor (/proc/self/fd follows no name).
  if (launch.cwd_fd) command.cwd = "/proc/self/fd/" + std::to_string(*launch.cwd_fd);
  command.uid = launch.uid;
  command.join_cgroups = launch.join_cgroups;
  command.in = launch.in;
  command.out = launch.out.value_or(base_ / ("holdfast." + std::to_string(n) + ".out"));
  command.append_out = launch.out.has_value();
  command.err = base_ / ("holdfast." + std::to_string(n) + ".err");
  return holdfast::testing::start_command(command);
}

Result RunTest::wait(const Started& started) { return holdfast::testing::wait_command(started); }

Result RunTest::holdfast(const std::vector<std::string>& args, const Launch& launch) {
  return wait(start(args, launch));
}

Result RunTest::run(const std::vector<std::string>& command,
                    const std::vector<std::string>& options, const Launch& launch) {
  std::vector<std::string> args = {"run"};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back("--");
  args.insert(args.end(), command.begin(), command.end());
  return holdfast(args, launch);
}

void parse_probe_output(ProbeRun& probe) {
  const auto line = probe.result.out.substr(0, probe.result.out.find('\n'));
  if (line.empty()) return;
  const auto parsed = nlohmann::json::parse(line, nullptr, false);
  if (parsed.is_discarded() || !parsed.contains("results")) {
    ADD_FAILURE() << "unparsable probe output: " << probe.result.out;
    return;
  }
  for (const auto& item : parsed.at("results")) {
    ProbeAnswer answer;
    answer.allowed = item.value("allowed", false);
    answer.error = item.value("errno", 0);
    answer.errname = item.value("errname", "");
    answer.detail = item.value("detail", "");
    answer.value = item.value("value", "");
    probe.answers[item.at("check").get<std::string>()] = answer;
  }
}

ProbeRun RunTest::probe_run(const std::vector<std::string>& checks, const Launch& launch) {
  std::vector<std::string> command = {probe_.string()};
  command.insert(command.end(), checks.begin(), checks.end());
  ProbeRun probe;
  probe.result = run(command, {}, launch);
  EXPECT_EQ(probe.result.exit_code, 0) << "stderr: " << probe.result.err;
  parse_probe_output(probe);
  return probe;
}

}  // namespace holdfast::run::testing
