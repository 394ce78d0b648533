// Every program that reads settings reads them the careful way: once the
// user's policy file has been read, a later reading that finds it missing
// (a save in progress that never finished, a directory swapped away) stops
// with a message instead of carrying on as if there were no settings. Each
// reader is the real `holdfast` binary.
#include <gtest/gtest.h>

#include "tests/support/files.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::TempDir;
using testing::write_file;

constexpr const char* kPolicy = R"j({
  "tools": {"executionSandbox": {"filesystem": "read-only", "network": "closed"}},
  "permissions": {"deny": ["Read(//srv/secret/**)"]}
})j";

class Readers : public ::testing::Test {
 protected:
  Readers() {
    fs::create_directories(dir_ / "project");
    fs::create_directories(dir_ / "config");
    write_file(user_file(), kPolicy);
    // The first reading ever: holdfast has now seen the file.
    const auto first = holdfast({"settings", "show"});
    EXPECT_EQ(first.exit_code, 0) << first.err;
  }
  fs::path user_file() const { return dir_ / "config" / "settings.json"; }

  CommandResult holdfast(std::vector<std::string> args) const {
    args.insert(args.begin(), HOLDFAST_BINARY);
    return testing::run_command(args,
                                {{"HOLDFAST_SYSTEM_DIR", (dir_ / "etc").string()},
                                 {"HOLDFAST_CONFIG_DIR", (dir_ / "config").string()},
                                 {"HOLDFAST_STATE_DIR", (dir_ / "state").string()},
                                 {"HOME", (dir_ / "home").string()}},
                                dir_ / "project");
  }

  // The user file is caught in the middle of an old-style save: moved to a
  // backup, its replacement not yet in place (and never coming).
  void start_a_save_that_never_finishes() {
    fs::rename(user_file(), user_file().string() + ".prev");
  }

  static void expect_refused_as_missing(const CommandResult& result) {
    EXPECT_NE(result.exit_code, 0) << result.out;
    EXPECT_NE(result.err.find("is missing"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("holdfast settings forget --scope user"), std::string::npos)
        << result.err;
  }

  TempDir dir_;
};

TEST_F(Readers, CheckNeverAllowsWhatTheMissingPolicyDenies) {
  EXPECT_EQ(holdfast({"check", "Read", "/srv/secret/key"}).exit_code, 11);  // deny
  start_a_save_that_never_finishes();
  const auto result = holdfast({"check", "Read", "/srv/secret/key"});
  EXPECT_NE(result.exit_code, 0) << "answered allow without the policy";
  expect_refused_as_missing(result);
}

TEST_F(Readers, GetDoesNotReportTheKeyUnset) {
  start_a_save_that_never_finishes();
  expect_refused_as_missing(holdfast({"settings", "get", "tools.executionSandbox"}));
}

TEST_F(Readers, ShowDoesNotPrintEmptySettings) {
  start_a_save_that_never_finishes();
  const auto result = holdfast({"settings", "show", "--effective"});
  EXPECT_EQ(result.out, "");
  expect_refused_as_missing(result);
}

TEST_F(Readers, ValidateDoesNotCallTheFileAbsent) {
  start_a_save_that_never_finishes();
  const auto result = holdfast({"settings", "validate"});
  EXPECT_EQ(result.out.find("user: " + user_file().string() + ": absent"), std::string::npos)
      << result.out;
  expect_refused_as_missing(result);
}

TEST_F(Readers, RunDoesNotFallBackToTheBuiltInDefault) {
  start_a_save_that_never_finishes();
  const auto result = holdfast({"run", "--explain", "--", "true"});
  EXPECT_EQ(result.exit_code, 125) << result.out;
  EXPECT_EQ(result.out.find("built-in default"), std::string::npos) << result.out;
  expect_refused_as_missing(result);
}

TEST_F(Readers, DoctorReportsTheMissingFile) {
  start_a_save_that_never_finishes();
  const auto result = holdfast({"doctor"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE((result.out + result.err).find("is missing"), std::string::npos) << result.out;
}

TEST_F(Readers, ForgetConfirmsADeliberateRemoval) {
  fs::remove(user_file());
  expect_refused_as_missing(holdfast({"settings", "show"}));
  const auto forget = holdfast({"settings", "forget", "--scope", "user"});
  EXPECT_EQ(forget.exit_code, 0) << forget.err;
  EXPECT_NE(forget.out.find("no longer expects it"), std::string::npos) << forget.out;
  const auto show = holdfast({"settings", "show"});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(show.out, "{}\n");
}

TEST_F(Readers, ForgetRefusesAFileThatIsStillThereUnlessAskedToRemoveIt) {
  const auto refused = holdfast({"settings", "forget", "--scope", "user"});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("still exists"), std::string::npos) << refused.err;
  EXPECT_TRUE(fs::exists(user_file()));
  const auto removed = holdfast({"settings", "forget", "--scope", "user", "--remove"});
  EXPECT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_FALSE(fs::exists(user_file()));
  EXPECT_EQ(holdfast({"settings", "show"}).exit_code, 0);
}

}  // namespace
}  // namespace holdfast::settings
