#include "launcher/gatekeeper/shell_lexer.hpp"

#include <cctype>

namespace holdfast::gatekeeper::shell {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool is_operator_char(char c) {
  return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>' ||
         c == '\n';
}
bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

struct PendingHeredoc {
  std::string delimiter;
  bool strip_tabs = false;
  bool expands = true;  // unquoted delimiter: the body undergoes expansions
};

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  LexResult run() {
    while (true) {
      while (i_ < s_.size() && is_blank(s_[i_])) ++i_;
      if (i_ >= s_.size()) break;
      const char c = s_[i_];
      if (c == '\\' && peek(1) == '\n') {
        i_ += 2;
      } else if (c == '#' && !in_word_) {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == '\n') {
        finish();
        ++i_;
        read_heredoc_bodies();
      } else if ((c == '<' || c == '>') && peek(1) == '(') {
        add_word(read_word());  // process substitution
      } else if (starts_redirect()) {
        read_redirect();
      } else if (is_operator_char(c)) {
        finish();
        ++i_;
        // Two-character operators: && || ;; |& ;&
        if (i_ < s_.size() &&
            (s_[i_] == c || (c == '|' && s_[i_] == '&') || (c == ';' && s_[i_] == '&'))) {
          if (c != '(' && c != ')') ++i_;
        }
      } else {
        add_word(read_word());
      }
    }
    finish();
    if (!heredocs_.empty()) result_.problems.push_back("a here-document is not terminated");
    return std::move(result_);
  }

