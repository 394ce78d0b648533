// The top-level command line of the real `holdfast` binary. main.cpp builds
// only the subcommand argv[1] names; these tests pin that help, version and
// errors still see every subcommand, and that each subcommand still parses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/process.hpp"

namespace {

struct Result {
  int exit_code = -1;
  std::string output;  // stdout, then stderr
};

// Runs `holdfast ARGS`.
Result holdfast(std::vector<std::string> args) {
  args.insert(args.begin(), HOLDFAST_BINARY);
  const auto result = holdfast::testing::run_command(args, {});
  return Result{result.exit_code, result.out + result.err};
}

constexpr const char* kSubcommands[] = {"settings", "check", "run", "doctor"};

TEST(MainCli, VersionPrintsTheProjectVersion) {
  const Result r = holdfast({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, std::string("holdfast ") + HOLDFAST_VERSION + "\n");
}

TEST(MainCli, TopLevelHelpListsEverySubcommand) {
  const Result r = holdfast({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* sub : kSubcommands) {
    EXPECT_NE(r.output.find(std::string("\n  ") + sub + " "), std::string::npos) << sub;
  }
}

TEST(MainCli, EachSubcommandHasItsOwnHelp) {
  for (const char* sub : kSubcommands) {
    const Result r = holdfast({sub, "--help"});
    EXPECT_EQ(r.exit_code, 0) << sub;
    EXPECT_NE(r.output.find(std::string(" ") + sub), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Options:"), std::string::npos) << sub;
  }
}

TEST(MainCli, NoSubcommandIsAUsageError) {
  const Result r = holdfast({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("subcommand"), std::string::npos) << r.output;
}

TEST(MainCli, AnUnknownSubcommandIsAUsageErrorThatNamesIt) {
  const Result r = holdfast({"lauch", "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("lauch"), std::string::npos) << r.output;
}

TEST(MainCli, ASubcommandsOwnParseErrorsStillExitTwo) {
  const Result r = holdfast({"run", "--no-such-option", "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--no-such-option"), std::string::npos) << r.output;
}

}  // namespace
