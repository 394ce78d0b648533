// The top-level command line of the real `holdfast` binary. main.cpp builds
// only the subcommand argv[1] names; these tests pin that help, version and
// errors still see every subcommand, and that each subcommand still parses.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace {

struct Result {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `holdfast ARGS` through the shell (ARGS are fixed words here).
Result holdfast(const std::string& args) {
  const std::string command = std::string(HOLDFAST_BINARY) + " " + args + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  Result result;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) {
    result.output.append(buffer, n);
  }
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

constexpr const char* kSubcommands[] = {"settings", "check", "run", "doctor"};

TEST(MainCli, VersionPrintsTheProjectVersion) {
  const Result r = holdfast("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, std::string("holdfast ") + HOLDFAST_VERSION + "\n");
}

TEST(MainCli, TopLevelHelpListsEverySubcommand) {
  const Result r = holdfast("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* sub : kSubcommands) {
    EXPECT_NE(r.output.find(std::string("\n  ") + sub + " "), std::string::npos) << sub;
  }
}

TEST(MainCli, EachSubcommandHasItsOwnHelp) {
  for (const char* sub : kSubcommands) {
    const Result r = holdfast(std::string(sub) + " --help");
    EXPECT_EQ(r.exit_code, 0) << sub;
    EXPECT_NE(r.output.find(std::string(" ") + sub), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Options:"), std::string::npos) << sub;
  }
}

TEST(MainCli, NoSubcommandIsAUsageError) {
  const Result r = holdfast("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("subcommand"), std::string::npos) << r.output;
}

TEST(MainCli, AnUnknownSubcommandIsAUsageErrorThatNamesIt) {
  const Result r = holdfast("lauch -- /bin/true");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("lauch"), std::string::npos) << r.output;
}

TEST(MainCli, ASubcommandsOwnParseErrorsStillExitTwo) {
  const Result r = holdfast("run --no-such-option -- /bin/true");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--no-such-option"), std::string::npos) << r.output;
}

}  // namespace
