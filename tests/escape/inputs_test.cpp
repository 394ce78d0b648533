// Inputs the builder must refuse. A NUL or another control character in a
// policy path was accepted: the argv carries C strings, so the mount was
// made for the path cut at the NUL while --explain showed the whole key. And
// directories that hold system state or other users' files (/var, /run,
// /home itself, ...) were accepted as workspaces and made writable.
#include "escape_support.hpp"

namespace holdfast::run::testing {
namespace {

using nlohmann::json;

class InputsTest : public EscapeTest {};
HOLDFAST_ESCAPE_SUITE(InputsTest);

TEST_P(InputsTest, ControlCharacterInAPolicyPathIsRefused) {
  // "<outside>\0/x": the part before the NUL is a real directory the policy
  // does not otherwise grant.
  const std::string key = outside_.string() + std::string("\0/x", 3);
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}, {key, "write"}}},
              {"network", "closed"}});
  const std::string target = (outside_ / "escaped").string();
  const auto result = run_as_caller({"/bin/sh", "-c", "echo x > \"$1\"; exit 0", "sh", target});
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_NE(result.err.find("policy-malformed"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("control character"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(target));

  // A newline in a key is refused the same way.
  set_policy(
      {{"filesystem",
        {{":root", "read"}, {":workspace", "write"}, {outside_.string() + "\nx", "write"}}}});
  const auto newline = run_as_caller({"/bin/true"});
  EXPECT_EQ(newline.exit_code, 125) << newline.err;
  EXPECT_NE(newline.err.find("policy-malformed"), std::string::npos) << newline.err;
}

TEST_P(InputsTest, SharedSystemDirectoriesAreRefusedAsWorkspaces) {
  set_policy({{"filesystem", "workspace-write"}, {"network", "closed"}});
  for (const char* dir : {"/var", "/run", "/boot", "/home", "/var/tmp", "/tmp"}) {
    if (!fs::is_directory(dir)) continue;
    Launch launch;
    launch.cwd = dir;
    const auto result = run_as_caller({"/bin/true"}, {"--workspace", dir}, launch);
    EXPECT_EQ(result.exit_code, 125) << dir << ": " << result.err;
    EXPECT_NE(result.err.find("workspace-"), std::string::npos) << dir << ": " << result.err;
  }
  // Control: a project directory below one of them is a workspace.
  const auto control = run_as_caller({"/bin/true"});
  EXPECT_EQ(control.exit_code, 0) << control.err;
}

}  // namespace
}  // namespace holdfast::run::testing
