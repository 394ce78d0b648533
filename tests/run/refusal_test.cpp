// Every refusal of `holdfast run`: exit 125, a message that starts with
// "holdfast:" and says what was wrong, and the command never runs (each
// command here would leave a marker in the workspace).
#include <sys/stat.h>

#include "run_support.hpp"

namespace holdfast::run::testing {
namespace {

using nlohmann::json;

class RunRefusalTest : public RunTest {
 protected:
  // A command that leaves a marker when it runs.
  std::vector<std::string> marker_command() const {
    return {"/bin/sh", "-c", "echo ran > \"$1\"", "sh", (workspace_ / "ran").string()};
  }
  void expect_refused(const Result& result, const std::string& says) {
    EXPECT_EQ(result.exit_code, 125) << result.err;
    EXPECT_TRUE(result.err.starts_with("holdfast: ")) << result.err;
    EXPECT_NE(result.err.find(says), std::string::npos) << "expected \"" << says << "\" in\n"
                                                        << result.err;
    EXPECT_FALSE(fs::exists(workspace_ / "ran"));
  }
  void expect_ran(const Result& result) {
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(fs::exists(workspace_ / "ran"));
    fs::remove(workspace_ / "ran");
  }
};

TEST_F(RunRefusalTest, MalformedUserSettingsNameFileLineAndColumn) {
  const fs::path file = config_dir_ / "settings.json";
  write_settings(config_dir_,
                 "{\n  \"tools\": {\n    \"executionSandbox\": {\"filesystem\": }\n  }\n}\n");
  const auto result = run(marker_command());
  expect_refused(result, "a settings file is invalid");
  // FILE:3:COLUMN: error (std::regex trips g++ 12's -Wmaybe-uninitialized
  // under the sanitizers, so by hand).
  const std::string prefix = file.string() + ":3:";
  const auto at = result.err.find(prefix);
  ASSERT_NE(at, std::string::npos) << result.err;
  const auto digits_end = result.err.find_first_not_of("0123456789", at + prefix.size());
  EXPECT_GT(digits_end, at + prefix.size()) << result.err;
  EXPECT_EQ(result.err.compare(digits_end, 8, ": error:"), 0) << result.err;
}

TEST_F(RunRefusalTest, WorldWritableUserSettingsFileIsRefused) {
  set_policy({{"filesystem", "workspace-write"}});
  expect_ran(run(marker_command()));  // control: the same file at 0644 is accepted
  fs::permissions(config_dir_ / "settings.json",
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                      fs::perms::group_write | fs::perms::others_read | fs::perms::others_write);
  const auto result = run(marker_command());
  expect_refused(result, "unsafe settings file " + (config_dir_ / "settings.json").string());
  EXPECT_NE(result.err.find("0666"), std::string::npos) << result.err;
}

TEST_F(RunRefusalTest, RequiredPolicyMissingIsRefused) {
  write_settings(system_dir_, R"({"security": {"requireExecutionSandbox": true}})");
  expect_refused(run(marker_command()), "security.requireExecutionSandbox");
  set_policy({{"filesystem", "workspace-write"}});  // control: with a policy it runs
  expect_ran(run(marker_command()));
}

// Nothing at the configured bubblewrap (security.bubblewrap, an operator
// scope's): refused, never run unconfined. The environment names no
// bubblewrap at all: HOLDFAST_BWRAP and PATH are not looked at.
TEST_F(RunRefusalTest, MissingBubblewrapIsRefusedNotRunUnconfined) {
  set_policy({{"filesystem", "workspace-write"}});
  write_settings(system_dir_, R"({"security": {"bubblewrap": "/nonexistent/bwrap"}})");
  expect_refused(run(marker_command()),
                 "bubblewrap (bwrap) is not installed at /nonexistent/bwrap");

  write_settings(system_dir_, "{}");
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"HOLDFAST_BWRAP", "/nonexistent/bwrap"}, {"PATH", ""}, {"PATH", outside_.string()}}) {
    Launch launch;
    launch.env[name] = value;
    expect_ran(run(marker_command(), {}, launch));
  }
}

TEST_F(RunRefusalTest, WorkspaceRootIsRefused) {
  set_policy({{"filesystem", "workspace-write"}});
  expect_refused(run(marker_command(), {"--workspace", "/"}), "workspace-is-root");
}

TEST_F(RunRefusalTest, CwdOutsideTheWorkspaceIsRefused) {
  set_policy({{"filesystem", "workspace-write"}});
  Launch launch;
  launch.cwd = outside_;
  expect_refused(run(marker_command(), {"--workspace", workspace_.string()}, launch),
                 "not inside the workspace");
  expect_refused(
      run(marker_command(), {"--workspace", workspace_.string(), "--cwd", outside_.string()}),
      "not inside the workspace");
}

// Admission keeps the operator settings directories out of every writable
// place it can see: a workspace that contains one, or a write entry on one.
// (A writable :home or :tmpdir above them is accepted and made read-only
// inside; RunConfinementTest checks that from inside.)
TEST_F(RunRefusalTest, WritableSettingsDirectoriesAreRefused) {
  set_policy({{"filesystem", "workspace-write"}});
  const fs::path user_dir = config_dir_;
  config_dir_ = workspace_ / "config";  // the user scope inside the workspace
  fs::create_directory(config_dir_);
  fs::copy_file(user_dir / "settings.json", config_dir_ / "settings.json");
  expect_refused(run(marker_command()), "workspace-overlaps-settings");

  config_dir_ = user_dir;
  set_policy({{"filesystem",
               {{":root", "read"}, {":workspace", "write"}, {system_dir_.string(), "write"}}}});
  expect_refused(run(marker_command()), "settings-dir-writable");
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}});
  expect_ran(run(marker_command()));  // control
}

TEST_F(RunRefusalTest, NoCommandIsRefused) {
  set_policy({{"filesystem", "workspace-write"}});
  expect_refused(holdfast({"run"}), "no command given");
  expect_refused(holdfast({"run", "--"}), "no command given");
}

}  // namespace
}  // namespace holdfast::run::testing
