// holdfast doctor: the real binary on this host, and its probes.
#include "launcher/doctor/doctor.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tests/support/files.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::doctor {
namespace {

using holdfast::testing::TempDir;
using holdfast::testing::write_file;

struct Ran {
  int exit_code = -1;
  std::string output;  // stdout, then stderr
};

// Runs the real `holdfast doctor ARGS` with `env` added to our environment.
Ran run_doctor(const std::map<std::string, std::string>& env, std::vector<std::string> args) {
  args.insert(args.begin(), {HOLDFAST_BINARY, "doctor"});
  const auto result = holdfast::testing::run_command(args, env);
  return Ran{result.exit_code, result.out + result.err};
}

class DoctorTest : public ::testing::Test {
 protected:
  DoctorTest() {
    std::filesystem::create_directories(dir_ / "etc");
    std::filesystem::create_directories(dir_ / "config");
    std::filesystem::create_directories(dir_ / "work");
    env_ = {{"HOLDFAST_SYSTEM_DIR", (dir_ / "etc").string()},
            {"HOLDFAST_CONFIG_DIR", (dir_ / "config").string()},
            {"HOLDFAST_STATE_DIR", (dir_ / "state").string()}};
    args_ = {"--workspace", (dir_ / "work").string()};
  }
  TempDir dir_;
  std::map<std::string, std::string> env_;
  std::vector<std::string> args_;
};

TEST(DoctorVersion, ParsesDottedVersions) {
  EXPECT_EQ(parse_version("0.8.0"), (std::vector<int>{0, 8, 0}));
  EXPECT_EQ(parse_version("0.11"), (std::vector<int>{0, 11}));
  EXPECT_TRUE(parse_version("0.8.x").empty());
  EXPECT_TRUE(parse_version("").empty());
  EXPECT_LT(parse_version("0.7.9"), (std::vector<int>{0, 8, 0}));
}

TEST_F(DoctorTest, HealthyHostSaysLaunchesGoAhead) {
  const Ran ran = run_doctor(env_, args_);
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find("[ok] bubblewrap"), std::string::npos) << ran.output;
  EXPECT_NE(ran.output.find("[ok] user-namespaces: a trial sandbox"), std::string::npos)
      << ran.output;
  EXPECT_NE(ran.output.find("[ok] seccomp"), std::string::npos) << ran.output;
  EXPECT_NE(ran.output.find("built-in default"), std::string::npos) << ran.output;
}

TEST_F(DoctorTest, MissingBubblewrapIsFatal) {
  auto env = env_;
  env["HOLDFAST_BWRAP"] = "/nonexistent/bwrap";
  const Ran ran = run_doctor(env, args_);
  EXPECT_EQ(ran.exit_code, 1) << ran.output;
  EXPECT_NE(ran.output.find("[fatal] bubblewrap: bwrap not found"), std::string::npos)
      << ran.output;
  EXPECT_NE(ran.output.find("apt-get install bubblewrap"), std::string::npos) << ran.output;
  EXPECT_NE(ran.output.find("REFUSED"), std::string::npos) << ran.output;
}

TEST_F(DoctorTest, InvalidSettingsAreFatalWithTheirLocation) {
  write_file(dir_ / "config" / "settings.json", "{\n  \"tools\": 3\n}\n");
  const Ran ran = run_doctor(env_, args_);
  EXPECT_EQ(ran.exit_code, 1) << ran.output;
  EXPECT_NE(ran.output.find((dir_ / "config" / "settings.json").string() + ":2:12"),
            std::string::npos)
      << ran.output;
}

TEST_F(DoctorTest, UnsafeSettingsAreFatal) {
  write_file(dir_ / "etc" / "settings.json", "{}");
  ::chmod((dir_ / "etc" / "settings.json").c_str(), 0666);
  const Ran ran = run_doctor(env_, args_);
  EXPECT_EQ(ran.exit_code, 1) << ran.output;
  EXPECT_NE(ran.output.find("[fatal] settings:system"), std::string::npos) << ran.output;
  EXPECT_NE(ran.output.find("chmod go-w"), std::string::npos) << ran.output;
}

TEST_F(DoctorTest, JsonOutputCarriesEveryCheck) {
  auto args = args_;
  args.push_back("--json");
  const Ran ran = run_doctor(env_, args);
  ASSERT_EQ(ran.exit_code, 0) << ran.output;
  const auto report = nlohmann::json::parse(ran.output);
  EXPECT_TRUE(report["launch_possible"].get<bool>());
  std::vector<std::string> checks;
  for (const auto& c : report["checks"]) checks.push_back(c["check"]);
  for (const char* expected : {"bubblewrap", "user-namespaces", "seccomp", "apparmor-userns",
                               "landlock", "settings:user", "settings:snapshot"}) {
    EXPECT_NE(std::find(checks.begin(), checks.end(), expected), checks.end()) << expected;
  }
}

}  // namespace
}  // namespace holdfast::doctor
