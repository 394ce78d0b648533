// Shared by the `holdfast run` integration tests: a fixture that makes its
// own workspace, operator settings directories and state directory, runs
// the real holdfast binary with HOLDFAST_SYSTEM_DIR / HOLDFAST_CONFIG_DIR /
// XDG_STATE_HOME pointing at them, and parses holdfast-probe's answers.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace holdfast::run::testing {

namespace fs = std::filesystem;

inline const std::string kHoldfast = HOLDFAST_BINARY;
inline const std::string kProbe = HOLDFAST_PROBE;

std::string read_file(const fs::path& path);
void write_file(const fs::path& path, const std::string& bytes);
std::string sha256_hex(const std::string& bytes);

struct Result {
  int exit_code = -1;  // the exit status; -N when killed by signal N
  std::string out;
  std::string err;
};

// One answer of holdfast-probe.
struct ProbeAnswer {
  bool allowed = false;
  int error = 0;
  std::string errname;
  std::string detail;
  std::string value;
};

struct ProbeRun {
  Result result;
  std::map<std::string, ProbeAnswer> answers;
  // The answer to `check`; a test failure (and a refused answer) when the
  // probe did not report it.
  ProbeAnswer at(const std::string& check) const;
};

// How to start holdfast: where, with which environment changes.
struct Launch {
  std::optional<fs::path> cwd;             // default: the workspace
  std::map<std::string, std::string> env;  // set (after the fixture's)
  std::vector<std::string> unset;          // removed
  std::optional<uid_t> uid;                // drop to this uid/gid (fork, setgroups, setgid, setuid)
};

// A started holdfast whose output goes to files; wait() collects it.
struct Started {
  pid_t pid = -1;
  fs::path out;
  fs::path err;
};

class RunTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // The user scope's settings file: {"tools": {"executionSandbox": POLICY}}
  // plus `extra` merged at top level.
  void set_policy(const nlohmann::json& policy,
                  const nlohmann::json& extra = nlohmann::json::object());
  // A raw settings file in a scope directory, mode 0644.
  void write_settings(const fs::path& dir, const std::string& text);

  // The environment holdfast gets: the caller's, minus HOLDFAST_* and XDG_*,
  // plus the fixture's directories, plus launch.env.
  std::map<std::string, std::string> environment(const Launch& launch) const;

  Started start(const std::vector<std::string>& args, const Launch& launch = {});
  Result wait(const Started& started);
  // holdfast ARGS...
  Result holdfast(const std::vector<std::string>& args, const Launch& launch = {});
  // holdfast run [OPTIONS...] -- COMMAND...
  Result run(const std::vector<std::string>& command, const std::vector<std::string>& options = {},
             const Launch& launch = {});
  // holdfast run -- holdfast-probe CHECKS... and its parsed answers.
  ProbeRun probe_run(const std::vector<std::string>& checks, const Launch& launch = {});

  fs::path base_;        // /var/tmp/holdfast-run-test.XXXXXX, removed afterwards
  fs::path probe_;       // a copy of holdfast-probe under base_: the build tree
                         // may be under /tmp, which the sandbox hides
  fs::path workspace_;   // base/ws
  fs::path system_dir_;  // base/system
  fs::path config_dir_;  // base/config
  fs::path state_dir_;   // base/state (XDG_STATE_HOME)
  fs::path home_;        // base/home (HOME)
  fs::path outside_;     // base/outside: a host directory outside the workspace
  int serial_ = 0;
};

// Forks; the child runs `body` (which must not return normally on success
// paths it cares about) and _exits with its value.
pid_t fork_child(const std::function<int()>& body);
int wait_exit_code(pid_t pid);  // -N when killed by signal N

}  // namespace holdfast::run::testing
