// The bash completion script shipped in the package: its word lists match
// what each command's --help defines (both ways, so neither can drift), and
// bash, sourcing it, completes a subcommand's options.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/process.hpp"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// The options and subcommands a --help text defines: the option lines
// ("  -h,--help ...", "  --scope TEXT ...") and the names listed under
// "Subcommands:". Options only mentioned in a description do not count.
std::set<std::string> defined_words(const std::string& help) {
  std::set<std::string> words;
  static const std::regex option_line(R"(^  (?:-\w,)?(--[a-z][a-z-]*))");
  static const std::regex subcommand_line(R"(^  ([a-z][a-z-]*) )");
  std::istringstream in(help);
  bool in_subcommands = false;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line == "Subcommands:") {
      in_subcommands = true;
    } else if (line.empty()) {
      in_subcommands = false;
    } else if (std::regex_search(line, m, option_line)) {
      words.insert(m[1]);
    } else if (in_subcommands && std::regex_search(line, m, subcommand_line)) {
      words.insert(m[1]);
    }
  }
  return words;
}

TEST(Completion, EachWordListIsWhatThatCommandsHelpDefines) {
  const std::string script = read_file(HOLDFAST_COMPLETION);
  ASSERT_FALSE(script.empty()) << HOLDFAST_COMPLETION;
  static const std::regex entry(R"re(^\s*"([^"]+)"\) echo "([^"]*)" ;;$)re");
  std::istringstream in(script);
  int entries = 0;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, entry)) continue;
    ++entries;
    std::vector<std::string> argv = split_words(m[1]);
    argv[0] = argv[0] == "holdfast" ? HOLDFAST_BINARY : HOLDFAST_RACE_BINARY;
    argv.push_back("--help");
    const auto help = holdfast::testing::run_command(argv, {});
    ASSERT_EQ(help.exit_code, 0) << m[1] << ": " << help.err;
    const std::vector<std::string> listed = split_words(m[2]);
    EXPECT_EQ(std::set<std::string>(listed.begin(), listed.end()), defined_words(help.out))
        << "completion for \"" << m[1] << "\" against its --help:\n"
        << help.out;
  }
  // holdfast, settings and its 8 subcommands, check, run, serve, doctor;
  // holdfast-race and its 3.
  EXPECT_EQ(entries, 18);
}

// Bash completes `holdfast settings set --s` with --scope, and the scope
// names after it: the script finds the command path among the words.
TEST(Completion, BashCompletesASubcommandsOptionsAndValues) {
  const auto complete = [](const std::string& words) {
    const std::string program = std::string("source '") + HOLDFAST_COMPLETION + "'; COMP_WORDS=(" +
                                words +
                                "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _holdfast; "
                                "echo \"${COMPREPLY[*]}\"";
    const auto r = holdfast::testing::run_command({"/bin/bash", "-c", program}, {});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  EXPECT_EQ(complete("holdfast settings set --s"), "--scope\n");
  EXPECT_EQ(complete("holdfast settings set --scope s"), "system-defaults system\n");
  EXPECT_EQ(complete("holdfast run --workspace /tmp --ex"), "--explain\n");
  EXPECT_EQ(complete("holdfast-race campaign --mode sn"), "snapshot\n");
}

}  // namespace
