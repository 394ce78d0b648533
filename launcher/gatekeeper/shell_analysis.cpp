#include "launcher/gatekeeper/shell_analysis.hpp"

#include <algorithm>
#include <cctype>

#include "launcher/gatekeeper/path_match.hpp"
#include "launcher/gatekeeper/shell_lexer.hpp"
#include "launcher/gatekeeper/shell_options.hpp"
#include "launcher/gatekeeper/shell_programs.hpp"
#include "launcher/gatekeeper/shell_words.hpp"
#include "launcher/gatekeeper/shell_wrappers.hpp"
#include "launcher/gatekeeper/url_host.hpp"

namespace holdfast::gatekeeper::shell {

namespace {

using detail::basename_of;
using detail::expand;
using detail::Expanded;
using detail::Family;
using detail::find_option;
using detail::find_program;
using detail::find_wrapper;
using detail::is_assignment;
using detail::is_device_without_effect;
using detail::is_shell;
using detail::Option;
using detail::parse_args;
using detail::Parsed;
using detail::Program;
using detail::Wrapper;

constexpr int kMaxDepth = 8;          // nested bash -c / $( ) / eval
constexpr std::size_t kMaxCwds = 16;  // directories a command may be in after cd

struct State {
  std::vector<std::string> cwds;  // every directory the shell may be in
  bool cwd_unknown = false;
  std::string home;
  int depth = 0;
  Analysis* out = nullptr;
};

void analyse_line(std::string_view line, State& state);

class CommandMapper {
 public:
  CommandMapper(const SimpleCommand& command, State& state) : command_(command), state_(state) {
    result_.source = command.source;
    for (const Word& word : command.words) {
      words_.push_back(expand(word, state.cwds.front(), state.home));
      result_.typed_words.push_back(words_.back().text);
    }
  }

  CommandAnalysis run() {
    for (const Expanded& word : words_) nest_substitutions(word);
    for (const Redirect& redirect : command_.redirects) map_redirect(redirect);
    std::size_t i = 0;
    while (i < words_.size() && is_assignment(command_.words[i])) ++i;
    i = skip_keywords(i);
    if (i == SIZE_MAX) return finish(false);
    i = strip_wrappers(i);
    if (i == SIZE_MAX) return finish(true);
    for (std::size_t k = i; k < words_.size(); ++k) result_.words.push_back(words_[k].text);
    if (i >= words_.size()) return finish(true);  // assignments or redirections only
    if (words_[i].dynamic) {
      unanalysable("the program name is computed (" + words_[i].why + ")");
      return finish(false);
    }
    return finish(map_program(i));
  }

 private:
  void unanalysable(std::string reason) { result_.unanalysable.push_back(std::move(reason)); }

  CommandAnalysis finish(bool known) {
    result_.known = known;
    return std::move(result_);
  }

  void nest(const std::string& body, const std::string& what) {
    if (state_.depth >= kMaxDepth) {
      unanalysable(what + " nested too deeply");
      return;
    }
    // A subprocess: its cd does not move this shell.
    State child = state_;
    child.depth = state_.depth + 1;
    analyse_line(body, child);
  }

  void nest_substitutions(const Expanded& word) {
    for (const std::string& body : word.substitutions) {
      unanalysable("command substitution $(" + body + ")");
      nest(body, "command substitution");
    }
  }

