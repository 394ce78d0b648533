// `holdfast check`, the real binary: exit codes, --json, settings from the
// real scope files, refusal of unreadable rules.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/gatekeeper/fixture.hpp"

extern char** environ;

namespace holdfast::gatekeeper {
namespace {

namespace fs = std::filesystem;
using testing::expand_placeholders;
using testing::tree;

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class CheckCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = tree().root + "/cli-" + info->name();
    fs::create_directories(dir_ + "/config");
    fs::create_directories(dir_ + "/system");
    fs::create_directories(tree().workspace + "/.holdfast");
    remove_workspace_settings();
  }
  void TearDown() override { remove_workspace_settings(); }

  // The workspace file, removed on purpose between tests: with holdfast's
  // memory of it (the marker beside it, the state directory's records), as
  // `holdfast settings forget --remove` does; a file that merely vanished
  // would be "missing" to the next test's checks.
  static void remove_workspace_settings() {
    fs::remove(tree().workspace + "/.holdfast/settings.json");
    fs::remove(tree().workspace + "/.holdfast/.settings.json.holdfast-seen");
    fs::remove_all(tree().home + "/.local/state/holdfast/presence");
  }

  void user_settings(const std::string& json) {
    std::ofstream(dir_ + "/config/settings.json") << expand_placeholders(json);
  }
  void workspace_settings(const std::string& json) {
    std::ofstream(tree().workspace + "/.holdfast/settings.json") << expand_placeholders(json);
  }

  Outcome check(std::vector<std::string> args) {
    std::vector<std::string> argv_text = {HOLDFAST_BINARY,  "check",   "--workspace",
                                          tree().workspace, "--cwd",   tree().workspace,
                                          "--tmp",          tree().tmp};
    for (auto& arg : args) argv_text.push_back(expand_placeholders(arg));
    std::vector<char*> argv;
    for (auto& arg : argv_text) argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_text = {
        "HOME=" + tree().home, "HOLDFAST_CONFIG_DIR=" + dir_ + "/config",
        "HOLDFAST_SYSTEM_DIR=" + dir_ + "/system", "PATH=/usr/bin:/bin"};
    for (char** e = environ; *e != nullptr; ++e) {
      if (std::string_view(*e).starts_with("ASAN_") || std::string_view(*e).starts_with("UBSAN_")) {
        env_text.emplace_back(*e);
      }
    }
    std::vector<char*> envp;
    for (auto& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);

    const std::string out_path = dir_ + "/stdout";
    const std::string err_path = dir_ + "/stderr";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    Outcome run;
    if (spawned != 0) {
      ADD_FAILURE() << "posix_spawn " << argv[0] << ": " << strerror(spawned);
      return run;
    }
    int status = 0;
    EXPECT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status));
    run.exit_code = WEXITSTATUS(status);
    run.out = slurp(out_path);
    run.err = slurp(err_path);
    return run;
  }

  std::string dir_;
};

TEST_F(CheckCli, AllowExitsZero) {
  const Outcome run = check({"Read", "@W/src/a.c"});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out.substr(0, 6), "allow\n");
}

TEST_F(CheckCli, AskExitsTen) {
  const Outcome run = check({"Read", "@O/x"});
  EXPECT_EQ(run.exit_code, 10) << run.out << run.err;
  EXPECT_NE(run.out.find("outside the workspace"), std::string::npos) << run.out;
}

