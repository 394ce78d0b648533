// Files holdfast writes or trusts after the command ran: the --report file,
// the operator's settings files (read by the next launch) and the launch
// records. None of them may be reachable for the command to redirect,
// rewrite or forge.
#include <sys/stat.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "escape_support.hpp"

namespace holdfast::run::testing {
namespace {

using nlohmann::json;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class FilesTest : public EscapeTest {
 protected:
  // A file outside the sandbox that the caller may write on the host.
  fs::path victim() {
    const fs::path victim = outside_ / "victim";
    write_file(victim, "precious\n");
    own(victim);
    return victim;
  }
};

// The command replaces the report file with a symlink to a file outside
// its sandbox; holdfast writes the report after the command ended.
TEST_P(FilesTest, ReportIsNotWrittenThroughASymlinkTheCommandPlanted) {
  set_policy(kWorkspaceWrite);
  const fs::path victim = this->victim();
  const fs::path report = workspace_ / "report.json";
  const auto result =
      run({"/bin/sh", "-c", "rm -f report.json && ln -s \"$1\" report.json", "sh", victim.string()},
          {"--report", report.string()}, as_caller());
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(read_file(victim), "precious\n") << "the report followed the planted symlink";
}

// A symlink planted before the launch (by an earlier command) is refused
// before anything runs.
TEST_P(FilesTest, ReportPathThatIsASymlinkIsRefusedBeforeTheStart) {
  set_policy(kWorkspaceWrite);
  const fs::path victim = this->victim();
  const fs::path report = workspace_ / "report.json";
  fs::create_symlink(victim, report);
  own(report);
  const auto result =
      run({"/bin/sh", "-c", "echo ran > marker"}, {"--report", report.string()}, as_caller());
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_NE(result.err.find(report.string()), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(workspace_ / "marker")) << "the command ran";
  EXPECT_EQ(read_file(victim), "precious\n");
}

// The user settings file has a second name (a hard link) in the workspace:
// the command rewrites the operator's policy for the next launch.
TEST_P(FilesTest, UserSettingsFileHardLinkedIntoTheWorkspaceIsRefused) {
  set_policy(kWorkspaceWrite);
  own_user_settings();
  const std::string before = read_file(config_dir_ / "settings.json");
  fs::create_hard_link(config_dir_ / "settings.json", workspace_ / "linked.json");
  const std::string widen =
      R"({"tools": {"executionSandbox": {"filesystem": {":root": "write"}, "network": "open"}}})";
  const auto result =
      run({"/bin/sh", "-c", "printf '%s\\n' \"$1\" > linked.json", "sh", widen}, {}, as_caller());
  EXPECT_EQ(read_file(config_dir_ / "settings.json"), before)
      << "the command rewrote the operator's policy";
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_NE(result.err.find("settings.json"), std::string::npos) << result.err;
}

// The user settings file is a symlink to a file in the workspace.
TEST_P(FilesTest, UserSettingsFileSymlinkedIntoTheWorkspaceIsRefused) {
  set_policy(kWorkspaceWrite);
  fs::rename(config_dir_ / "settings.json", workspace_ / "policy.json");
  fs::create_symlink(workspace_ / "policy.json", config_dir_ / "settings.json");
  own(workspace_ / "policy.json");
  own_user_settings();
  const std::string before = read_file(workspace_ / "policy.json");
  const auto result = run({"/bin/sh", "-c", "echo '{}' > policy.json"}, {}, as_caller());
  EXPECT_EQ(read_file(workspace_ / "policy.json"), before)
      << "the command rewrote the operator's policy";
  EXPECT_EQ(result.exit_code, 125) << result.err;
}

// launcher.launchRecords is the operator's: a project cannot turn the
// records of its own launches off.
TEST_P(FilesTest, WorkspaceScopeCannotTurnLaunchRecordsOff) {
  set_policy(kWorkspaceWrite);
  fs::create_directory(workspace_ / ".holdfast");
  write_file(workspace_ / ".holdfast" / "settings.json",
             R"({"launcher": {"launchRecords": false}})");
  own(workspace_ / ".holdfast");
  own(workspace_ / ".holdfast" / "settings.json");
  const auto result = run({"/bin/true"}, {}, as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(lines_of(read_file(state_dir_ / "holdfast" / "launches.jsonl")).size(), 1u)
      << "the workspace scope turned the launch record off";
}

// A policy that makes $HOME writable keeps holdfast's state directory in it
// read-only: the command can neither truncate nor forge launch records.
TEST_P(FilesTest, WritableHomeCannotTruncateOrForgeLaunchRecords) {
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}, {":home", "write"}}},
              {"network", "closed"}});
  Launch launch;
  launch.unset = {"XDG_STATE_HOME"};  // the default: ~/.local/state/holdfast
  launch = as_caller(launch);
  const fs::path log = home_ / ".local" / "state" / "holdfast" / "launches.jsonl";
  ASSERT_EQ(run({"/bin/true"}, {}, launch).exit_code, 0);
  ASSERT_EQ(lines_of(read_file(log)).size(), 1u);
  const auto result =
      run({"/bin/sh", "-c", ": > \"$1\"; echo forged >> \"$1\"", "sh", log.string()}, {}, launch);
  EXPECT_NE(result.exit_code, 125) << result.err;
  const auto lines = lines_of(read_file(log));
  ASSERT_EQ(lines.size(), 2u) << read_file(log);
  for (const auto& line : lines) {
    EXPECT_FALSE(json::parse(line, nullptr, false).is_discarded()) << "forged line: " << line;
  }
}

// HOLDFAST_STATE_DIR names the state directory; it is protected the same way.
TEST_P(FilesTest, StateDirectoryFromHoldfastStateDirIsUsedAndReadOnlyInside) {
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}, {":home", "write"}}},
              {"network", "closed"}});
  const fs::path state = home_ / "holdfast-state";
  Launch launch;
  launch.env["HOLDFAST_STATE_DIR"] = state.string();
  launch = as_caller(launch);
  const auto result = run(
      {"/bin/sh", "-c", "echo forged >> \"$1\"/launches.jsonl", "sh", state.string()}, {}, launch);
  // The shell's redirection failed; holdfast did not refuse.
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.exit_code, 125) << result.err;
  const auto lines = lines_of(read_file(state / "launches.jsonl"));
  ASSERT_EQ(lines.size(), 1u) << read_file(state / "launches.jsonl");
  EXPECT_FALSE(json::parse(lines[0], nullptr, false).is_discarded()) << lines[0];
  EXPECT_FALSE(fs::exists(state_dir_ / "holdfast" / "launches.jsonl"));
}

INSTANTIATE_TEST_SUITE_P(Callers, FilesTest, ::testing::Values(Caller::root, Caller::user),
                         caller_name);

}  // namespace
}  // namespace holdfast::run::testing
