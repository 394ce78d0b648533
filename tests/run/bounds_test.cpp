// `holdfast run` in a workspace whose settings file is built to crash its
// reader: the workspace scope is project content. The launch is refused
// (exit 125) with the file, line and column, and the command never runs.
#include "run_support.hpp"

namespace holdfast::run::testing {
namespace {

class RunBoundsTest : public RunTest {};

TEST_F(RunBoundsTest, TooDeepWorkspaceSettingsAreRefusedWithTheirLocation) {
  set_policy({{"filesystem", "workspace-write"}});
  const fs::path file = workspace_ / ".holdfast" / "settings.json";
  fs::create_directories(file.parent_path());
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "{\"a\":";
  text += "1" + std::string(20000, '}');
  write_file(file, text);
  const auto result =
      run({"/bin/sh", "-c", "echo ran > \"$1\"", "sh", (workspace_ / "ran").string()});
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_TRUE(result.err.starts_with("holdfast: ")) << result.err;
  EXPECT_NE(result.err.find(file.string() + ":1:321: error: "), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(workspace_ / "ran"));
}

}  // namespace
}  // namespace holdfast::run::testing