  // A path operand: mapped against every directory the shell may be in.
  void add_path(OpKind kind, std::size_t index, std::size_t offset, const std::string& via) {
    const Word& word = index < command_.words.size() ? command_.words[index] : redirect_word_;
    for (const std::string& cwd : state_.cwds) {
      const Expanded e = expand(word, cwd, state_.home);
      nest_substitutions(e);
      if (offset > e.text.size()) return;
      const std::string text = e.text.substr(offset);
      if (text.empty() || text == "-") return;
      if (e.dynamic) {
        unanalysable("the path " + text + " depends on " + e.why);
        return;
      }
      if (text[0] != '/' && state_.cwd_unknown) {
        unanalysable("the relative path " + text + " follows a cd to an unknown directory");
        return;
      }
      if (e.pattern) unanalysable("the path " + text + " is a glob pattern");
      const std::string path = normalize_path(text, cwd);
      if (is_device_without_effect(path)) return;
      const bool seen =
          std::any_of(result_.ops.begin(), result_.ops.end(),
                      [&](const Operation& op) { return op.kind == kind && op.target == path; });
      if (!seen) {
        result_.ops.push_back({kind, path, via, text[0] == '/' ? text : cwd + "/" + text});
      }
    }
  }

  void add_option_path(OpKind kind, const Option& option, const std::string& via) {
    if (option.word < 0) return;
    add_path(kind, static_cast<std::size_t>(option.word), option.offset, via);
  }

  void map_redirect(const Redirect& redirect) {
    const Expanded target = expand(redirect.target, state_.cwds.front(), state_.home);
    const std::string& op = redirect.op;
    if (op == "<<" || op == "<<-") return;  // here-document: no file
    if (op == "<<<") {
      nest_substitutions(target);
      return;
    }
    if ((op == ">&" || op == "<&") &&
        (target.text == "-" || (!target.text.empty() &&
                                std::all_of(target.text.begin(), target.text.end(), ::isdigit)))) {
      return;  // duplicating a descriptor
    }
    redirect_word_ = redirect.target;
    const std::size_t index = SIZE_MAX;  // add_path reads redirect_word_
    const std::string via = op + " redirection";
    if (op == "<" || op == "<>" || op == "<&") add_path(OpKind::read, index, 0, via);
    if (op != "<" && op != "<&") add_path(OpKind::write, index, 0, via);
  }

  // Shell grammar words in command position. Returns SIZE_MAX for a
  // construct the analysis does not follow (loops bind variables).
  std::size_t skip_keywords(std::size_t i) {
    static constexpr std::string_view kSkipped[] = {
        "!", "{", "}", "then", "else", "do", "if", "elif", "while", "until", "fi", "done", "esac"};
    static constexpr std::string_view kRefused[] = {"for", "case", "select", "function", "coproc"};
    while (i < words_.size() && !words_[i].dynamic) {
      const std::string& t = words_[i].text;
      if (command_.words[i].parts.size() != 1 || command_.words[i].parts[0].quoted) break;
      if (std::find(std::begin(kRefused), std::end(kRefused), t) != std::end(kRefused)) {
        unanalysable("the shell construct `" + t + "` is not analysed");
        return SIZE_MAX;
      }
      if (std::find(std::begin(kSkipped), std::end(kSkipped), t) == std::end(kSkipped)) break;
      ++i;
    }
    return i;
  }

  // sudo, env, time, ... run the rest of the line as a command. Returns
  // SIZE_MAX when the wrapper ends the analysis (command -v: no effect).
  std::size_t strip_wrappers(std::size_t i) {
    while (i < words_.size() && !words_[i].dynamic) {
      const Wrapper* wrapper = find_wrapper(basename_of(words_[i].text));
      if (wrapper == nullptr) break;
      Parsed p = parse_args(words_, i + 1, wrapper->short_values, wrapper->long_values, true);
      if (find_option(p, wrapper->chdir)) {
        unanalysable("the command runs in a directory given by an option");
      }
      if (find_option(p, wrapper->splits)) unanalysable(std::string(wrapper->splits_because));
      if (!wrapper->unanalysable.empty()) unanalysable(std::string(wrapper->unanalysable));
      if (const Option* file = find_option(p, wrapper->reads)) {
        add_option_path(OpKind::read, *file, std::string(wrapper->names[0]));
      }
      if (find_option(p, wrapper->lookup_only)) return SIZE_MAX;  // only looks the name up
      if (wrapper->assignments_follow) {
        while (p.end < words_.size() && is_assignment(command_.words[p.end])) ++p.end;
      }
      if (wrapper->skips_operand && p.end < words_.size()) ++p.end;
      i = p.end;
    }
    return i;
  }

