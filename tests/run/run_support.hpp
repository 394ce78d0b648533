// Shared by the `holdfast run` integration tests (tests/run and
// tests/escape_mounts): a fixture that makes its own workspace, operator
// settings directories and state directory, runs the real holdfast binary
// with HOLDFAST_SYSTEM_DIR / HOLDFAST_CONFIG_DIR / XDG_STATE_HOME pointing at
// them, and parses holdfast-probe's answers; FIFOs that let a test and a
// confined command wait for each other without sleeping.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/files.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::run::testing {

namespace fs = std::filesystem;

inline const std::string kHoldfast = HOLDFAST_BINARY;
inline const std::string kProbe = HOLDFAST_PROBE;

// The shared test helpers, by the names these tests use.
using holdfast::testing::fork_child;
using holdfast::testing::read_file;
using holdfast::testing::Started;
using holdfast::testing::wait_exit_code;
using holdfast::testing::write_file;
using Result = holdfast::testing::CommandResult;

// A FIFO that the confined command writes to; opened for reading before
// the command starts, so the command's open for writing does not block and
// poll() reports what it writes (and, once every writer has closed it,
// POLLHUP).
class Fifo {
 public:
  explicit Fifo(const fs::path& path);
  ~Fifo();
  Fifo(const Fifo&) = delete;
  Fifo& operator=(const Fifo&) = delete;
  int fd() const { return fd_; }
  const fs::path& path() const { return path_; }

  // Reads until one whole line has arrived; false if `holdfast` exited first.
  bool read_line_unless_exited(pid_t holdfast, std::string& line) const;

 private:
  fs::path path_;
  int fd_ = -1;
};

// A FIFO the confined command reads a line from (`read go < FIFO`) and so
// waits until the test calls open(). Held open read-write by the test, so
// the command's open does not block and the line stays buffered even if the
// command opens the FIFO only after open() was called.
class Gate {
 public:
  explicit Gate(const fs::path& path);
  ~Gate();
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;
  bool valid() const { return fd_ >= 0; }
  const fs::path& path() const { return path_; }
  void open();

 private:
  fs::path path_;
  int fd_ = -1;
};

// Computed here with libcrypto, not with holdfast's own code: the oracle
// for the digests holdfast reports.
std::string sha256_hex(const std::string& bytes);

// The uid of the unprivileged tests: nobody.
inline constexpr uid_t kNobody = 65534;

// 0 when `uid` may create a user namespace here (what bubblewrap needs to
// run unprivileged), else the errno; 100 when dropping to it failed.
int userns_errno_as(uid_t uid);

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

// Fills probe.answers from the JSON line holdfast-probe printed in
// probe.result.out (a test failure when it is not one).
void parse_probe_output(ProbeRun& probe);

// How to start holdfast: where, with which environment changes.
struct Launch {
  std::optional<fs::path> cwd;  // default: the workspace
  std::optional<int>
      cwd_fd;  // start in this directory itself (through /proc/self/fd); cwd is then only $PWD
  std::map<std::string, std::string> env;  // set (after the fixture's)
  std::vector<std::string> unset;          // removed
  std::optional<uid_t> uid;                // drop to this uid/gid (fork, setgroups, setgid, setuid)
  std::vector<fs::path> join_cgroups;      // cgroup.procs files joined before the uid drop
  std::optional<fs::path> in;              // holdfast's stdin (default /dev/null)
  std::optional<fs::path> out;  // holdfast's stdout, appended to (default: a file of its own)
};

class RunTest : public ::testing::Test {
 protected:
  void SetUp() override;

  // The user scope's settings file: {"tools": {"executionSandbox": POLICY}}
  // plus `extra` merged at top level.
  void set_policy(const nlohmann::json& policy,
                  const nlohmann::json& extra = nlohmann::json::object());
  // A raw settings file in a scope directory, mode 0644.
  void write_settings(const fs::path& dir, const std::string& text);

  // The environment holdfast gets: the caller's, minus HOLDFAST_* and XDG_*,
  // plus the fixture's directories, plus launch.env.
  std::map<std::string, std::string> environment(const Launch& launch) const;

  // A started holdfast whose output goes to files under base_; wait()
  // collects it.
  Started start(const std::vector<std::string>& args, const Launch& launch = {});
  Result wait(const Started& started);
  // holdfast ARGS...
  Result holdfast(const std::vector<std::string>& args, const Launch& launch = {});
  // holdfast run [OPTIONS...] -- COMMAND...
  Result run(const std::vector<std::string>& command, const std::vector<std::string>& options = {},
             const Launch& launch = {});
  // holdfast run -- holdfast-probe CHECKS... and its parsed answers.
  ProbeRun probe_run(const std::vector<std::string>& checks, const Launch& launch = {});

  // Under /var/tmp, a real disk the sandbox sees (it hides /tmp); removed
  // after the test.
  holdfast::testing::TempDir base_dir_{"/var/tmp"};
  fs::path base_;        // base_dir_, canonical
  fs::path probe_;       // a copy of holdfast-probe under base_: the build tree
                         // may be under /tmp, which the sandbox hides
  fs::path holdfast_;    // holdfast under base_ (a hard link, else a copy): the
                         // build tree may sit under a directory of mode 0700
                         // that a test's unprivileged user cannot enter
  fs::path workspace_;   // base/ws
  fs::path system_dir_;  // base/system
  fs::path config_dir_;  // base/config
  fs::path state_dir_;   // base/state (XDG_STATE_HOME)
  fs::path home_;        // base/home (HOME)
  fs::path outside_;     // base/outside: a host directory outside the workspace
  int serial_ = 0;
};

}  // namespace holdfast::run::testing
