#include "launcher/gatekeeper/shell_analysis.hpp"

#include <algorithm>
#include <cctype>

#include "launcher/gatekeeper/path_match.hpp"
#include "launcher/gatekeeper/shell_lexer.hpp"
#include "launcher/gatekeeper/url_host.hpp"

namespace holdfast::gatekeeper::shell {

namespace {

constexpr int kMaxDepth = 8;          // nested bash -c / $( ) / eval
constexpr std::size_t kMaxCwds = 16;  // directories a command may be in after cd

// How a program's arguments map to operations.
enum class Family {
  none,              // no file or network effect: echo, printf, pwd, ...
  read_all,          // every operand is read: cat, head, ls, ...
  read_after_first,  // the first operand is a pattern or program: grep, sed, awk, jq
  write_all,         // touch, mkdir, tee
  edit_all,          // rm, rmdir, unlink, shred, truncate
  edit_after_first,  // chmod MODE, chown OWNER, chgrp GROUP
  copy,              // cp, ln, install: sources read, destination written
  move,              // mv: sources edited, destination written
  read_then_write,   // uniq IN OUT, xxd IN OUT
  dd,                // if= read, of= written
  find,              // find PATHS EXPR
  curl,
  wget,
};

struct Program {
  std::string_view name;
  Family family;
  std::string_view short_values;  // short options that take a value
  std::string_view long_values;   // " name name " long options that take a value
};

// Programs whose effects are all mapped. Anything else is unknown: its
// default is ask, and only a Bash rule can allow it.
constexpr Program kPrograms[] = {
    {"echo", Family::none, "", ""},
    {"printf", Family::none, "v", ""},
    {"true", Family::none, "", ""},
    {"false", Family::none, "", ""},
    {":", Family::none, "", ""},
    {"pwd", Family::none, "", ""},
    {"date", Family::none, "dfr", " date file reference "},
    {"whoami", Family::none, "", ""},
    {"id", Family::none, "", ""},
    {"uname", Family::none, "", ""},
    {"hostname", Family::none, "", ""},
    {"which", Family::none, "", ""},
    {"type", Family::none, "", ""},
    {"test", Family::none, "", ""},
    {"[", Family::none, "", ""},
    {"[[", Family::none, "", ""},
    {"sleep", Family::none, "", ""},
    {"seq", Family::none, "fs", ""},
    {"basename", Family::none, "s", ""},
    {"dirname", Family::none, "", ""},
    {"expr", Family::none, "", ""},
    {"exit", Family::none, "", ""},
    {"return", Family::none, "", ""},
    {"export", Family::none, "", ""},
    {"unset", Family::none, "", ""},
    {"printenv", Family::none, "", ""},
    {"cat", Family::read_all, "", ""},
    {"head", Family::read_all, "nc", " lines bytes "},
    {"tail", Family::read_all, "ncs", " lines bytes sleep-interval pid "},
    {"less", Family::read_all, "bhjkoOpPtTxyz", ""},
    {"more", Family::read_all, "n", ""},
    {"wc", Family::read_all, "", ""},
    {"sort", Family::read_all, "kotST",
     " key output field-separator buffer-size temporary-directory "},
    {"cut", Family::read_all, "bcdf", " bytes characters delimiter fields output-delimiter "},
    {"file", Family::read_all, "mfFe", " magic-file files-from separator exclude "},
    {"stat", Family::read_all, "c", " format printf "},
    {"ls", Family::read_all, "ITw", " ignore hide width format sort time-style tabsize "},
    {"tree", Family::read_all, "LIPo", " filelimit "},
    {"du", Family::read_all, "dBtX", " max-depth exclude block-size threshold "},
    {"diff", Family::read_all, "UxXIFC", " unified exclude exclude-from ignore-matching-lines "},
    {"cmp", Family::read_all, "in", " ignore-initial bytes "},
    {"comm", Family::read_all, "", ""},
    {"md5sum", Family::read_all, "", ""},
    {"sha1sum", Family::read_all, "", ""},
    {"sha256sum", Family::read_all, "", ""},
    {"sha512sum", Family::read_all, "", ""},
    {"base64", Family::read_all, "w", " wrap "},
    {"od", Family::read_all, "AjNtw", ""},
    {"hexdump", Family::read_all, "enfs", ""},
    {"strings", Family::read_all, "nte", ""},
    {"nl", Family::read_all, "bdfhilnsvw", ""},
    {"tac", Family::read_all, "s", " separator "},
    {"rev", Family::read_all, "", ""},
    {"readlink", Family::read_all, "", ""},
    {"realpath", Family::read_all, "", " relative-to relative-base "},
    {"paste", Family::read_all, "d", " delimiters "},
    {"fold", Family::read_all, "w", " width "},
    {"column", Family::read_all, "cstoOR", ""},
    {"grep", Family::read_after_first, "efmABCdD",
     " regexp file max-count after-context before-context context include exclude exclude-dir "
     "label color colour "},
    {"egrep", Family::read_after_first, "efmABCdD",
     " regexp file max-count include exclude exclude-dir "},
    {"fgrep", Family::read_after_first, "efmABCdD",
     " regexp file max-count include exclude exclude-dir "},
    {"rg", Family::read_after_first, "efgtTmABCMj",
     " regexp file glob type type-not max-count after-context before-context context max-columns "
     "threads "},
    {"sed", Family::read_after_first, "efl", " expression file line-length "},
    {"awk", Family::read_after_first, "fvFi", " file assign field-separator include "},
    {"gawk", Family::read_after_first, "fvFi", " file assign field-separator include "},
    {"mawk", Family::read_after_first, "fvF", ""},
    {"jq", Family::read_after_first, "fL", " arg argjson slurpfile rawfile from-file indent "},
    {"touch", Family::write_all, "drt", " date reference "},
    {"mkdir", Family::write_all, "m", " mode "},
    {"mkfifo", Family::write_all, "m", " mode "},
    {"tee", Family::write_all, "", ""},
    {"rm", Family::edit_all, "", ""},
    {"rmdir", Family::edit_all, "", ""},
    {"unlink", Family::edit_all, "", ""},
    {"shred", Family::edit_all, "ns", " iterations size "},
    {"truncate", Family::edit_all, "sr", " size reference "},
    {"chmod", Family::edit_after_first, "", " reference "},
    {"chown", Family::edit_after_first, "", " reference from "},
    {"chgrp", Family::edit_after_first, "", " reference "},
    {"cp", Family::copy, "tS", " target-directory suffix backup "},
    {"ln", Family::copy, "tS", " target-directory suffix backup "},
    {"install", Family::copy, "tSmog", " target-directory suffix mode owner group "},
    {"mv", Family::move, "tS", " target-directory suffix backup "},
    {"uniq", Family::read_then_write, "fsw", " skip-fields skip-chars check-chars "},
    {"xxd", Family::read_then_write, "cgloOs", " cols groupsize len offset seek "},
    {"dd", Family::dd, "", ""},
    {"find", Family::find, "", ""},
    {"curl", Family::curl, "oTdHXuAebcFwxmKErUYyzCD",
     " output upload-file data data-raw data-binary data-urlencode data-ascii header request user "
     "user-agent referer cookie cookie-jar form form-string write-out proxy max-time "
     "connect-timeout url config cert key cacert range retry output-dir resolve connect-to json "
     "dump-header "},
    {"wget", Family::wget, "OoaPiUetTwQ",
     " output-document output-file append-output directory-prefix input-file user-agent execute "
     "tries timeout wait quota header post-data post-file user password body-file "},
};

const Program* find_program(std::string_view name) {
  for (const Program& p : kPrograms) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

bool is_shell(std::string_view name) {
  return name == "bash" || name == "sh" || name == "dash" || name == "zsh" || name == "ksh" ||
         name == "mksh" || name == "ash";
}

std::string_view basename_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// A word after the expansions we can perform.
struct Expanded {
  std::string text;
  bool dynamic = false;  // depends on something unknown
  bool splits = false;   // an unquoted unknown expansion: may become several words
  std::string why;       // the first unknown part
  bool pattern = false;  // unquoted glob or brace characters
  std::vector<std::string> substitutions;
};

Expanded expand(const Word& word, std::string_view pwd, std::string_view home) {
  Expanded e;
  for (std::size_t k = 0; k < word.parts.size(); ++k) {
    const WordPart& part = word.parts[k];
    switch (part.kind) {
      case WordPart::Kind::text: {
        std::string_view value = part.value;
        // bash also expands ~ after the = of an assignment-like word
        // (dd if=~/x): take that prefix as text first.
        if (k == 0 && !part.quoted) {
          const auto eq = value.find("=~");
          const bool name_before =
              eq != std::string_view::npos && eq > 0 &&
              std::isdigit(static_cast<unsigned char>(value[0])) == 0 &&
              std::all_of(value.begin(), value.begin() + static_cast<std::ptrdiff_t>(eq),
                          [](char c) {
                            return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
                          });
          if (name_before && (eq + 2 == value.size() || value[eq + 2] == '/')) {
            e.text += value.substr(0, eq + 1);
            value.remove_prefix(eq + 1);
          }
        }
        if (k == 0 && !part.quoted && value.starts_with('~')) {
          const auto slash = value.find('/');
          const std::string_view user =
              value.substr(1, slash == std::string_view::npos ? std::string_view::npos : slash - 1);
          if (user.empty()) {
            e.text += home;
            value.remove_prefix(1);
          } else {
            e.dynamic = true;
            if (e.why.empty()) e.why = "~" + std::string(user);
          }
        }
        e.text += value;
        if (!part.quoted && (value.find_first_of("*?[") != std::string_view::npos ||
                             (value.find('{') != std::string_view::npos &&
                              (value.find(',') != std::string_view::npos ||
                               value.find("..") != std::string_view::npos)))) {
          e.pattern = true;
        }
        break;
      }
      case WordPart::Kind::variable:
        if (part.value == "HOME") {
          e.text += home;
        } else if (part.value == "PWD") {
          e.text += pwd;
        } else {
          e.dynamic = true;
          e.splits = e.splits || !part.quoted;
          const std::string shown = part.value.empty() ? "${...}" : "$" + part.value;
          if (e.why.empty()) e.why = shown;
          e.text += shown;
        }
        break;
      case WordPart::Kind::substitution:
        e.dynamic = true;
        e.splits = e.splits || !part.quoted;
        if (e.why.empty()) e.why = "$(" + part.value + ")";
        e.substitutions.push_back(part.value);
        e.text += "$(" + part.value + ")";
        break;
    }
  }
  return e;
}

bool is_assignment(const Word& word) {
  if (word.parts.empty() || word.parts[0].kind != WordPart::Kind::text || word.parts[0].quoted) {
    return false;
  }
  const std::string& t = word.parts[0].value;
  const auto eq = t.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  if (std::isalpha(static_cast<unsigned char>(t[0])) == 0 && t[0] != '_') return false;
  return std::all_of(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(eq), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

bool is_device_without_effect(std::string_view path) {
  return path == "/dev/null" || path == "/dev/stdin" || path == "/dev/stdout" ||
         path == "/dev/stderr" || path == "/dev/tty" || path.starts_with("/dev/fd/");
}

struct Option {
  std::string name;        // "o" or "output"
  std::string value;       // empty when the option takes none
  int word = -1;           // the word holding the value
  std::size_t offset = 0;  // where the value starts in that word's text
};

struct Parsed {
  std::vector<Option> options;
  std::vector<std::size_t> operands;  // word indices
  std::size_t end = 0;                // first word not consumed (stop_at_operand)
};

bool takes_value(std::string_view long_values, std::string_view name) {
  if (long_values.empty()) return false;
  const std::string needle = " " + std::string(name) + " ";
  return long_values.find(needle) != std::string_view::npos;
}

// GNU-style options: -abc clusters, -ovalue, -o value, --name=value,
// --name value, -- ends options. With stop_at_operand, parsing stops at
// the first operand (wrappers: what follows is the wrapped command).
Parsed parse_args(const std::vector<Expanded>& words, std::size_t from,
                  std::string_view short_values, std::string_view long_values,
                  bool stop_at_operand) {
  Parsed parsed;
  bool options_done = false;
  std::size_t i = from;
  for (; i < words.size(); ++i) {
    const std::string& t = words[i].text;
    if (options_done || t.size() < 2 || t[0] != '-') {
      if (stop_at_operand) break;
      parsed.operands.push_back(i);
      continue;
    }
    if (t == "--") {
      options_done = true;
      if (stop_at_operand) {
        ++i;
        break;
      }
      continue;
    }
    if (t.starts_with("--")) {
      const auto eq = t.find('=');
      Option option{t.substr(2, eq == std::string::npos ? std::string::npos : eq - 2), "", -1, 0};
      if (eq != std::string::npos) {
        option.value = t.substr(eq + 1);
        option.word = static_cast<int>(i);
        option.offset = eq + 1;
      } else if (takes_value(long_values, option.name) && i + 1 < words.size()) {
        ++i;
        option.value = words[i].text;
        option.word = static_cast<int>(i);
      }
      parsed.options.push_back(option);
      continue;
    }
    for (std::size_t j = 1; j < t.size(); ++j) {
      Option option{std::string(1, t[j]), "", -1, 0};
      if (short_values.find(t[j]) != std::string_view::npos) {
        if (j + 1 < t.size()) {
          option.value = t.substr(j + 1);
          option.word = static_cast<int>(i);
          option.offset = j + 1;
        } else if (i + 1 < words.size()) {
          option.value = words[i + 1].text;
          option.word = static_cast<int>(i + 1);
          ++i;
        }
        parsed.options.push_back(option);
        break;
      }
      parsed.options.push_back(option);
    }
  }
  parsed.end = i;
  return parsed;
}

const Option* find_option(const Parsed& parsed, std::initializer_list<std::string_view> names) {
  for (const Option& option : parsed.options) {
    for (std::string_view name : names) {
      if (option.name == name) return &option;
    }
  }
  return nullptr;
}

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
      const std::string_view name = basename_of(words_[i].text);
      Parsed p;
      if (name == "sudo" || name == "doas") {
        p = parse_args(
            words_, i + 1, "ugChpPrtUTD",
            " user group close-from host prompt role type other-user command-timeout chdir ", true);
        if (find_option(p, {"D", "chdir"})) state_cwd_unknown_for_command();
      } else if (name == "env") {
        p = parse_args(words_, i + 1, "uCS", " unset chdir split-string ", true);
        if (find_option(p, {"C", "chdir"})) state_cwd_unknown_for_command();
        if (find_option(p, {"S", "split-string"}))
          unanalysable("env -S splits a string into a command");
        while (p.end < words_.size() && is_assignment(command_.words[p.end])) ++p.end;
      } else if (name == "time") {
        p = parse_args(words_, i + 1, "fo", " format output ", true);
      } else if (name == "nice") {
        p = parse_args(words_, i + 1, "n", " adjustment ", true);
      } else if (name == "nohup" || name == "builtin" || name == "setsid") {
        p = parse_args(words_, i + 1, "", "", true);
      } else if (name == "timeout") {
        p = parse_args(words_, i + 1, "sk", " signal kill-after ", true);
        if (p.end < words_.size()) ++p.end;  // the duration
      } else if (name == "stdbuf") {
        p = parse_args(words_, i + 1, "ioe", " input output error ", true);
      } else if (name == "ionice") {
        p = parse_args(words_, i + 1, "cnpPu", " class classdata pid pgid uid ", true);
      } else if (name == "exec") {
        p = parse_args(words_, i + 1, "a", "", true);
      } else if (name == "command") {
        p = parse_args(words_, i + 1, "", "", true);
        if (find_option(p, {"v", "V"})) return SIZE_MAX;  // only looks the name up
      } else if (name == "xargs") {
        p = parse_args(words_, i + 1, "aEdIiLlnPs",
                       " arg-file eof delimiter replace max-lines max-args max-procs max-chars ",
                       true);
        unanalysable("xargs builds the command's arguments from its input");
        if (const Option* file = find_option(p, {"a", "arg-file"})) {
          add_option_path(OpKind::read, *file, "xargs");
        }
      } else {
        break;
      }
      i = p.end;
    }
    return i;
  }

  void state_cwd_unknown_for_command() {
    unanalysable("the command runs in a directory given by an option");
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