  bool map_program(std::size_t i) {
    const std::string name(basename_of(words_[i].text));
    if (name == "cd" || name == "pushd" || name == "popd") {
      follow_cd(name, i);
      return true;
    }
    if (is_shell(name)) return map_shell(i);
    if (name == "eval") {
      std::string body;
      for (std::size_t k = i + 1; k < words_.size(); ++k) body += words_[k].text + " ";
      unanalysable("eval runs a string as a command");
      nest(body, "eval");
      return false;
    }
    if (name == "source" || name == ".") {
      if (i + 1 < words_.size()) add_path(OpKind::read, i + 1, 0, name);
      return false;
    }
    const Program* program = find_program(name);
    if (program == nullptr) return false;
    if (program->family != Family::none) {
      for (std::size_t k = i + 1; k < words_.size(); ++k) {
        if (words_[k].splits) {
          unanalysable("the word " + words_[k].text + " may split into several arguments");
        }
      }
    }
    map_family(*program, i);
    return true;
  }

  void follow_cd(const std::string& name, std::size_t i) {
    const Parsed p = parse_args(words_, i + 1, "", "", false);
    if (name == "popd" || (!p.operands.empty() && words_[p.operands[0]].text == "-")) {
      state_.cwd_unknown = true;
      return;
    }
    std::vector<std::string> targets;
    if (p.operands.empty()) {
      targets.push_back(state_.home);
    } else {
      const std::size_t k = p.operands[0];
      for (const std::string& cwd : state_.cwds) {
        const Expanded e = expand(command_.words[k], cwd, state_.home);
        if (e.dynamic || e.pattern) {
          unanalysable("cd to " + e.text + " cannot be followed");
          state_.cwd_unknown = true;
          return;
        }
        targets.push_back(normalize_path(e.text, cwd));
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

  bool map_shell(std::size_t i) {
    std::size_t k = i + 1;
    bool command_string = false;
    for (; k < words_.size(); ++k) {
      const std::string& t = words_[k].text;
      if (t == "--" || t == "-") {
        ++k;
        break;
      }
      if (t.size() < 2 || (t[0] != '-' && t[0] != '+')) break;
      if (t.starts_with("--")) continue;  // --norc, --login, ...
      if (t.find('c') != std::string::npos) command_string = true;
      if (t.find('o') != std::string::npos || t.find('O') != std::string::npos) ++k;
    }
    if (!command_string) {
      if (k < words_.size()) add_path(OpKind::read, k, 0, words_[i].text);
      return false;  // runs a script or its input
    }
    if (k >= words_.size()) {
      unanalysable(words_[i].text + " -c without a command string");
      return false;
    }
    if (words_[k].dynamic) {
      unanalysable(words_[i].text + " -c runs a computed string (" + words_[k].why + ")");
      return false;
    }
    nest(words_[k].text, words_[i].text + " -c");
    return true;
  }

  void map_family(const Program& program, std::size_t i) {
    const std::string via(program.name);
    const Parsed p = parse_args(words_, i + 1, program.short_values, program.long_values, false);
    const auto& ops = p.operands;
    auto all = [&](OpKind kind, std::size_t from) {
      for (std::size_t k = from; k < ops.size(); ++k) add_path(kind, ops[k], 0, via);
    };
    switch (program.family) {
      case Family::none:
        break;
      case Family::read_all:
        if (ops.empty() &&
            (program.name == "ls" || program.name == "du" || program.name == "tree")) {
          for (const std::string& cwd : state_.cwds) {
            if (!state_.cwd_unknown) result_.ops.push_back({OpKind::read, cwd, via, cwd});
          }
          if (state_.cwd_unknown) unanalysable(via + " lists an unknown directory");
        }
        all(OpKind::read, 0);
        if (const Option* out = find_option(p, {"o", "output"})) {
          add_option_path(OpKind::write, *out, via);  // sort -o, tree -o
        }
        break;
      case Family::read_after_first: {
        const bool script_given =
            find_option(p, {"e", "f", "regexp", "file", "expression"}) != nullptr;
        for (const Option& option : p.options) {
          if (option.name == "f" || option.name == "file" || option.name == "slurpfile" ||
              option.name == "rawfile" || option.name == "from-file") {
            add_option_path(OpKind::read, option, via);
          }
        }
        bool in_place = false;
        if (program.name == "sed") in_place = find_option(p, {"i", "in-place"}) != nullptr;
        if (program.name.find("awk") != std::string_view::npos) {
          const Option* include = find_option(p, {"i", "include"});
          in_place = include != nullptr && include->value == "inplace";
        }
        all(in_place ? OpKind::edit : OpKind::read, script_given ? 0 : 1);
        break;
      }
      case Family::write_all:
        all(OpKind::write, 0);
        if (const Option* ref = find_option(p, {"r", "reference"})) {
          add_option_path(OpKind::read, *ref, via);
        }
        break;
      case Family::edit_all:
        all(OpKind::edit, 0);
        break;
      case Family::edit_after_first:
        all(OpKind::edit, find_option(p, {"reference"}) != nullptr ? 0 : 1);
        break;
      case Family::copy:
      case Family::move: {
        const OpKind source = program.family == Family::move ? OpKind::edit : OpKind::read;
        if (const Option* dir = find_option(p, {"t", "target-directory"})) {
          add_option_path(OpKind::write, *dir, via);
          all(source, 0);
        } else if (program.name == "install" && find_option(p, {"d", "directory"})) {
          all(OpKind::write, 0);
        } else if (!ops.empty()) {
          for (std::size_t k = 0; k + 1 < ops.size(); ++k) add_path(source, ops[k], 0, via);
          add_path(OpKind::write, ops.back(), 0, via);
        }
        break;
      }
      case Family::read_then_write:
        if (!ops.empty()) add_path(OpKind::read, ops[0], 0, via);
        if (ops.size() > 1) add_path(OpKind::write, ops[1], 0, via);
        break;
      case Family::dd:
        for (std::size_t k : ops) {
          if (words_[k].text.starts_with("if=")) add_path(OpKind::read, k, 3, via);
          if (words_[k].text.starts_with("of=")) add_path(OpKind::write, k, 3, via);
        }
        break;
      case Family::find:
        map_find(i, via);
        break;
      case Family::curl:
      case Family::wget:
        map_fetch(program, p, via);
        break;
    }
  }

  void map_find(std::size_t i, const std::string& via) {
    std::size_t k = i + 1;
    // Leading -H -L -P -O3 -D debug options.
    while (k < words_.size() && (words_[k].text == "-H" || words_[k].text == "-L" ||
                                 words_[k].text == "-P" || words_[k].text.starts_with("-O"))) {
      ++k;
    }
    bool any_path = false;
    for (; k < words_.size(); ++k) {
      const std::string& t = words_[k].text;
      if (t.starts_with("-") || t == "(" || t == "!" || t == ")") break;
      add_path(OpKind::read, k, 0, via);
      any_path = true;
    }
    if (!any_path) {
      for (const std::string& cwd : state_.cwds)
        result_.ops.push_back({OpKind::read, cwd, via, cwd});
      if (state_.cwd_unknown) unanalysable("find searches an unknown directory");
    }
    for (; k < words_.size(); ++k) {
      const std::string& t = words_[k].text;
      if (t == "-exec" || t == "-execdir" || t == "-ok" || t == "-okdir") {
        unanalysable("find " + t + " runs a command on every match");
      } else if (t == "-delete") {
        unanalysable("find -delete removes every match");
      } else if ((t == "-fprint" || t == "-fprint0" || t == "-fls" || t == "-fprintf") &&
                 k + 1 < words_.size()) {
        add_path(OpKind::write, k + 1, 0, via);
      }
    }
  }

  void map_fetch(const Program& program, const Parsed& p, const std::string& via) {
    const bool is_curl = program.family == Family::curl;
    for (const Option& option : p.options) {
      const std::string& n = option.name;
      if (is_curl) {
        if (n == "o" || n == "output" || n == "c" || n == "cookie-jar" || n == "D" ||
            n == "dump-header" || n == "output-dir") {
          add_option_path(OpKind::write, option, via);
        } else if (n == "T" || n == "upload-file" || n == "K" || n == "config") {
          add_option_path(OpKind::read, option, via);
        } else if ((n == "d" || n.starts_with("data") || n == "json") &&
                   option.value.starts_with("@")) {
          add_option_path(OpKind::read, Option{n, option.value, option.word, option.offset + 1},
                          via);
        } else if ((n == "F" || n == "form") && option.value.find("=@") != std::string::npos) {
          add_option_path(
              OpKind::read,
              Option{n, option.value, option.word, option.offset + option.value.find("=@") + 2},
              via);
        } else if (n == "url") {
          add_fetch(static_cast<std::size_t>(option.word), option.offset, via);
        } else if (n == "O" || n == "remote-name") {
          unanalysable("curl -O writes a file named by the server");
        }
      } else {
        if (n == "O" || n == "output-document" || n == "o" || n == "output-file" || n == "a" ||
            n == "append-output" || n == "P" || n == "directory-prefix") {
          add_option_path(OpKind::write, option, via);
        } else if (n == "post-file" || n == "body-file") {
          add_option_path(OpKind::read, option, via);
        } else if (n == "i" || n == "input-file") {
          add_option_path(OpKind::read, option, via);
          unanalysable("wget -i fetches URLs listed in a file");
        }
      }
    }
    if (!is_curl && find_option(p, {"O", "output-document", "P", "directory-prefix"}) == nullptr) {
      // wget saves into the current directory under a name from the URL.
      for (const std::string& cwd : state_.cwds)
        result_.ops.push_back({OpKind::write, cwd, via, cwd});
    }
    for (std::size_t k : p.operands) add_fetch(k, 0, via);
  }

  void add_fetch(std::size_t index, std::size_t offset, const std::string& via) {
    if (index >= words_.size()) return;
    const Expanded& e = words_[index];
    if (e.dynamic) {
      unanalysable("the URL " + e.text + " depends on " + e.why);
      return;
    }
    const std::string host =
        url_host(std::string_view(e.text).substr(std::min(offset, e.text.size())));
    if (host.empty()) {
      unanalysable("no host in the URL " + e.text);
      return;
    }
    result_.ops.push_back({OpKind::fetch, host, via, ""});
  }

  const SimpleCommand& command_;
  State& state_;
  std::vector<Expanded> words_;
  Word redirect_word_;
  CommandAnalysis result_;
};

void analyse_line(std::string_view line, State& state) {
  LexResult lexed = lex(line);
  for (const std::string& problem : lexed.problems) {
    CommandAnalysis broken;
    broken.source = std::string(line);
    broken.unanalysable.push_back("the command line cannot be read exactly: " + problem);
    state.out->commands.push_back(std::move(broken));
  }
  for (const SimpleCommand& command : lexed.commands) {
    CommandMapper mapper(command, state);
    state.out->commands.push_back(mapper.run());
  }
}

}  // namespace

std::string_view op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::read:
      return "read";
    case OpKind::write:
      return "write";
    case OpKind::edit:
      return "edit";
    case OpKind::fetch:
      return "fetch";
  }
  return "?";
}

Analysis analyse(std::string_view command_line, const ShellContext& context) {
  Analysis analysis;
  State state;
  state.cwds.push_back(context.cwd);
  state.home = context.home;
  state.out = &analysis;
  analyse_line(command_line, state);
  return analysis;
}

}  // namespace holdfast::gatekeeper::shell
