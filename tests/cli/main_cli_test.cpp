// The top-level command line of the real `holdfast` binary. main.cpp builds
// only the subcommand argv[1] names; these tests pin that help, version and
// errors still see every subcommand, and that each subcommand still parses.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

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

constexpr const char* kSubcommands[] = {"settings", "check",  "run",
                                        "serve",    "doctor", "net-connect"};

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

TEST(MainCli, NoSubcommandPrintsTheGuideAndIsAUsageError) {
  const Result r = holdfast({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("Most people do one of three things"), std::string::npos) << r.output;
  for (const char* sub : kSubcommands) {
    const bool last = sub == std::end(kSubcommands)[-1];
    EXPECT_NE(r.output.find(std::string(" ") + sub + (last ? "." : ",")), std::string::npos)
        << sub << "\n"
        << r.output;
  }
}

// The guide's lines that start with "  holdfast ": the commands it tells a
// newcomer to paste.
std::vector<std::string> guide_commands(const std::string& guide) {
  std::vector<std::string> commands;
  std::size_t start = 0;
  while (start < guide.size()) {
    std::size_t end = guide.find('\n', start);
    if (end == std::string::npos) end = guide.size();
    const std::string line = guide.substr(start, end - start);
    if (line.rfind("  holdfast ", 0) == 0) commands.push_back(line.substr(2));
    start = end + 1;
  }
  return commands;
}

// Each command the guide prints, pasted into a shell as printed (with this
// build's holdfast), in a fresh workspace and fresh settings: the confined
// shell starts and exits, --explain shows the built-in default, the
// settings set saves, and the next --explain shows the policy from the
// user scope.
TEST(MainCli, TheGuidesCommandsWorkAsPrinted) {
  const std::vector<std::string> commands = guide_commands(holdfast({}).output);
  ASSERT_EQ(commands.size(), 3u);
  EXPECT_EQ(commands[0], "holdfast run -- bash");
  EXPECT_EQ(commands[1], "holdfast run --explain -- bash");
  EXPECT_EQ(commands[2].rfind("holdfast settings set ", 0), 0u) << commands[2];

  holdfast::testing::TempDir dir;
  for (const char* sub : {"workspace", "config", "state", "system"}) {
    std::filesystem::create_directory(dir / sub);
  }
  // holdfast refuses a state directory others can read (launch records).
  std::filesystem::permissions(dir / "state", std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::replace);
  const std::map<std::string, std::string> env = {
      {"HOLDFAST_CONFIG_DIR", (dir / "config").string()},
      {"HOLDFAST_STATE_DIR", (dir / "state").string()},
      {"HOLDFAST_SYSTEM_DIR", (dir / "system").string()},
      {"XDG_STATE_HOME", (dir / "state").string()}};
  const auto paste = [&](const std::string& line) {
    const std::string command = std::string(HOLDFAST_BINARY) + line.substr(strlen("holdfast"));
    return holdfast::testing::run_command({"/bin/sh", "-c", command}, env, dir / "workspace");
  };

  const auto shell = paste(commands[0]);  // stdin is /dev/null: the shell exits at once
  EXPECT_EQ(shell.exit_code, 0) << shell.err;
  const auto before = paste(commands[1]);
  EXPECT_EQ(before.exit_code, 0) << before.err;
  EXPECT_NE(before.out.find("the built-in default applies"), std::string::npos) << before.out;
  const auto set = paste(commands[2]);
  EXPECT_EQ(set.exit_code, 0) << set.err;
  const auto after = paste(commands[1]);
  EXPECT_EQ(after.exit_code, 0) << after.err;
  EXPECT_NE(after.out.find("filesystem from user scope"), std::string::npos) << after.out;
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