TEST_F(CheckCli, DenyExitsElevenAndNamesTheRule) {
  user_settings(R"j({"permissions": {"deny": ["Read(~/.ssh/**)"]}})j");
  const Outcome run = check({"Bash", "env X=1 cat ~/.ssh/id_rsa"});
  EXPECT_EQ(run.exit_code, 11) << run.out << run.err;
  EXPECT_NE(run.out.find("rule: Read(~/.ssh/**)"), std::string::npos) << run.out;
}

TEST_F(CheckCli, JsonOutput) {
  user_settings(R"j({"permissions": {"ask": ["Bash(git push)"]}})j");
  const Outcome run = check({"--json", "Bash", "git push origin"});
  EXPECT_EQ(run.exit_code, 10) << run.err;
  const auto json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["decision"], "ask");
  EXPECT_EQ(json["rule"], "Bash(git push)");
  EXPECT_EQ(json["exit_code"], 10);
  EXPECT_EQ(json["mode"], "default");
  EXPECT_EQ(json["tool"], "Bash");
  EXPECT_FALSE(json["reason"].get<std::string>().empty());
}

TEST_F(CheckCli, JsonRuleIsNullForToolDefault) {
  const Outcome run = check({"--json", "Read", "@W/src/a.c"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(nlohmann::json::parse(run.out)["rule"].is_null());
}

TEST_F(CheckCli, ModeOption) {
  EXPECT_EQ(check({"--mode", "yolo", "Read", "@O/x"}).exit_code, 0);
  EXPECT_EQ(check({"--mode", "plan", "Write", "@W/new"}).exit_code, 11);
  EXPECT_EQ(check({"--mode", "sideways", "Read", "@O/x"}).exit_code, 2);
}

TEST_F(CheckCli, DefaultModeFromSettings) {
  user_settings(R"j({"permissions": {"defaultMode": "yolo"}})j");
  EXPECT_EQ(check({"Read", "@O/x"}).exit_code, 0);
  EXPECT_EQ(check({"--mode", "default", "Read", "@O/x"}).exit_code, 10);
}

TEST_F(CheckCli, UnparseableRuleIsRefusedByName) {
  user_settings(R"j({"permissions": {"deny": ["Read(~/.ssh/**)", "Read("]}})j");
  const Outcome run = check({"Read", "@W/src/a.c"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("\"Read(\""), std::string::npos) << run.err;
}

TEST_F(CheckCli, InvalidSettingsFileIsAnError) {
  user_settings(R"j({"permissions": {"deny": ["Read(~/.ssh/**)"])j");
  const Outcome run = check({"Read", "~/.ssh/id_rsa"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("settings.json"), std::string::npos) << run.err;
}

TEST_F(CheckCli, WorkspaceCannotAllowItself) {
  workspace_settings(R"j({"permissions": {"allow": ["Read(//@O/**)"], "defaultMode": "yolo"}})j");
  const Outcome run = check({"Read", "@O/x"});
  EXPECT_EQ(run.exit_code, 10) << run.out << run.err;
  EXPECT_NE(run.err.find("permissions.allow"), std::string::npos) << run.err;
}

TEST_F(CheckCli, WorkspaceCanAddDenyAndAsk) {
  workspace_settings(R"j({"permissions": {"deny": ["Read(/src/**)"], "ask": ["Bash(make)"]}})j");
  EXPECT_EQ(check({"Read", "@W/src/a.c"}).exit_code, 11);
  EXPECT_EQ(check({"Bash", "make"}).exit_code, 10);
}

TEST_F(CheckCli, OperatorDenyBeatsWorkspace) {
  user_settings(R"j({"permissions": {"deny": ["Bash(curl *)"]}})j");
  workspace_settings(R"j({"permissions": {"ask": ["Bash(curl *)"]}})j");
  EXPECT_EQ(check({"Bash", "curl https://example.com"}).exit_code, 11);
}

TEST_F(CheckCli, SymlinksResolvedOnTheRealFilesystem) {
  user_settings(R"j({"permissions": {"deny": ["Read(~/.ssh/**)"]}})j");
  EXPECT_EQ(check({"Read", "@W/link_to_ssh/id_rsa"}).exit_code, 11);
}

TEST_F(CheckCli, MissingToolIsAUsageError) { EXPECT_EQ(check({}).exit_code, 2); }

}  // namespace
}  // namespace holdfast::gatekeeper
