// `holdfast settings ...` on hostile or out-of-range input: a located error
// and exit 4 for a file, exit 2 for a bad option, never a crash or a raw
// library message. The real binary (HOLDFAST_BINARY) in temp scopes.
#include <gtest/gtest.h>

#include <string>

#include "tests/settings/deep_documents.hpp"
#include "tests/support/files.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::nested_objects;
using testing::read_file;
using testing::TempDir;
using testing::write_file;

class BoundsCli : public ::testing::Test {
 protected:
  BoundsCli() {
    fs::create_directories(workspace_file().parent_path());
    fs::create_directories(user_file().parent_path());
  }

  fs::path user_file() const { return dir_ / "config" / "settings.json"; }
  fs::path workspace_file() const { return dir_ / "project" / ".holdfast" / "settings.json"; }

  CommandResult settings(std::vector<std::string> args) const {
    args.insert(args.begin(), {HOLDFAST_BINARY, "settings"});
    return testing::run_command(args,
                                {{"HOLDFAST_SYSTEM_DIR", (dir_ / "etc").string()},
                                 {"HOLDFAST_CONFIG_DIR", (dir_ / "config").string()}},
                                dir_ / "project");
  }

  TempDir dir_;
};

TEST_F(BoundsCli, TooDeepWorkspaceFileIsExitFourWithItsLocation) {
  write_file(workspace_file(), nested_objects(20000));
  const std::string located = workspace_file().string() + ":1:321: error: ";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"validate", "--scope", "workspace"}, {"validate"}, {"get", "launcher"}}) {
    const auto result = settings(args);
    EXPECT_EQ(result.exit_code, 4) << args[0] << "\n" << result.err;
    EXPECT_NE(result.err.find(located), std::string::npos) << args[0] << "\n" << result.err;
  }
}

TEST_F(BoundsCli, NumberOutOfRangeIsExitFourWithItsLocation) {
  write_file(user_file(), "{\n  \"launcher\": {\"limit\": 1e999}\n}\n");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"validate", "--scope", "user"}, {"get", "launcher"}, {"show", "--scope", "user"}}) {
    const auto result = settings(args);
    EXPECT_EQ(result.exit_code, 4) << args[0] << "\n" << result.err;
    EXPECT_NE(result.err.find(user_file().string() + ":2:25: error: "), std::string::npos)
        << args[0] << "\n"
        << result.err;
    EXPECT_EQ(result.err.find("json.exception"), std::string::npos) << result.err;
  }
}

TEST_F(BoundsCli, IfRevisionMustBeARevisionNumber) {
  ASSERT_EQ(settings({"set", "launcher.launchRecords", "true"}).exit_code, 0);
  const std::string before = read_file(user_file());
  for (const std::string bad : {"-1", "+1", " 1", "1 ", "0x1", "1.0", "", "9007199254740992",
                                "18446744073709551615", "99999999999999999999999"}) {
    const auto set = settings({"set", "--if-revision", bad, "launcher.launchRecords", "false"});
    EXPECT_EQ(set.exit_code, 2) << "\"" << bad << "\"\n" << set.err;
    EXPECT_NE(set.err.find("--if-revision"), std::string::npos) << set.err;
    const auto unset = settings({"unset", "--if-revision", bad, "launcher.launchRecords"});
    EXPECT_EQ(unset.exit_code, 2) << "\"" << bad << "\"\n" << unset.err;
  }
  EXPECT_EQ(read_file(user_file()), before);
  // Control: the current revision saves, a stale one conflicts.
  EXPECT_EQ(settings({"set", "--if-revision", "0", "launcher.launchRecords", "false"}).exit_code,
            3);
  EXPECT_EQ(settings({"set", "--if-revision", "1", "launcher.launchRecords", "false"}).exit_code,
            0);
}

TEST_F(BoundsCli, SaveAtTheMaximumRevisionIsRefused) {
  const std::string text = "{\"$revision\": 9007199254740991}\n";
  write_file(user_file(), text);
  const auto result = settings({"set", "launcher.launchRecords", "true"});
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_NE(result.err.find(user_file().string() + ":1:15: error: at $revision: "),
            std::string::npos)
      << result.err;
  EXPECT_EQ(read_file(user_file()), text);
}

TEST_F(BoundsCli, ShowOriginSpellsEveryKeyPathSoThatItReadsBack) {
  // Keys a workspace may hold: one that starts with a slash (not a JSON
  // pointer), backslashes at the end and before dots.
  write_file(workspace_file(), R"({"/x": 1, "a": {"b\\": 2, "c.d\\": 3}})");
  const auto result = settings({"show", "--origin"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  for (const std::string line : {"\\/x = 1 ", "a.b\\ = 2 ", "a.c\\.d\\ = 3 "}) {
    EXPECT_NE(result.out.find(line), std::string::npos) << line << "\n" << result.out;
  }
}

}  // namespace
}  // namespace holdfast::settings
