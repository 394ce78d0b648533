#include "launcher/gatekeeper/shell_analysis.hpp"

#include <algorithm>
#include <cctype>

#include "base/name_table.hpp"
#include "launcher/gatekeeper/path_match.hpp"
#include "launcher/gatekeeper/shell_mapper.hpp"
#include "launcher/gatekeeper/shell_wrappers.hpp"

namespace holdfast::gatekeeper::shell {

namespace detail {

namespace {

constexpr int kMaxDepth = 8;             // nested bash -c / $( ) / eval
constexpr std::size_t kMaxCwds = 16;     // directories a command may be in after cd
constexpr std::size_t kMaxBraces = 256;  // words one brace expansion may make

// Environment that changes nothing a program runs or loads.
bool is_harmless_variable(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "LANG",          "LANGUAGE",        "TZ",         "TERM",
      "COLUMNS",       "LINES",           "NO_COLOR",   "FORCE_COLOR",
      "CLICOLOR",      "CLICOLOR_FORCE",  "CI",         "DEBIAN_FRONTEND",
      "GREP_COLOR",    "GREP_COLORS",     "LS_COLORS",  "TIME_STYLE",
      "QUOTING_STYLE", "TABSIZE",         "BLOCK_SIZE", "DU_BLOCK_SIZE",
      "LS_BLOCK_SIZE", "POSIXLY_CORRECT", "NO_PROXY"};
  return name.starts_with("LC_") ||
         std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// Environment whose value is a command line some program runs.
bool is_command_variable(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "LESSOPEN",        "LESSCLOSE",   "PAGER",
      "MANPAGER",        "GIT_PAGER",   "EDITOR",
      "VISUAL",          "GIT_EDITOR",  "GIT_SEQUENCE_EDITOR",
      "GIT_SSH_COMMAND", "GIT_SSH",     "GIT_EXTERNAL_DIFF",
      "GIT_ASKPASS",     "SSH_ASKPASS", "SUDO_ASKPASS",
      "PROMPT_COMMAND",  "BROWSER",     "SYSTEMD_PAGER"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// Environment the analysis names when it asks (the rest asks as unknown).
bool changes_what_runs(std::string_view name) {
  static constexpr std::string_view kPrefixes[] = {
      "LD_",    "GIT_",    "PYTHON", "PERL", "RUBY", "NODE_", "BASH_",    "LESS",
      "GCONV_", "MALLOC_", "GLIBC_", "NPM_", "npm_", "JAVA_", "CLASSPATH"};
  static constexpr std::string_view kNames[] = {
      "PATH",   "ENV",     "SHELLOPTS", "BASHOPTS",    "IFS",   "PS4",       "CDPATH",    "HOME",
      "TMPDIR", "LOCPATH", "NLSPATH",   "HOSTALIASES", "SHELL", "MAKEFLAGS", "GLOBIGNORE"};
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                     [&](std::string_view p) { return name.starts_with(p); }) ||
         std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames) ||
         is_command_variable(name);
}

bool is_proxy_variable(std::string_view name) {
  return name == "http_proxy" || name == "https_proxy" || name == "ftp_proxy" ||
         name == "all_proxy" || name == "no_proxy";
}

std::string single_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

CommandMapper::CommandMapper(const SimpleCommand& command, State& state)
    : command_(command), state_(state) {
  result_.source = command.source;
  bool prefix = true;
  for (const Word& word : command.words) {
    prefix = prefix && is_assignment(word);
    if (prefix || word.source.find('{') == std::string::npos) {
      raw_.push_back(&word);
      continue;
    }
    bool over = false;
    const std::vector<std::string> expanded = brace_expand(word.source, kMaxBraces, over);
    if (over) {
      unanalysable("brace expansion of " + word.source + " makes too many words");
      runs_unknown("brace expansion of " + word.source + " makes too many words to analyse");
      raw_.push_back(&word);
      continue;
    }
    if (expanded.size() == 1 && expanded[0] == word.source) {
      raw_.push_back(&word);
      continue;
    }
    for (const std::string& text : expanded) {
      LexResult lexed = lex(text);
      if (lexed.problems.empty() && lexed.commands.size() == 1 &&
          lexed.commands[0].words.size() == 1 && lexed.commands[0].redirects.empty()) {
        made_.push_back(std::move(lexed.commands[0].words[0]));
        raw_.push_back(&made_.back());
      } else if (!text.empty()) {
        unanalysable("brace expansion of " + word.source + " makes " + text);
        runs_unknown("brace expansion of " + word.source + " makes " + text);
      }
    }
  }
  words_.reserve(raw_.size());
  for (const Word* word : raw_) {
    words_.push_back(expand(*word, pwd_for(state.cwds.front()), state.home));
    result_.typed_words.push_back(words_.back().text);
  }
}

std::string CommandMapper::pwd_for(const std::string& cwd) const {
  return state_.pwd_reassigned ? std::string() : cwd;
}

CommandAnalysis CommandMapper::run() {
  for (const Expanded& word : words_) {
    nest_substitutions(word);
    if (!word.arithmetic.empty()) {
      unanalysable("the arithmetic " + word.arithmetic +
                   " evaluates variables' values as expressions (a subscript there runs "
                   "commands)");
    }
  }
  for (const Redirect& redirect : command_.redirects) map_redirect(redirect);
  std::size_t i = 0;
  while (i < words_.size() && is_assignment(*raw_[i])) ++i;
  for (std::size_t k = 0; k < i; ++k) check_assignment(k, i < words_.size());
  i = skip_keywords(i);
  if (i == SIZE_MAX) return finish(false);
  i = strip_wrappers(i);
  if (i == SIZE_MAX) return finish(true);
  for (std::size_t k = i; k < words_.size(); ++k) {
    result_.words.push_back(words_[k].text);
    result_.dynamic.push_back(words_[k].dynamic);
  }
  if (i >= words_.size()) return finish(true);  // assignments or redirections only
  if (words_[i].dynamic) {
    unanalysable("the program name is computed (" + words_[i].why + ")");
    runs_unknown("the program name is computed (" + words_[i].why + ")");
    return finish(false);
  }
  return finish(map_program(i));
}

CommandAnalysis CommandMapper::finish(bool known) {
  result_.known = known;
  return std::move(result_);
}

void CommandMapper::nest(const std::string& body, const std::string& what) {
  if (state_.depth >= kMaxDepth) {
    unanalysable(what + " nested too deeply");
    runs_unknown(what + " nested too deeply");
    return;
  }
  // A subprocess: its cd does not move this shell.
  State child = state_;
  child.depth = state_.depth + 1;
  analyse_line(body, child);
}

void CommandMapper::nest_substitutions(const Expanded& word) {
  for (const std::string& body : word.substitutions) {
    unanalysable("command substitution $(" + body + ")");
    nest(body, "command substitution");
  }
}

void CommandMapper::add_anywhere(OpKind kind, const std::string& via) {
  const bool seen = std::any_of(result_.ops.begin(), result_.ops.end(), [&](const Operation& op) {
    return op.kind == kind && op.scope == Scope::anywhere;
  });
  if (!seen) result_.ops.push_back({kind, "/", via, "/", Scope::anywhere});
}

void CommandMapper::add_cwd(OpKind kind, const std::string& via, Scope scope) {
  for (const std::string& cwd : state_.cwds) result_.ops.push_back({kind, cwd, via, cwd, scope});
  if (state_.cwd_unknown) {
    unanalysable(via + " works in an unknown directory");
    add_anywhere(kind, via);
  }
}

bool CommandMapper::relative_after_unknown_cd(OpKind kind, const std::string& text,
                                              const std::string& via) {
  if (text[0] == '/' || !state_.cwd_unknown) return false;
  unanalysable("the relative path " + text + " follows a cd to an unknown directory");
  add_anywhere(kind, via);
  return true;
}

void CommandMapper::push_path(OpKind kind, const std::string& text, const std::string& cwd,
                              const std::string& via, Scope scope) {
  const std::string path = normalize_path(text, cwd);
  if (is_device_without_effect(path)) return;
  const bool seen = std::any_of(result_.ops.begin(), result_.ops.end(), [&](const Operation& op) {
    return op.kind == kind && op.target == path && op.scope == scope;
  });
  if (!seen) {
    result_.ops.push_back({kind, path, via, text[0] == '/' ? text : cwd + "/" + text, scope});
  }
}

void CommandMapper::add_path(OpKind kind, std::size_t index, std::size_t offset,
                             const std::string& via, Scope scope) {
  const Word& word = index < raw_.size() ? *raw_[index] : redirect_word_;
  for (const std::string& cwd : state_.cwds) {
    const Expanded e = expand(word, pwd_for(cwd), state_.home);
    if (offset > e.text.size()) return;
    const std::string text = e.text.substr(offset);
    if (text.empty() || text == "-") return;
    if (e.dynamic) {
      unanalysable("the path " + text + " depends on " + e.why);
      add_anywhere(kind, via);
      return;
    }
    if (relative_after_unknown_cd(kind, text, via)) return;
    Scope here = scope;
    if (e.pattern) {
      unanalysable("the path " + text + " is a glob pattern");
      here = Scope::pattern;
    }
    push_path(kind, text, cwd, via, here);
  }
}

void CommandMapper::add_literal_path(OpKind kind, const std::string& text, const std::string& via,
                                     Scope scope) {
  if (text.empty()) {
    add_anywhere(kind, via);
    return;
  }
  if (relative_after_unknown_cd(kind, text, via)) return;
  for (const std::string& cwd : state_.cwds) push_path(kind, text, cwd, via, scope);
}

void CommandMapper::add_option_path(OpKind kind, const Option& option, const std::string& via,
                                    Scope scope) {
  if (option.word < 0) return;
  add_path(kind, static_cast<std::size_t>(option.word), option.offset, via, scope);
}

void CommandMapper::map_redirect(const Redirect& redirect) {
  const Expanded target = expand(redirect.target, pwd_for(state_.cwds.front()), state_.home);
  nest_substitutions(target);
  const std::string& op = redirect.op;
  if (op == "<<" || op == "<<-" || op == "<<<") return;  // here-document, here-string: no file
  if ((op == ">&" || op == "<&") &&
      (target.text == "-" ||
       (!target.text.empty() && std::all_of(target.text.begin(), target.text.end(), ::isdigit)))) {
    return;  // duplicating a descriptor
  }
  redirect_word_ = redirect.target;
  const std::size_t index = SIZE_MAX;  // add_path reads redirect_word_
  const std::string via = op + " redirection";
  if (op == "<" || op == "<>" || op == "<&") add_path(OpKind::read, index, 0, via);
  if (op != "<" && op != "<&") add_path(OpKind::write, index, 0, via);
}

// NAME=value: in front of a command it is that command's environment;
// alone (or after export/declare) it is the shell's, and exported ones
// reach every later command.
void CommandMapper::check_assignment(std::size_t index, bool exported) {
  const std::string& text = words_[index].text;
  const auto eq = text.find('=');
  const std::string name = text.substr(0, eq);
  const std::string value = eq == std::string::npos ? "" : text.substr(eq + 1);
  if (is_harmless_variable(name) && value.find('/') == std::string::npos) return;
  if (name == "HOME") state_.home.clear();
  if (name == "PWD") state_.pwd_reassigned = true;
  if (name == "CDPATH") {
    if (words_[index].dynamic) {
      state_.cdpath_unknown = true;
    } else {
      std::size_t begin = 0;
      while (begin <= value.size()) {
        const std::size_t end = std::min(value.find(':', begin), value.size());
        state_.cdpath.push_back(value.substr(begin, end - begin));
        begin = end + 1;
      }
    }
  }
  if (name.starts_with("GIT_CONFIG")) git_environment_config(index, name, value);
  if (is_command_variable(name)) {
    std::string body = value;
    if (name.starts_with("LESS")) body.erase(0, std::min(body.find_first_not_of('|'), body.size()));
    if (words_[index].dynamic) {
      runs_unknown(name + " names a command that is computed (" + words_[index].why + ")");
    } else if (!body.empty()) {
      nest(body, name);
    }
  }
  if (!exported && !changes_what_runs(name) &&
      (std::islower(static_cast<unsigned char>(name[0])) != 0 || name[0] == '_') &&
      !is_proxy_variable(name)) {
    return;  // a shell variable: no program sees it
  }
  if (changes_what_runs(name)) {
    unanalysable("the environment variable " + name + " changes what programs run or load");
    // Those the analysis follows (cd's CDPATH, ~'s HOME) or reads as a
    // command (PAGER, LESSOPEN, ...) hide nothing.
    if (name != "CDPATH" && name != "HOME" && !is_command_variable(name)) {
      hidden("what " + name + " makes programs run or load");
    }
  } else {
    unanalysable("the environment variable " + name +
                 " reaches the program; holdfast does not know what it changes");
  }
}

// Shell grammar words in command position. Returns SIZE_MAX for a
// construct the analysis does not follow (loops bind variables).
std::size_t CommandMapper::skip_keywords(std::size_t i) {
  static constexpr std::string_view kSkipped[] = {
      "!", "{", "}", "then", "else", "do", "if", "elif", "while", "until", "fi", "done", "esac"};
  static constexpr std::string_view kRefused[] = {"for", "case", "select", "function", "coproc"};
  while (i < words_.size() && !words_[i].dynamic) {
    const std::string& t = words_[i].text;
    if (raw_[i]->parts.size() != 1 || raw_[i]->parts[0].quoted) break;
    if (std::find(std::begin(kRefused), std::end(kRefused), t) != std::end(kRefused)) {
      unanalysable("the shell construct `" + t + "` is not analysed");
      return SIZE_MAX;
    }
    if (std::find(std::begin(kSkipped), std::end(kSkipped), t) == std::end(kSkipped)) break;
    ++i;
  }
  return i;
}

std::string CommandMapper::line_from(std::size_t from, std::size_t to) const {
  std::string line;
  for (std::size_t k = from; k < to && k < words_.size(); ++k) {
    if (!line.empty()) line += ' ';
    line +=
        words_[k].dynamic || words_[k].pattern ? raw_[k]->source : single_quoted(words_[k].text);
  }
  return line;
}

void CommandMapper::run_words(std::size_t from, std::size_t to, std::string_view tail,
                              const std::string& what) {
  std::string line = line_from(from, to);
  if (!tail.empty()) line += " " + std::string(tail);
  nest(line, what);
}

// A program named by an option's value (sort --compress-program, rg --pre):
// it runs with arguments of the program's choosing.
void CommandMapper::run_program(const Option& option, const std::string& via) {
  if (option.word < 0 || option.value.empty()) return;
  const std::string what = via + " --" + option.name + " runs " + option.value;
  if (words_[static_cast<std::size_t>(option.word)].dynamic) {
    unanalysable(what);
    runs_unknown(what);
    return;
  }
  nest(single_quoted(option.value) + " " + std::string(kInputWords), what);
}

// sudo, env, time, ... run the rest of the line as a command. Returns
// SIZE_MAX when the wrapper ends the analysis (command -v: no effect; a
// wrapped command analysed as a line of its own).
std::size_t CommandMapper::strip_wrappers(std::size_t i) {
  while (i < words_.size() && !words_[i].dynamic) {
    const std::string name(basename_of(words_[i].text));
    const WrapperRow row = find_wrapper(name);
    if (row.wrapper == nullptr) break;
    const Wrapper& wrapper = *row.wrapper;
    Parsed p = parse_args(words_, i + 1, *row.options, true);
    unknown_options(p, name);
    option_effects(p, name);
    if (find_option(p, wrapper.chdir)) {
      unanalysable("the command runs in a directory given by an option");
    }
    if (find_option(p, wrapper.lookup_only)) return SIZE_MAX;  // only looks the name up
    if (const Option* split = find_option(p, wrapper.splits)) {
      // env -S splits its string by rules of its own (escapes, ${VAR}).
      const std::string what = name + " -S splits a string into a command";
      unanalysable(what);
      runs_unknown(what);
      if (split->word >= 0 && words_[static_cast<std::size_t>(split->word)].dynamic)
        return SIZE_MAX;
      std::string line = split->value;
      const std::string rest = line_from(p.end, words_.size());
      if (!rest.empty()) line += " " + rest;
      nest(line, what);
      return SIZE_MAX;
    }
    if (wrapper.assignments_follow) {
      while (p.end < words_.size() && is_assignment(*raw_[p.end])) check_assignment(p.end++, true);
    }
    if (wrapper.operand != Operand::none && p.end < words_.size()) {
      const std::size_t operand = p.end++;
      if (wrapper.operand == Operand::created_file && p.end < words_.size()) {
        add_path(OpKind::write, operand, 0, name);
      }
    }
    if (p.end >= words_.size()) return p.end;
    if (std::ranges::find(wrapper.string_after_operand, words_[p.end].text) !=
            wrapper.string_after_operand.end() &&
        !words_[p.end].text.empty()) {
      // flock FILE -c STRING: the string is run by sh -c.
      const std::string what = name + " " + words_[p.end].text;
      if (p.end + 1 >= words_.size()) return SIZE_MAX;
      if (words_[p.end + 1].dynamic) {
        unanalysable(what + " runs a computed string (" + words_[p.end + 1].why + ")");
        runs_unknown(what + " runs a computed string (" + words_[p.end + 1].why + ")");
      } else {
        nest(words_[p.end + 1].text, what);
      }
      return SIZE_MAX;
    }
    if (wrapper.wraps == Wraps::joined && !find_option(p, wrapper.unjoined)) {
      // watch: the words joined by spaces, run by sh -c.
      std::string line;
      for (std::size_t k = p.end; k < words_.size(); ++k) {
        if (words_[k].dynamic) {
          unanalysable(name + " runs a computed command (" + words_[k].why + ")");
          runs_unknown(name + " runs a computed command (" + words_[k].why + ")");
          return SIZE_MAX;
        }
        line += (line.empty() ? "" : " ") + words_[k].text;
      }
      nest(line, name);
      return SIZE_MAX;
    }
    if (wrapper.wraps == Wraps::input) {
      unanalysable(name + " builds the command's arguments from its input");
      const Option* replace = find_option(p, {"I", "i", "replace"});
      if (replace == nullptr) {
        run_words(p.end, words_.size(), kInputWords, name);
        return SIZE_MAX;
      }
      // -I R: every argument holding R gets a line of input instead.
      const std::string marker = replace->value.empty() ? "{}" : replace->value;
      std::string line;
      for (std::size_t k = p.end; k < words_.size(); ++k) {
        if (!line.empty()) line += ' ';
        line += words_[k].text.find(marker) != std::string::npos ? "\"$WORDS_FROM_INPUT\""
                                                                 : line_from(k, k + 1);
      }
      nest(line, name);
      return SIZE_MAX;
    }
    i = p.end;
  }
  return i;
}

bool CommandMapper::map_program(std::size_t i) {
  const std::string name(basename_of(words_[i].text));
  if (name == "cd" || name == "pushd" || name == "popd") {
    follow_cd(name, i);
    return true;
  }
  if (is_shell(name)) return map_shell(i);
  if (name == "eval") {
    std::string body;
    for (std::size_t k = i + 1; k < words_.size(); ++k) {
      if (words_[k].dynamic) runs_unknown("eval runs a computed string (" + words_[k].why + ")");
      body += words_[k].text + " ";
    }
    unanalysable("eval runs a string as a command");
    nest(body, "eval");
    return false;
  }
  if (name == "source" || name == ".") {
    if (i + 1 < words_.size()) add_path(OpKind::read, i + 1, 0, name);
    hidden(i + 1 < words_.size() ? name + " running the script " + words_[i + 1].text
                                 : name + " running a script");
    return false;
  }
  const Program* program = find_program(name);
  if (program == nullptr) {
    hidden("`" + words_[i].text + "`, a program whose effects holdfast does not map");
    return false;
  }
  return map_family(*program, i);
}

void CommandMapper::follow_cd(const std::string& name, std::size_t i) {
  static const OptionTable kCdOptions = compile_options("-L -P -e -@", ParseStyle::first);
  const Parsed p = parse_args(words_, i + 1, kCdOptions, false);
  if (name == "popd" || (!p.operands.empty() && words_[p.operands[0]].text == "-")) {
    state_.cwd_unknown = true;
    return;
  }
  std::vector<std::string> targets;
  if (p.operands.empty()) {
    if (state_.home.empty()) {
      state_.cwd_unknown = true;
      return;
    }
    targets.push_back(state_.home);
  } else {
    const std::size_t k = p.operands[0];
    for (const std::string& cwd : state_.cwds) {
      const Expanded e = expand(*raw_[k], pwd_for(cwd), state_.home);
      if (e.dynamic || e.pattern) {
        unanalysable("cd to " + e.text + " cannot be followed");
        state_.cwd_unknown = true;
        return;
      }
      targets.push_back(normalize_path(e.text, cwd));
      // A name not starting with / . or .. is looked up in CDPATH first.
      const bool searched = !e.text.starts_with('/') && !e.text.starts_with("./") &&
                            !e.text.starts_with("../") && e.text != "." && e.text != "..";
      if (searched && state_.cdpath_unknown) {
        state_.cwd_unknown = true;
        return;
      }
      for (const std::string& entry : searched ? state_.cdpath : std::vector<std::string>{}) {
        targets.push_back(normalize_path(e.text, normalize_path(entry.empty() ? "." : entry, cwd)));
      }
    }
  }
  // The cd may fail or run in a subshell: the old directories stay possible.
  for (std::string& target : targets) {
    if (std::find(state_.cwds.begin(), state_.cwds.end(), target) == state_.cwds.end()) {
      state_.cwds.push_back(std::move(target));
    }
  }
  if (state_.cwds.size() > kMaxCwds) state_.cwd_unknown = true;
}

bool CommandMapper::map_shell(std::size_t i) {
  std::size_t k = i + 1;
  bool command_string = false;
  for (; k < words_.size(); ++k) {
    const std::string& t = words_[k].text;
    if (t == "--" || t == "-") {
      ++k;
      break;
    }
    if (t.size() < 2 || (t[0] != '-' && t[0] != '+')) break;
    if (t == "--rcfile" || t == "--init-file") {
      unanalysable(words_[i].text + " " + t + " runs a start-up file");
      if (k + 1 < words_.size()) add_path(OpKind::read, ++k, 0, words_[i].text);
      continue;
    }
    if (t.starts_with("--")) continue;  // --norc, --login, ...
    if (t.find('c') != std::string::npos) command_string = true;
    if (t.find('o') != std::string::npos || t.find('O') != std::string::npos) ++k;
  }
  if (!command_string) {
    if (k < words_.size()) {
      add_path(OpKind::read, k, 0, words_[i].text);
      hidden(words_[i].text + " running the script " + words_[k].text);
    } else {
      hidden(words_[i].text + " running the commands on its input");
    }
    return false;
  }
  if (k >= words_.size()) {
    unanalysable(words_[i].text + " -c without a command string");
    return false;
  }
  if (words_[k].dynamic) {
    unanalysable(words_[i].text + " -c runs a computed string (" + words_[k].why + ")");
    runs_unknown(words_[i].text + " -c runs a computed string (" + words_[k].why + ")");
    return false;
  }
  nest(words_[k].text, words_[i].text + " -c");
  return true;
}

void analyse_line(std::string_view line, State& state) {
  LexResult lexed = lex(line);
  for (const std::string& problem : lexed.problems) {
    CommandAnalysis broken;
    broken.source = std::string(line);
    broken.unanalysable.push_back("the command line cannot be read exactly: " + problem);
    broken.runs_unknown.push_back("the command line cannot be read exactly: " + problem);
    state.out->commands.push_back(std::move(broken));
  }
  for (const SimpleCommand& command : lexed.commands) {
    CommandMapper mapper(command, state);
    state.out->commands.push_back(mapper.run());
  }
}

}  // namespace detail

std::string_view op_kind_name(OpKind kind) {
  static constexpr NameRow<OpKind> kNames[] = {{OpKind::read, "read"},
                                               {OpKind::write, "write"},
                                               {OpKind::edit, "edit"},
                                               {OpKind::fetch, "fetch"}};
  return name_in(kNames, kind);
}

Analysis analyse(std::string_view command_line, const ShellContext& context) {
  Analysis analysis;
  detail::State state;
  state.cwds.push_back(context.cwd);
  state.home = context.home;
  state.out = &analysis;
  detail::analyse_line(command_line, state);
  return analysis;
}

}  // namespace holdfast::gatekeeper::shell
