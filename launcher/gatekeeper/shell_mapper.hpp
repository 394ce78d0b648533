// The analysis of one simple command (internal to shell_analysis): the
// shell's own work (assignments, redirections, keywords, wrappers, cd) in
// shell_analysis.cpp, the programs' rows in shell_map_programs.cpp, find in
// shell_map_find.cpp, git in shell_map_git.cpp.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/gatekeeper/shell_analysis.hpp"
#include "launcher/gatekeeper/shell_lexer.hpp"
#include "launcher/gatekeeper/shell_options.hpp"
#include "launcher/gatekeeper/shell_programs.hpp"
#include "launcher/gatekeeper/shell_words.hpp"

namespace holdfast::gatekeeper::shell::detail {

struct ScriptEffects;

// What the shell knows while it reads a command line.
struct State {
  std::vector<std::string> cwds;  // every directory the shell may be in
  bool cwd_unknown = false;
  std::string home;                 // empty: HOME was reassigned
  bool pwd_reassigned = false;      // $PWD is unknown
  std::vector<std::string> cdpath;  // CDPATH given on this line (cd searches it)
  bool cdpath_unknown = false;
  int depth = 0;
  Analysis* out = nullptr;
};

void analyse_line(std::string_view line, State& state);

// Names a nested command line uses for what a program hands over at run
// time: the command's analysis sees them as unknown words.
inline constexpr std::string_view kEachMatch = "\"$EACH_FOUND_PATH\"";  // find -exec {}
inline constexpr std::string_view kInputWords = "$WORDS_FROM_INPUT";    // xargs

class CommandMapper {
 public:
  CommandMapper(const SimpleCommand& command, State& state);
  CommandAnalysis run();

 private:
  // --- shell_analysis.cpp: the shell's part ---
  void unanalysable(std::string reason) { result_.unanalysable.push_back(std::move(reason)); }
  void runs_unknown(std::string reason) { result_.runs_unknown.push_back(std::move(reason)); }
  void hidden(std::string reason) { result_.hidden.push_back(std::move(reason)); }
  CommandAnalysis finish(bool known);
  void nest(const std::string& body, const std::string& what);
  void nest_substitutions(const Expanded& word);
  std::string pwd_for(const std::string& cwd) const;
  // A path operand (word `index`, from `offset`), mapped against every
  // directory the shell may be in.
  void add_path(OpKind kind, std::size_t index, std::size_t offset, const std::string& via,
                Scope scope = Scope::exact);
  // A path as a program sees it (no shell expansion), relative to the cwd.
  void add_literal_path(OpKind kind, const std::string& text, const std::string& via,
                        Scope scope = Scope::exact);
  // A relative path after a cd the analysis could not follow: any path.
  bool relative_after_unknown_cd(OpKind kind, const std::string& text, const std::string& via);
  // One path as written, against one directory the shell may be in.
  void push_path(OpKind kind, const std::string& text, const std::string& cwd,
                 const std::string& via, Scope scope);
  void add_anywhere(OpKind kind, const std::string& via);
  void add_cwd(OpKind kind, const std::string& via, Scope scope);
  void add_option_path(OpKind kind, const Option& option, const std::string& via,
                       Scope scope = Scope::exact);
  void map_redirect(const Redirect& redirect);
  void check_assignment(std::size_t index, bool exported);
  std::size_t skip_keywords(std::size_t i);
  std::size_t strip_wrappers(std::size_t i);
  bool map_program(std::size_t i);
  void follow_cd(const std::string& name, std::size_t i);
  bool map_shell(std::size_t i);
  // A command formed from words k.. (re-quoted) and what follows them.
  std::string line_from(std::size_t from, std::size_t to) const;
  void run_words(std::size_t from, std::size_t to, std::string_view tail, const std::string& what);
  void run_program(const Option& option, const std::string& via);

  // --- shell_map_programs.cpp: the table's rows ---
  bool map_family(const Program& program, std::size_t i);
  void option_effects(const Parsed& parsed, const std::string& via);
  void unknown_options(const Parsed& parsed, const std::string& via);
  void apply_script(const ScriptEffects& effects, const std::string& via);
  void check_subscripts(std::size_t index, const std::string& via);
  void check_arithmetic(std::size_t index, const std::string& via);
  void map_test(std::size_t i, const std::string& via);
  void map_names(const Program& program, const Parsed& parsed, const std::string& via);
  void map_sed(const Parsed& parsed, const std::string& via);
  void map_awk(const Parsed& parsed, const std::string& via);
  void map_jq(const Parsed& parsed, const std::string& via);
  void map_grep(const Program& program, const Parsed& parsed, const std::string& via);
  void map_copy(const Program& program, const Parsed& parsed, const std::string& via);
  void map_fetch(const Program& program, const Parsed& parsed, const std::string& via);
  void add_fetch(std::size_t index, std::size_t offset, const std::string& via);

  // --- shell_map_find.cpp ---
  void map_find(std::size_t i, const std::string& via);

  // --- shell_map_git.cpp ---
  void map_git(std::size_t i, const std::string& via);
  void git_config(const std::string& entry, const std::string& via);
  // GIT_CONFIG_KEY_<n> / GIT_CONFIG_VALUE_<n> (git -c in the environment),
  // GIT_CONFIG_PARAMETERS, GIT_CONFIG_GLOBAL, ...
  void git_environment_config(std::size_t index, const std::string& name, const std::string& value);

  const SimpleCommand& command_;
  State& state_;
  std::deque<Word> made_;         // words brace expansion made
  std::vector<const Word*> raw_;  // the command's words after brace expansion
  std::vector<Expanded> words_;
  Word redirect_word_;
  CommandAnalysis result_;
};

}  // namespace holdfast::gatekeeper::shell::detail
