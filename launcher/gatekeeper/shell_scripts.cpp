#include "launcher/gatekeeper/shell_scripts.hpp"

#include <cctype>
#include <vector>

namespace holdfast::gatekeeper::shell::detail {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Files that name no file: sed's and awk's special names.
bool is_special_file(std::string_view name) {
  return name == "/dev/stdout" || name == "/dev/stderr" || name == "/dev/stdin" || name == "-" ||
         name.starts_with("/dev/fd/");
}

// GNU sed's compile.c, far enough to find e, r, R, w, W and the s flags.
class SedReader {
 public:
  explicit SedReader(std::string_view s) : s_(s) {}

  ScriptEffects run() {
    while (true) {
      while (i_ < s_.size() && (is_space(s_[i_]) || s_[i_] == '\n' || s_[i_] == ';')) ++i_;
      if (i_ >= s_.size()) break;
      if (s_[i_] == '#') {
        skip_line();
        continue;
      }
      if (!address()) return fail("an address sed cannot read");
      while (i_ < s_.size() && (is_space(s_[i_]) || s_[i_] == '!')) ++i_;
      if (i_ >= s_.size()) return fail("an address without a command");
      if (!command(s_[i_++])) return std::move(out_);
      while (i_ < s_.size() && is_space(s_[i_])) ++i_;
      if (i_ < s_.size() && s_[i_] != ';' && s_[i_] != '\n' && s_[i_] != '}' && s_[i_] != '#') {
        return fail(std::string("text after the command: ") + std::string(s_.substr(i_, 12)));
      }
    }
    return std::move(out_);
  }

 private:
  ScriptEffects fail(std::string why) {
    out_.unknown.push_back("the sed script has " + why);
    return std::move(out_);
  }

  void skip_line() {
    while (i_ < s_.size() && s_[i_] != '\n') ++i_;
  }

  // Up to the unescaped delimiter; leaves i_ after it. False at the end.
  bool delimited(char delimiter) {
    while (i_ < s_.size()) {
      const char c = s_[i_++];
      if (c == '\\') {
        ++i_;
      } else if (c == delimiter) {
        return true;
      } else if (c == '\n' && delimiter != '\n') {
        return false;
      }
    }
    return false;
  }

  bool one_address() {
    if (i_ >= s_.size()) return true;
    const char c = s_[i_];
    if (is_digit(c)) {
      while (i_ < s_.size() && (is_digit(s_[i_]) || s_[i_] == '~')) ++i_;
    } else if (c == '$') {
      ++i_;
    } else if (c == '/' || c == '\\') {
      ++i_;
      char delimiter = '/';
      if (c == '\\') {
        if (i_ >= s_.size()) return false;
        delimiter = s_[i_++];
      }
      if (!delimited(delimiter)) return false;
      while (i_ < s_.size() && (s_[i_] == 'I' || s_[i_] == 'M')) ++i_;
    }
    return true;
  }