 private:
  char peek(std::size_t ahead) const { return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0'; }

  void add_word(Word word) {
    if (current_.words.empty() && current_.redirects.empty()) start_ = word_start_;
    end_ = i_;
    current_.words.push_back(std::move(word));
  }

  void finish() {
    if (!current_.words.empty() || !current_.redirects.empty()) {
      current_.source = std::string(s_.substr(start_, end_ - start_));
      result_.commands.push_back(std::move(current_));
    }
    current_ = SimpleCommand{};
  }

  // [n]< [n]> >> >| <> &> &>> >& <& << <<- <<<
  bool starts_redirect() const {
    std::size_t j = i_;
    while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j])) != 0) ++j;
    if (j < s_.size() && (s_[j] == '<' || s_[j] == '>')) return true;
    return j == i_ && s_[i_] == '&' && peek(1) == '>';
  }

  void read_redirect() {
    const std::size_t begin = i_;
    while (std::isdigit(static_cast<unsigned char>(s_[i_])) != 0) ++i_;
    std::string op;
    auto take = [&](std::string_view candidate) {
      if (s_.substr(i_, candidate.size()) == candidate) {
        op = std::string(candidate);
        i_ += candidate.size();
        return true;
      }
      return false;
    };
    take("&>>") || take("&>") || take("<<<") || take("<<-") || take("<<") || take("<>") ||
        take(">>") || take(">|") || take(">&") || take("<&") || take(">") || take("<");
    while (i_ < s_.size() && is_blank(s_[i_])) ++i_;
    Redirect redirect{op, {}};
    if (i_ >= s_.size() || (is_operator_char(s_[i_]) && s_[i_] != '(')) {
      result_.problems.push_back("a redirection without a target");
    } else {
      redirect.target = read_word();
    }
    if (current_.words.empty() && current_.redirects.empty()) start_ = begin;
    end_ = i_;
    if (op == "<<" || op == "<<-") {
      PendingHeredoc doc;
      doc.strip_tabs = op == "<<-";
      for (const auto& part : redirect.target.parts) {
        doc.delimiter += part.value;
        doc.expands = doc.expands && !part.quoted;
      }
      heredocs_.push_back(doc);
    }
    current_.redirects.push_back(std::move(redirect));
  }

  void read_heredoc_bodies() {
    for (const auto& doc : heredocs_) {
      bool terminated = false;
      while (i_ < s_.size()) {
        std::size_t eol = s_.find('\n', i_);
        if (eol == std::string_view::npos) eol = s_.size();
        std::string_view text = s_.substr(i_, eol - i_);
        i_ = eol < s_.size() ? eol + 1 : eol;
        if (doc.strip_tabs) {
          while (!text.empty() && text.front() == '\t') text.remove_prefix(1);
        }
        if (text == doc.delimiter) {
          terminated = true;
          break;
        }
        if (doc.expands && (text.find("$(") != std::string_view::npos ||
                            text.find('`') != std::string_view::npos)) {
          result_.problems.push_back("command substitution inside a here-document");
        }
      }
      if (!terminated) result_.problems.push_back("a here-document is not terminated");
    }
    heredocs_.clear();
  }

  // The body of a construct opened just before i_ and closed by `close`
  // at depth 0, honouring quotes, escapes and nesting. Leaves i_ after it.
  std::string read_balanced(char open, char close) {
    const std::size_t begin = i_;
    int depth = 1;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\\') {
        i_ += 2;
        continue;
      }
      if (c == '\'') {
        const std::size_t end = s_.find('\'', i_ + 1);
        i_ = end == std::string_view::npos ? s_.size() : end + 1;
        continue;
      }
      if (c == '"') {
        ++i_;
        while (i_ < s_.size() && s_[i_] != '"') i_ += s_[i_] == '\\' ? 2 : 1;
        ++i_;
        continue;
      }
      if (c == open) ++depth;
      if (c == close && --depth == 0) {
        std::string body(s_.substr(begin, i_ - begin));
        ++i_;
        return body;
      }
      ++i_;
    }
    i_ = s_.size();
    result_.problems.push_back(std::string("unbalanced '") + open + "'");
    return std::string(s_.substr(begin));
  }

  void append_text(Word& word, std::string_view text, bool quoted) {
    if (!word.parts.empty() && word.parts.back().kind == WordPart::Kind::text &&
        word.parts.back().quoted == quoted) {
      word.parts.back().value += text;
    } else {
      word.parts.push_back({WordPart::Kind::text, std::string(text), quoted});
    }
  }

  std::string read_backticks() {
    std::string body;
    while (i_ < s_.size() && s_[i_] != '`') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;
      body += s_[i_++];
    }
    if (i_ >= s_.size()) {
      result_.problems.push_back("unterminated backquote");
    } else {
      ++i_;
    }
    return body;
  }

  // After a '$' at i_ - 1.
  void read_dollar(Word& word, bool quoted) {
    const char c = peek(0);
    if (c == '(' && peek(1) == '(') {
      i_ += 2;
      const std::string body = read_balanced('(', ')');
      if (i_ < s_.size() && s_[i_] == ')') ++i_;
      word.parts.push_back({WordPart::Kind::arithmetic, body, quoted});
    } else if (c == '[') {
      ++i_;
      word.parts.push_back({WordPart::Kind::arithmetic, read_balanced('[', ']'), quoted});
    } else if (c == '(') {
      ++i_;
      word.parts.push_back({WordPart::Kind::substitution, read_balanced('(', ')'), quoted});
    } else if (c == '{') {
      ++i_;
      const std::string body = read_balanced('{', '}');
      bool simple = !body.empty() && is_name_start(body[0]);
      for (char ch : body) simple = simple && is_name_char(ch);
      if (body.find("$(") != std::string::npos || body.find('`') != std::string::npos) {
        word.parts.push_back({WordPart::Kind::substitution, body, quoted});
      } else {
        word.parts.push_back(simple ? WordPart{WordPart::Kind::variable, body, quoted}
                                    : WordPart{WordPart::Kind::parameter, body, quoted});
      }
    } else if (is_name_start(c)) {
      const std::size_t begin = i_;
      while (i_ < s_.size() && is_name_char(s_[i_])) ++i_;
      word.parts.push_back(
          {WordPart::Kind::variable, std::string(s_.substr(begin, i_ - begin)), quoted});
    } else if (std::isdigit(static_cast<unsigned char>(c)) != 0 ||
               std::string_view("@*#?$!-").find(c) != std::string_view::npos) {
      ++i_;
      word.parts.push_back({WordPart::Kind::variable, "", quoted});
    } else {
      append_text(word, "$", quoted);
    }
  }

  void read_double_quoted(Word& word) {
    while (i_ < s_.size() && s_[i_] != '"') {
      const char c = s_[i_++];
      if (c == '\\' && i_ < s_.size() &&
          std::string_view("$`\"\\\n").find(s_[i_]) != std::string_view::npos) {
        if (s_[i_] != '\n') append_text(word, std::string_view(&s_[i_], 1), true);
        ++i_;
      } else if (c == '$') {
        read_dollar(word, true);
      } else if (c == '`') {
        word.parts.push_back({WordPart::Kind::substitution, read_backticks(), true});
      } else {
        append_text(word, std::string_view(&c, 1), true);
      }
    }
    if (i_ >= s_.size()) {
      result_.problems.push_back("unterminated double quote");
    } else {
      ++i_;
    }
  }

  // $'...': the C escapes bash decodes.
  void read_ansi_c(Word& word) {
    std::string text;
    while (i_ < s_.size() && s_[i_] != '\'') {
      char c = s_[i_++];
      if (c == '\\' && i_ < s_.size()) {
        const char e = s_[i_++];
        switch (e) {
          case 'n':
            c = '\n';
            break;
          case 't':
            c = '\t';
            break;
          case 'r':
            c = '\r';
            break;
          case 'a':
            c = '\a';
            break;
          case 'b':
            c = '\b';
            break;
          case 'e':
          case 'E':
            c = '\x1b';
            break;
          case 'x': {
            int value = 0;
            int digits = 0;
            while (digits < 2 && i_ < s_.size() &&
                   std::isxdigit(static_cast<unsigned char>(s_[i_]))) {
              const char h = s_[i_++];
              value = value * 16 + (std::isdigit(static_cast<unsigned char>(h)) != 0
                                        ? h - '0'
                                        : (std::tolower(static_cast<unsigned char>(h)) - 'a' + 10));
              ++digits;
            }
            c = static_cast<char>(value);
            break;
          }
          default:
            if (e >= '0' && e <= '7') {
              int value = e - '0';
              for (int k = 0; k < 2 && i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '7'; ++k) {
                value = value * 8 + (s_[i_++] - '0');
              }
              c = static_cast<char>(value);
            } else {
              c = e;  // \\ \' \" and anything else: the character itself
            }
        }
      }
      text += c;
    }
    if (i_ >= s_.size()) {
      result_.problems.push_back("unterminated $'...' quote");
    } else {
      ++i_;
    }
    append_text(word, text, true);
  }

  Word read_word() {
    Word word;
    word_start_ = i_;
    in_word_ = true;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (is_blank(c)) break;
      if ((c == '<' || c == '>') && peek(1) == '(') {
        i_ += 2;
        word.parts.push_back({WordPart::Kind::substitution, read_balanced('(', ')'), false});
        continue;
      }
      if (is_operator_char(c)) break;
      ++i_;
      if (c == '\\') {
        if (i_ < s_.size()) {
          if (s_[i_] != '\n') append_text(word, std::string_view(&s_[i_], 1), true);
          ++i_;
        }
      } else if (c == '\'') {
        // No escapes at all inside single quotes: a backslash is literal.
        const std::size_t end = s_.find('\'', i_);
        if (end == std::string_view::npos) {
          result_.problems.push_back("unterminated single quote");
          append_text(word, s_.substr(i_), true);
          i_ = s_.size();
        } else {
          append_text(word, s_.substr(i_, end - i_), true);
          i_ = end + 1;
        }
        if (word.parts.empty()) word.parts.push_back({WordPart::Kind::text, "", true});
      } else if (c == '"') {
        const std::size_t before = word.parts.size();
        read_double_quoted(word);
        if (word.parts.size() == before) append_text(word, "", true);
      } else if (c == '$' && peek(0) == '\'') {
        ++i_;
        read_ansi_c(word);
      } else if (c == '$' && peek(0) == '"') {
        ++i_;
        read_double_quoted(word);
      } else if (c == '$') {
        read_dollar(word, false);
      } else if (c == '`') {
        word.parts.push_back({WordPart::Kind::substitution, read_backticks(), false});
      } else {
        append_text(word, std::string_view(&c, 1), false);
      }
    }
    in_word_ = false;
    word.source = std::string(s_.substr(word_start_, i_ - word_start_));
    return word;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::size_t word_start_ = 0;
  std::size_t start_ = 0;
  std::size_t end_ = 0;
  bool in_word_ = false;
  SimpleCommand current_;
  LexResult result_;
  std::vector<PendingHeredoc> heredocs_;
};

}  // namespace

LexResult lex(std::string_view line) { return Lexer(line).run(); }

}  // namespace holdfast::gatekeeper::shell
