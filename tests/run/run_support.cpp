#include "run_support.hpp"

#include <fcntl.h>
#include <grp.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

extern char** environ;  // NOLINT

namespace holdfast::run::testing {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

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

pid_t fork_child(const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int code = 126;
    try {
      code = body();
    } catch (...) {
    }
    ::_exit(code);
  }
  return pid;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1000;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1000;
}

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
  std::string pattern = "/var/tmp/holdfast-run-test.XXXXXX";
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  base_ = fs::canonical(pattern);
  // Traversable by everyone (the unprivileged variant runs as 65534); not
  // writable by others, as strict modes require of settings directories.
  fs::permissions(base_, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec |
                             fs::perms::group_read | fs::perms::others_read);
  probe_ = base_ / "bin" / "holdfast-probe";
  fs::create_directories(probe_.parent_path());
  fs::copy_file(kProbe, probe_);
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

void RunTest::TearDown() {
  std::error_code ec;
  fs::remove_all(base_, ec);
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
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq);
    if (name.starts_with("HOLDFAST_") || name.starts_with("XDG_")) continue;
    env[name] = entry.substr(eq + 1);
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
  Started started;
  const int n = ++serial_;
  started.out = base_ / ("holdfast." + std::to_string(n) + ".out");
  started.err = base_ / ("holdfast." + std::to_string(n) + ".err");
  const fs::path cwd = launch.cwd.value_or(workspace_);

  // Everything the child needs is prepared before fork: after it, only
  // async-signal-safe calls.
  std::vector<std::string> argv = {kHoldfast};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> argv_ptrs;
  for (auto& a : argv) argv_ptrs.push_back(a.data());
  argv_ptrs.push_back(nullptr);
  const auto env = environment(launch);
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : env) env_strings.push_back(name + "=" + value);
  // The logical cwd, as a shell would set it (holdfast honours $PWD when it
  // names the current directory).
  env_strings.push_back("PWD=" + cwd.string());
  std::vector<char*> env_ptrs;
  for (auto& s : env_strings) env_ptrs.push_back(s.data());
  env_ptrs.push_back(nullptr);

  started.pid = ::fork();
  if (started.pid == 0) {
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(started.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(started.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 ||
        ::dup2(err, 2) < 0) {
      ::_exit(200);
    }
    if (launch.uid) {
      const gid_t gid = *launch.uid;
      if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(*launch.uid) != 0) {
        ::_exit(201);
      }
    }
    if (::chdir(cwd.c_str()) != 0) ::_exit(202);
    ::execve(argv_ptrs[0], argv_ptrs.data(), env_ptrs.data());
    ::_exit(203);
  }
  return started;
}

Result RunTest::wait(const Started& started) {
  Result result;
  result.exit_code = wait_exit_code(started.pid);
  result.out = read_file(started.out);
  result.err = read_file(started.err);
  return result;
}

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

ProbeRun RunTest::probe_run(const std::vector<std::string>& checks, const Launch& launch) {
  std::vector<std::string> command = {probe_.string()};
  command.insert(command.end(), checks.begin(), checks.end());
  ProbeRun probe;
  probe.result = run(command, {}, launch);
  EXPECT_EQ(probe.result.exit_code, 0) << "stderr: " << probe.result.err;
  const auto line = probe.result.out.substr(0, probe.result.out.find('\n'));
  if (line.empty()) return probe;
  const auto parsed = nlohmann::json::parse(line, nullptr, false);
  if (parsed.is_discarded() || !parsed.contains("results")) {
    ADD_FAILURE() << "unparsable probe output: " << probe.result.out;
    return probe;
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
  return probe;
}

}  // namespace holdfast::run::testing