  bool address() {
    const std::size_t before = i_;
    if (!one_address()) return false;
    while (i_ < s_.size() && is_space(s_[i_])) ++i_;
    if (i_ > before && i_ < s_.size() && s_[i_] == ',') {
      ++i_;
      while (i_ < s_.size() && is_space(s_[i_])) ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '~')) {
        ++i_;
        while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
      } else if (!one_address()) {
        return false;
      }
    }
    return true;
  }

  // The rest of the line: a file name or a command (GNU: `;` belongs to it).
  std::string rest_of_line() {
    while (i_ < s_.size() && is_space(s_[i_])) ++i_;
    const std::size_t begin = i_;
    skip_line();
    return std::string(s_.substr(begin, i_ - begin));
  }

  void file(OpKind kind, const std::string& name) {
    if (name.empty()) {
      out_.unknown.push_back("a sed r/w command without a file name");
    } else if (!is_special_file(name)) {
      out_.files.emplace_back(kind, name);
    }
  }

  bool command(char c) {
    switch (c) {
      case '{':
      case '}':
      case '=':
      case 'd':
      case 'D':
      case 'g':
      case 'G':
      case 'h':
      case 'H':
      case 'n':
      case 'N':
      case 'p':
      case 'P':
      case 'x':
      case 'z':
      case 'F':
        return true;
      case 'l':
      case 'L':
      case 'q':
      case 'Q':
        while (i_ < s_.size() && (is_space(s_[i_]) || is_digit(s_[i_]))) ++i_;
        return true;
      case ':':
      case 'b':
      case 't':
      case 'T':
      case 'v':
        while (i_ < s_.size() && s_[i_] != ';' && s_[i_] != '\n') ++i_;
        return true;
      case 'a':
      case 'i':
      case 'c':
        // Text up to an unescaped newline.
        while (i_ < s_.size() && s_[i_] != '\n') i_ += s_[i_] == '\\' ? 2 : 1;
        return true;
      case 'r':
      case 'R':
        file(OpKind::read, rest_of_line());
        return true;
      case 'w':
      case 'W':
        file(OpKind::write, rest_of_line());
        return true;
      case 'e': {
        const std::string command = rest_of_line();
        if (command.empty()) {
          out_.runs_unknown = "sed's e command runs the pattern space as a command";
        } else {
          out_.commands.push_back(command);
        }
        return true;
      }
      case 's':
      case 'y': {
        if (i_ >= s_.size() || s_[i_] == '\n' || s_[i_] == '\\') {
          fail(std::string("a bad ") + c + " command");
          return false;
        }
        const char delimiter = s_[i_++];
        if (!delimited(delimiter) || !delimited(delimiter)) {
          fail(std::string("an unterminated ") + c + " command");
          return false;
        }
        if (c == 'y') return true;
        while (i_ < s_.size()) {
          const char flag = s_[i_];
          if (flag == 'e') {
            out_.runs_unknown = "sed's s///e flag runs the pattern space as a command";
          } else if (flag == 'w') {
            ++i_;
            file(OpKind::write, rest_of_line());
            return true;
          } else if (!(is_digit(flag) || flag == 'g' || flag == 'p' || flag == 'i' || flag == 'I' ||
                       flag == 'm' || flag == 'M')) {
            break;
          }
          ++i_;
        }
        return true;
      }
      default:
        fail(std::string("the command '") + c + "', which holdfast does not map");
        return false;
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
  ScriptEffects out_;
};

// awk, token by token: strings, regular expressions (where an operand may
// not stand), comments; then print/printf statements, to tell `print >
// file` from a comparison, and the commands of system(), `| getline` and
// `print |`.
class AwkReader {
 public:
  explicit AwkReader(std::string_view s) : s_(s) {}

  ScriptEffects run() {
    tokenize();
    analyse();
    return std::move(out_);
  }

 private:
  enum class Kind { string, ident, number, regex, punct };
  struct Token {
    Kind kind;
    std::string text;
  };

  bool operand_ends() const {
    if (tokens_.empty()) return false;
    const Token& t = tokens_.back();
    if (t.kind == Kind::ident) {
      return t.text != "print" && t.text != "printf" && t.text != "return" && t.text != "in";
    }
    return t.kind != Kind::punct || t.text == ")" || t.text == "]" || t.text == "$";
  }

  void tokenize() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      const char next = i_ + 1 < s_.size() ? s_[i_ + 1] : '\0';
      if (is_space(c) || (c == '\\' && next == '\n')) {
        i_ += c == '\\' ? 2 : 1;
      } else if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == '"') {
        tokens_.push_back({Kind::string, read_string()});
      } else if (c == '/' && !operand_ends()) {
        ++i_;
        read_regex();
        tokens_.push_back({Kind::regex, ""});
      } else if (is_ident_start(c)) {
        const std::size_t begin = i_;
        while (i_ < s_.size() && is_ident(s_[i_])) ++i_;
        tokens_.push_back({Kind::ident, std::string(s_.substr(begin, i_ - begin))});
      } else if (is_digit(c) || c == '.') {
        while (i_ < s_.size() &&
               (std::isalnum(static_cast<unsigned char>(s_[i_])) != 0 || s_[i_] == '.')) {
          ++i_;
        }
        tokens_.push_back({Kind::number, ""});
      } else {
        std::string text(1, c);
        if ((c == '|' && (next == '|' || next == '&')) || (c == '>' && next == '>') ||
            (c == '&' && next == '&')) {
          text += next;
        }
        i_ += text.size();
        tokens_.push_back({Kind::punct, text});
      }
    }
  }

  std::string read_string() {
    std::string text;
    ++i_;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) {
        const char e = s_[i_ + 1];
        text += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        i_ += 2;
        continue;
      }
      text += s_[i_++];
    }
    if (i_ >= s_.size()) out_.unknown.push_back("the awk program has an unterminated string");
    ++i_;
    return text;
  }

  void read_regex() {
    bool bracket = false;
    while (i_ < s_.size()) {
      const char c = s_[i_++];
      if (c == '\\') {
        ++i_;
      } else if (c == '[') {
        bracket = true;
      } else if (c == ']') {
        bracket = false;
      } else if (c == '/' && !bracket) {
        return;
      } else if (c == '\n') {
        break;
      }
    }
    out_.unknown.push_back("the awk program has an unterminated regular expression");
  }

  const Token* at(std::size_t k) const { return k < tokens_.size() ? &tokens_[k] : nullptr; }
  bool is(std::size_t k, Kind kind, std::string_view text = {}) const {
    const Token* t = at(k);
    return t != nullptr && t->kind == kind && (text.empty() || t->text == text);
  }
  // A token that ends a print statement's redirection target.
  bool ends_target(std::size_t k) const {
    const Token* t = at(k);
    return t == nullptr || (t->kind == Kind::punct && (t->text == ";" || t->text == "\n" ||
                                                       t->text == "}" || t->text == ")"));
  }
  bool ends_operand(std::size_t k) const {
    const Token* t = at(k);
    return t != nullptr && (t->kind == Kind::string || t->kind == Kind::number ||
                            t->kind == Kind::ident || (t->kind == Kind::punct && t->text == ")"));
  }

  // The string at k alone (not part of a concatenation after it).
  const std::string* target(std::size_t k) const {
    return is(k, Kind::string) && ends_target(k + 1) ? &tokens_[k].text : nullptr;
  }

  void file(OpKind kind, const std::string* name, const char* what) {
    if (name == nullptr) {
      out_.unknown.push_back(std::string("awk ") + what + " a file it computes");
      out_.files.emplace_back(kind, "");
    } else if (name->starts_with("/inet")) {
      out_.runs_unknown = "awk opens a network connection (" + *name + ")";
    } else if (!is_special_file(*name)) {
      out_.files.emplace_back(kind, *name);
    }
  }

  void runs(const std::string* command, const char* what) {
    if (command == nullptr) {
      out_.runs_unknown = std::string("awk ") + what + " a command it computes";
    } else {
      out_.commands.push_back(*command);
    }
  }

  void analyse() {
    int depth = 0;
    int print_depth = -1;  // inside a print/printf statement at this depth
    for (std::size_t k = 0; k < tokens_.size(); ++k) {
      const Token& t = tokens_[k];
      if (t.kind == Kind::ident) {
        if (t.text == "print" || t.text == "printf") {
          print_depth = depth;
        } else if (t.text == "system") {
          const bool literal =
              is(k + 1, Kind::punct, "(") && is(k + 2, Kind::string) && is(k + 3, Kind::punct, ")");
          runs(literal ? &tokens_[k + 2].text : nullptr, "runs (system())");
        } else if (t.text == "ARGV" || t.text == "ARGC") {
          out_.unknown.push_back("the awk program uses " + t.text +
                                 " (the files it reads may change)");
          out_.files.emplace_back(OpKind::read, "");
        }
        continue;
      }
      if (t.kind != Kind::punct) continue;
      const std::string& p = t.text;
      if (p == "(") {
        ++depth;
      } else if (p == ")") {
        --depth;
      } else if (p == ";" || p == "\n" || p == "{" || p == "}") {
        print_depth = -1;
      } else if (p == "@") {
        out_.runs_unknown = "awk's @ directives (@load, @include) and indirect calls";
      } else if (p == "|" || p == "|&") {
        if (is(k + 1, Kind::ident, "getline")) {
          // "cmd" | getline: the command is the string alone before the pipe.
          const bool alone = is(k - 1, Kind::string) && (k < 2 || !ends_operand(k - 2));
          runs(k >= 1 && alone ? &tokens_[k - 1].text : nullptr, "reads from");
        } else if (print_depth == depth) {
          runs(target(k + 1), "prints to");
        } else {
          out_.runs_unknown = "awk pipes to or from a command it computes";
        }
      } else if ((p == ">" || p == ">>") && print_depth == depth) {
        file(OpKind::write, target(k + 1), "writes");
      } else if (p == "<" && ((k >= 1 && is(k - 1, Kind::ident, "getline")) ||
                              (k >= 2 && is(k - 2, Kind::ident, "getline")) ||
                              (k >= 3 && is(k - 3, Kind::ident, "getline")))) {
        file(OpKind::read, target(k + 1), "reads");
      }
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::vector<Token> tokens_;
  ScriptEffects out_;
};

}  // namespace

ScriptEffects sed_script_effects(std::string_view script) { return SedReader(script).run(); }

ScriptEffects awk_program_effects(std::string_view program) { return AwkReader(program).run(); }

ScriptEffects jq_filter_effects(std::string_view filter) {
  ScriptEffects out;
  // jq reads files only through modules: import, include, and modulemeta
  // (which reads a module's metadata). Strings are not skipped: a string
  // interpolation \(...) holds code.
  for (std::size_t i = 0; i < filter.size();) {
    if (!is_ident_start(filter[i])) {
      ++i;
      continue;
    }
    const std::size_t begin = i;
    while (i < filter.size() && is_ident(filter[i])) ++i;
    const std::string_view word = filter.substr(begin, i - begin);
    if ((begin == 0 || filter[begin - 1] != '$') &&
        (word == "import" || word == "include" || word == "modulemeta" ||
         word == "get_search_list")) {
      out.unknown.push_back("the jq filter uses " + std::string(word) +
                            ", which reads modules from the library path");
    }
  }
  return out;
}

}  // namespace holdfast::gatekeeper::shell::detail
