// The bash completion scripts shipped in the package, holdfast's and
// holdfast-race's: their word lists match what each command's --help
// defines (both ways, so neither can drift), and bash, sourcing one,
// completes a subcommand's options.
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

// The command paths a completion script lists, each checked against that
// command's --help; returns how many there were.
int check_word_lists(const std::string& file, const std::string& program,
                     const std::string& binary) {
  const std::string script = read_file(file);
  EXPECT_FALSE(script.empty()) << file;
  static const std::regex entry(R"re(^\s*"([^"]+)"\) echo "([^"]*)" ;;$)re");
  std::istringstream in(script);
  int entries = 0;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, entry)) continue;
    ++entries;
    std::vector<std::string> argv = split_words(m[1]);
    EXPECT_EQ(argv[0], program) << file << " completes another program's words: " << line;
    argv[0] = binary;
    argv.push_back("--help");
    const auto help = holdfast::testing::run_command(argv, {});
    EXPECT_EQ(help.exit_code, 0) << m[1] << ": " << help.err;
    const std::vector<std::string> listed = split_words(m[2]);
    EXPECT_EQ(std::set<std::string>(listed.begin(), listed.end()), defined_words(help.out))
        << "completion for \"" << m[1] << "\" against its --help:\n"
        << help.out;
  }
  return entries;
}

TEST(Completion, EachWordListIsWhatThatCommandsHelpDefines) {
  // holdfast, settings and its 8 subcommands, check, run, serve, doctor,
  // net-connect.
  EXPECT_EQ(check_word_lists(HOLDFAST_COMPLETION, "holdfast", HOLDFAST_BINARY), 15);
  // holdfast-race and its 3.
  EXPECT_EQ(check_word_lists(HOLDFAST_RACE_COMPLETION, "holdfast-race", HOLDFAST_RACE_BINARY), 4);
}

// Bash completes `holdfast settings set --s` with --scope, and the scope
// names after it: the script finds the command path among the words.
TEST(Completion, BashCompletesASubcommandsOptionsAndValues) {
  // Sources each script alone, as bash-completion loads the one named
  // after the command; complete -p says which function completes what.
  const auto complete = [](const std::string& words) {
    const bool race = words.starts_with("holdfast-race");
    const std::string script = race ? HOLDFAST_RACE_COMPLETION : HOLDFAST_COMPLETION;
    const std::string program = "source '" + script + "'; COMP_WORDS=(" + words +
                                "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
                                "$(complete -p " +
                                (race ? "holdfast-race" : "holdfast") +
                                " | awk '{print $3}'); echo \"${COMPREPLY[*]}\"";
    const auto r = holdfast::testing::run_command({"/bin/bash", "-c", program}, {});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  EXPECT_EQ(complete("holdfast settings set --s"), "--scope\n");
  EXPECT_EQ(complete("holdfast settings set --scope s"), "system-defaults system\n");
  EXPECT_EQ(complete("holdfast run --workspace /tmp --ex"), "--explain\n");
  EXPECT_EQ(complete("holdfast-race campaign --mode sn"), "snapshot\n");
  EXPECT_EQ(complete("holdfast-race campaign --launcher-"), "--launcher-cmd\n");
  EXPECT_EQ(complete("holdfast-race report --ju"), "--junit\n");
}

// Each script completes its own program only: holdfast's does not claim
// holdfast-race (whose options it does not know), nor the other way round.
TEST(Completion, EachScriptCompletesItsOwnProgram) {
  const auto registered = [](const std::string& script) {
    const auto r = holdfast::testing::run_command(
        {"/bin/bash", "-c", "source '" + script + "'; complete -p"}, {});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  EXPECT_EQ(registered(HOLDFAST_COMPLETION), "complete -F _holdfast holdfast\n");
  EXPECT_EQ(registered(HOLDFAST_RACE_COMPLETION), "complete -F _holdfast_race holdfast-race\n");
}

}  // namespace
