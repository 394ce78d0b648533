// What `holdfast run` must do for a command it lets run: write in the
// workspace, start in the canonical cwd, propagate the exit status, forward
// signals, enforce --timeout, write the report and the launch record, and
// print (not run) under --dry-run and --explain.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <sstream>

#include "run_support.hpp"

namespace holdfast::run::testing {
namespace {

using nlohmann::json;

class RunBehaviourTest : public RunTest {};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_F(RunBehaviourTest, WorkspaceWriteLetsTheCommandWriteTheWorkspace) {
  set_policy({{"filesystem", "workspace-write"}, {"network", "closed"}});
  fs::create_directory(workspace_ / "src");
  const auto result =
      run({"/bin/sh", "-c", "echo built > src/out.txt && mkdir -p a/b && : > a/b/c"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(read_file(workspace_ / "src" / "out.txt"), "built\n");
  EXPECT_TRUE(fs::exists(workspace_ / "a" / "b" / "c"));
  // The same simple policy keeps the rest of the host read-only.
  const auto outside = run({"/bin/sh", "-c", "echo x > \"$1\"", "sh", (outside_ / "f").string()});
  EXPECT_NE(outside.exit_code, 0);
  EXPECT_FALSE(fs::exists(outside_ / "f"));
}

TEST_F(RunBehaviourTest, SymlinkedCwdStartsInTheCanonicalDirectory) {
  set_policy({{"filesystem", "workspace-write"}});
  fs::create_directory(workspace_ / "sub");
  const fs::path link = base_ / "link-to-ws";
  fs::create_directory_symlink(workspace_, link);
  Launch launch;
  launch.cwd = link / "sub";  // $PWD is the symlinked path, as a shell would have it
  const auto result = run({"/bin/sh", "-c", "pwd -P; echo here > marker"}, {}, launch);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, (workspace_ / "sub").string() + "\n");
  EXPECT_EQ(read_file(workspace_ / "sub" / "marker"), "here\n");
  // A symlinked --workspace resolves the same way.
  const auto via_option = run({"/bin/sh", "-c", "pwd -P"}, {"--workspace", link.string()}, launch);
  ASSERT_EQ(via_option.exit_code, 0) << via_option.err;
  EXPECT_EQ(via_option.out, (workspace_ / "sub").string() + "\n");
}

TEST_F(RunBehaviourTest, ExitStatusIsPropagated) {
  set_policy({{"filesystem", "workspace-write"}});
  EXPECT_EQ(run({"/bin/sh", "-c", "exit 3"}).exit_code, 3);
  EXPECT_EQ(run({"/bin/true"}).exit_code, 0);
  EXPECT_EQ(run({"/bin/sh", "-c", "kill -KILL $$"}).exit_code, 128 + SIGKILL);
  EXPECT_EQ(run({"/bin/sh", "-c", "kill -SEGV $$"}).exit_code, 128 + SIGSEGV);
}

// SIGTERM sent to holdfast reaches the confined command, whose trap writes a
// marker into the workspace and exits 42; holdfast exits 42. The test waits
// for the command to be ready on a FIFO in the workspace, never by sleeping.
TEST_F(RunBehaviourTest, SigtermIsForwardedToTheCommand) {
  set_policy({{"filesystem", "workspace-write"}});
  const Fifo ready(workspace_ / "ready");
  ASSERT_GE(ready.fd(), 0);
  const auto started = start(
      {"run", "--", "/bin/sh", "-c",
       "trap 'echo trapped > marker; exit 42' TERM; tail -f /dev/null & echo up > ready; wait $!"});
  std::string got;
  if (!ready.read_line_unless_exited(started.pid, got)) {
    const auto early = wait(started);
    FAIL() << "holdfast exited before the command was ready: " << early.exit_code << "\n"
           << early.err;
  }
  EXPECT_EQ(got, "up\n");
  ASSERT_EQ(::kill(started.pid, SIGTERM), 0);
  const auto result = wait(started);
  EXPECT_EQ(result.exit_code, 42) << result.err;
  EXPECT_EQ(read_file(workspace_ / "marker"), "trapped\n");
}

// If holdfast itself is killed (SIGKILL: no handler, no forwarding), the
// confined command must not live on unsupervised: bwrap's --die-with-parent
// ties bwrap and the sandbox to holdfast (and holdfast sets the same
// parent-death signal on bwrap between clone and exec, before bwrap can).
// Without both, this test fails. The command holds the FIFO open for
// writing; the FIFO reports POLLHUP only once every writer is gone.
TEST_F(RunBehaviourTest, KillingHoldfastTakesTheSandboxDown) {
  set_policy({{"filesystem", "workspace-write"}});
  const Fifo alive(workspace_ / "alive");
  ASSERT_GE(alive.fd(), 0);
  const auto started =
      start({"run", "--", "/bin/sh", "-c", "exec 3>alive; echo up >&3; exec sleep infinity"});
  std::string got;
  if (!alive.read_line_unless_exited(started.pid, got)) {
    const auto early = wait(started);
    FAIL() << "holdfast exited before the command was ready: " << early.exit_code << "\n"
           << early.err;
  }
  ASSERT_EQ(got, "up\n");
  ASSERT_EQ(::kill(started.pid, SIGKILL), 0);
  wait(started);
  // Waits for the event; the bound only turns a regression into a failure
  // instead of a hung test.
  pollfd gone = {alive.fd(), POLLIN, 0};
  for (;;) {
    ASSERT_GT(::poll(&gone, 1, 60'000), 0) << "the confined command outlived holdfast";
    if ((gone.revents & POLLHUP) != 0) break;
    char buffer[64];
    ASSERT_GE(::read(alive.fd(), buffer, sizeof buffer), 0);
  }
}

TEST_F(RunBehaviourTest, TimeoutStopsACommandThatWouldRunForever) {
  set_policy({{"filesystem", "workspace-write"}});
  const fs::path report = base_ / "report.json";
  const auto begin = std::chrono::steady_clock::now();
  const auto result =
      run({"/bin/sleep", "infinity"}, {"--timeout", "0.3", "--report", report.string()});
  const auto took = std::chrono::steady_clock::now() - begin;
  EXPECT_EQ(result.exit_code, 124) << result.err;
  EXPECT_NE(result.err.find("holdfast: the command exceeded --timeout"), std::string::npos)
      << result.err;
  const auto parsed = json::parse(read_file(report));
  EXPECT_TRUE(parsed.at("timed_out").get<bool>());
  EXPECT_EQ(parsed.at("forwarded_signals"), json::array({SIGTERM}));
  // Promptly: SIGTERM ends sleep at once, well before the SIGKILL grace
  // period would (a loose bound against a hang, not a performance figure).
  EXPECT_LT(took, std::chrono::seconds(10));

  // A command that ignores SIGTERM is still stopped (SIGKILL after the grace).
  const auto stubborn =
      run({"/bin/sh", "-c", "trap '' TERM; while :; do :; done"}, {"--timeout", "0.2"});
  EXPECT_EQ(stubborn.exit_code, 124) << stubborn.err;
}

TEST_F(RunBehaviourTest, ReportNamesSnapshotScopesPolicyArgvStatusAndTimings) {
  const json policy = {{"filesystem", {{":root", "read"}, {":workspace", "write"}}},
                       {"network", "closed"}};
  set_policy(policy);
  write_settings(system_dir_, R"({"launcher": {"launchRecords": true}})");
  const fs::path report = base_ / "report.json";
  const auto result = run({"/bin/sh", "-c", "exit 5"}, {"--report", report.string()});
  ASSERT_EQ(result.exit_code, 5) << result.err;
  const auto parsed = json::parse(read_file(report));

  const std::string digest = parsed.at("snapshot").at("digest");
  EXPECT_EQ(digest.size(), 64u) << digest;
  std::map<std::string, json> scopes;
  for (const auto& scope : parsed.at("snapshot").at("scopes")) scopes[scope.at("scope")] = scope;
  ASSERT_TRUE(scopes.contains("user"));
  ASSERT_TRUE(scopes.contains("system"));
  ASSERT_TRUE(scopes.contains("system-defaults"));
  for (const auto& [name, dir] :
       std::map<std::string, fs::path>{{"user", config_dir_}, {"system", system_dir_}}) {
    const fs::path file = dir / "settings.json";
    struct stat st {};
    ASSERT_EQ(::stat(file.c_str(), &st), 0);
    const auto& scope = scopes[name];
    EXPECT_EQ(scope.at("path"), file.string());
    EXPECT_TRUE(scope.at("exists").get<bool>());
    EXPECT_EQ(scope.at("inode").get<std::uint64_t>(), st.st_ino) << name;
    EXPECT_EQ(scope.at("size").get<std::int64_t>(), st.st_size) << name;
    EXPECT_EQ(scope.at("sha256"), sha256_hex(read_file(file))) << name;
  }
  EXPECT_FALSE(scopes["system-defaults"].at("exists").get<bool>());

  EXPECT_EQ(parsed.at("policy").at("form"), "split");
  EXPECT_EQ(parsed.at("policy").at("canonical").at("network"), "closed");
  EXPECT_EQ(parsed.at("policy").at("canonical").at("filesystem").at(":workspace"), "write");
  const std::string policy_digest = parsed.at("policy").at("digest");
  EXPECT_TRUE(policy_digest.starts_with("sha256:")) << policy_digest;

  const auto argv = parsed.at("argv").get<std::vector<std::string>>();
  ASSERT_GE(argv.size(), 4u);
  EXPECT_EQ(fs::path(argv.front()).filename(), "bwrap");
  EXPECT_EQ(std::vector<std::string>(argv.end() - 4, argv.end()),
            (std::vector<std::string>{"--", "/bin/sh", "-c", "exit 5"}));
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--unshare-net"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--seccomp"), argv.end());
  EXPECT_EQ(parsed.at("seccomp_program"), "baked at build time");

  EXPECT_EQ(parsed.at("exit_status"), 5);
  EXPECT_EQ(parsed.at("command_status"), 5);
  EXPECT_FALSE(parsed.at("timed_out").get<bool>());
  const auto& timings = parsed.at("timings_us");
  for (const char* key : {"snapshot", "policy_and_argv", "seccomp", "sandbox_up", "bwrap_exit"}) {
    ASSERT_TRUE(timings.contains(key)) << key;
    EXPECT_GE(timings.at(key).get<long>(), 0) << key;
  }
  EXPECT_GT(timings.at("bwrap_exit").get<long>(), 0);
  EXPECT_GE(timings.at("bwrap_exit").get<long>(), timings.at("sandbox_up").get<long>());

  // The launch record of the same launch carries the same digests.
  const auto records = lines_of(read_file(state_dir_ / "holdfast" / "launches.jsonl"));
  ASSERT_EQ(records.size(), 1u);
  const auto record = json::parse(records[0]);
  EXPECT_EQ(record.at("snapshot_digest"), digest);
  EXPECT_EQ(record.at("policy_digest"), policy_digest);
}

TEST_F(RunBehaviourTest, EachLaunchAppendsOneRecordLine) {
  set_policy({{"filesystem", "workspace-write"}});
  const fs::path log = state_dir_ / "holdfast" / "launches.jsonl";
  ASSERT_EQ(run({"/bin/sh", "-c", "exit 0"}).exit_code, 0);
  ASSERT_EQ(run({"/bin/sh", "-c", "exit 7", "tag"}).exit_code, 7);
  const auto records = lines_of(read_file(log));
  ASSERT_EQ(records.size(), 2u) << read_file(log);
  const auto second = json::parse(records[1]);
  EXPECT_EQ(second.at("command"), json::array({"/bin/sh", "-c", "exit 7", "tag"}));
  EXPECT_EQ(second.at("exit_status"), 7);
  EXPECT_EQ(second.at("workspace"), workspace_.string());
  EXPECT_EQ(second.at("snapshot_digest").get<std::string>().size(), 64u);
  EXPECT_TRUE(second.at("policy_digest").get<std::string>().starts_with("sha256:"));
  EXPECT_EQ(json::parse(records[0]).at("exit_status"), 0);
  struct stat st {};
  ASSERT_EQ(::stat(log.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  // An operator can switch records off.
  set_policy({{"filesystem", "workspace-write"}}, {{"launcher", {{"launchRecords", false}}}});
  ASSERT_EQ(run({"/bin/true"}).exit_code, 0);
  EXPECT_EQ(lines_of(read_file(log)).size(), 2u);
}

TEST_F(RunBehaviourTest, DryRunPrintsTheArgvAndRunsNothing) {
  set_policy({{"filesystem", "workspace-write"}, {"network", "closed"}});
  const auto result = run({"/bin/sh", "-c", "echo ran > ran"}, {"--dry-run"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto argv = lines_of(result.out);
  ASSERT_GE(argv.size(), 4u);
  EXPECT_EQ(fs::path(argv.front()).filename(), "bwrap");
  EXPECT_EQ(std::vector<std::string>(argv.end() - 4, argv.end()),
            (std::vector<std::string>{"--", "/bin/sh", "-c", "echo ran > ran"}));
  for (const char* flag : {"--unshare-user", "--unshare-pid", "--unshare-net", "--new-session",
                           "--die-with-parent", "--clearenv", "--seccomp"}) {
    EXPECT_NE(std::find(argv.begin(), argv.end(), flag), argv.end()) << flag;
  }
  const auto chdir = std::find(argv.begin(), argv.end(), "--chdir");
  ASSERT_NE(chdir, argv.end());
  EXPECT_EQ(*(chdir + 1), workspace_.string());
  EXPECT_FALSE(fs::exists(workspace_ / "ran"));
  EXPECT_FALSE(fs::exists(state_dir_ / "holdfast" / "launches.jsonl"));
}

TEST_F(RunBehaviourTest, DryRunSavesTheWholeSeccompProgram) {
  set_policy({{"filesystem", "workspace-write"}, {"network", "closed"}});
  const fs::path saved = base_ / "filter.bpf";
  const auto result = run({"/bin/true"}, {"--dry-run", "--save-seccomp", saved.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // A classic BPF program: whole 8-byte instructions, and more than the
  // one "allow" a filter that blocks nothing would be.
  const std::string program = read_file(saved);
  EXPECT_GT(program.size(), 8u * 10);
  EXPECT_EQ(program.size() % 8, 0u);
  // Saving again over the file gives the same bytes (it is truncated).
  ASSERT_EQ(run({"/bin/true"}, {"--dry-run", "--save-seccomp", saved.string()}).exit_code, 0);
  EXPECT_EQ(read_file(saved), program);
}

TEST_F(RunBehaviourTest, ExplainNamesTheScopeOfEachPartOrTheBuiltInDefault) {
  // Nothing set: the built-in default.
  const auto builtin = run({"/bin/true"}, {"--explain"});
  ASSERT_EQ(builtin.exit_code, 0) << builtin.err;
  EXPECT_NE(builtin.out.find("built-in default"), std::string::npos) << builtin.out;

  // The filesystem from the user scope; the network left to the default.
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}});
  write_settings(system_dir_, "{}\n");
  const auto user = run({"/bin/sh", "-c", "echo ran > ran"}, {"--explain"});
  ASSERT_EQ(user.exit_code, 0) << user.err;
  EXPECT_NE(user.out.find("filesystem from user scope"), std::string::npos) << user.out;
  EXPECT_NE(user.out.find(":workspace: write  (from user scope)"), std::string::npos) << user.out;
  EXPECT_NE(user.out.find("network: closed (from built-in default)"), std::string::npos)
      << user.out;
  EXPECT_NE(user.out.find("user: " + (config_dir_ / "settings.json").string()), std::string::npos)
      << user.out;
  EXPECT_NE(user.out.find(workspace_.string() + ": write"), std::string::npos) << user.out;
  // The mounts as the launch makes them: the plan's operations, in order.
  const auto ops = user.out.find("mount operations, in order:\n  read-only bind of /\n");
  EXPECT_NE(ops, std::string::npos) << user.out;
  EXPECT_NE(user.out.find("  writable bind of " + workspace_.string() + "\n", ops),
            std::string::npos)
      << user.out;
  EXPECT_FALSE(fs::exists(workspace_ / "ran"));

  // A higher operator scope (system) replaces the policy as a whole.
  write_settings(
      system_dir_,
      R"({"tools": {"executionSandbox": {"filesystem": "read-only", "network": "open"}}})");
  const auto system = run({"/bin/true"}, {"--explain"});
  ASSERT_EQ(system.exit_code, 0) << system.err;
  EXPECT_NE(system.out.find("filesystem from system scope"), std::string::npos) << system.out;
  EXPECT_NE(system.out.find("network: open (from system scope)"), std::string::npos) << system.out;
}

}  // namespace
}  // namespace holdfast::run::testing
