#include "launcher/sandbox/git_config.hpp"

#include <algorithm>
#include <cctype>

#include "launcher/sandbox/paths.hpp"

namespace holdfast::sandbox {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
bool is_key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-'; }
char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// A cursor over the text; "\r\n" reads as "\n".
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}
  bool done() const { return at_ >= text_.size(); }
  char peek() const {
    if (done()) return '\n';
    if (text_[at_] == '\r' && at_ + 1 < text_.size() && text_[at_ + 1] == '\n') return '\n';
    return text_[at_];
  }
  char next() {
    const char c = peek();
    if (!done()) at_ += (text_[at_] == '\r' && c == '\n') ? 2 : 1;
    return c;
  }
  void skip_line() {
    while (!done() && next() != '\n') {
    }
  }
  void skip_blanks() {
    while (!done() && is_space(peek())) next();
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
};

// "[name]", "[name \"sub\"]" or "[name.sub]", the '[' already read. False
// when malformed (the rest of the line is then skipped).
bool parse_section(Reader& in, std::string& section, std::string& subsection) {
  section.clear();
  subsection.clear();
  for (;;) {
    const char c = in.next();
    if (c == ']') return !section.empty();
    if (c == '\n') return false;
    if (is_space(c)) break;
    if (c == '.') {
      // Legacy "[section.subsection]": the subsection is lower-cased.
      for (;;) {
        const char s = in.next();
        if (s == ']') return !section.empty() && !subsection.empty();
        if (s == '\n' || !(is_key_char(s) || s == '.')) return false;
        subsection += lower(s);
      }
    }
    if (!is_key_char(c)) return false;
    section += lower(c);
  }
  in.skip_blanks();
  if (in.next() != '"') return false;
  for (;;) {
    char c = in.next();
    if (c == '\n') return false;
    if (c == '"') break;
    if (c == '\\') {
      c = in.next();
      if (c == '\n') return false;
    }
    subsection += c;
  }
  return in.next() == ']';
}

// The value after '=', up to the end of the line (continuations joined).
// nullopt for an unterminated quote or an unknown escape.
std::optional<std::string> parse_value(Reader& in) {
  std::string value;
  bool quote = false;
  bool comment = false;
  std::size_t trim = 0;
  for (;;) {
    char c = in.next();
    if (c == '\n') {
      if (quote) return std::nullopt;
      if (trim != 0) value.resize(trim);
      return value;
    }
    if (comment) continue;
    if (is_space(c) && !quote) {
      if (trim == 0) trim = value.size();
      if (!value.empty()) value += c;
      continue;
    }
    if (!quote && (c == ';' || c == '#')) {
      comment = true;
      continue;
    }
    trim = 0;
    if (c == '\\') {
      c = in.next();
      switch (c) {
        case '\n':
          continue;
        case 't':
          c = '\t';
          break;
        case 'b':
          c = '\b';
          break;
        case 'n':
          c = '\n';
          break;
        case '\\':
        case '"':
          break;
        default:
          in.skip_line();
          return std::nullopt;
      }
      value += c;
      continue;
    }
    if (c == '"') {
      quote = !quote;
      continue;
    }
    value += c;
  }
}

}  // namespace

std::vector<GitConfigEntry> parse_git_config(std::string_view text) {
  std::vector<GitConfigEntry> entries;
  Reader in(text);
  std::string section;
  std::string subsection;
  bool in_section = false;
  while (!in.done()) {
    in.skip_blanks();
    const char c = in.peek();
    if (c == '\n') {
      in.next();
      continue;
    }
    if (c == '#' || c == ';') {
      in.skip_line();
      continue;
    }
    if (c == '[') {
      in.next();
      in_section = parse_section(in, section, subsection);
      if (!in_section) in.skip_line();
      continue;  // a variable may follow on the same line
    }
    if (!std::isalpha(static_cast<unsigned char>(c)) || !in_section) {
      in.skip_line();
      continue;
    }
    std::string key;
    while (is_key_char(in.peek()) && !in.done()) key += lower(in.next());
    in.skip_blanks();
    const char after = in.peek();
    if (after == '\n' || after == '#' || after == ';') {
      in.skip_line();
      entries.push_back({section, subsection, key, ""});
      continue;
    }
    if (after != '=') {
      in.skip_line();
      continue;
    }
    in.next();
    in.skip_blanks();
    if (auto value = parse_value(in)) entries.push_back({section, subsection, key, *value});
  }
  return entries;
}

namespace {

bool is_boolean(std::string_view value) {
  std::string v(value);
  std::transform(v.begin(), v.end(), v.begin(), lower);
  return v.empty() || v == "true" || v == "false" || v == "yes" || v == "no" || v == "on" ||
         v == "off" || v == "1" || v == "0";
}

// The words of a command line (spaces separate; quotes group).
std::vector<std::string> command_words(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  char quote = 0;
  bool in_word = false;
  for (const char c : line) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
      continue;
    }
    if (is_space(c) || c == '\n' || c == ';' || c == '&' || c == '|') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    word += c;
    in_word = true;
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

// Is section.[sub.]key a command git runs?
bool runs_program(const GitConfigEntry& e) {
  const auto& s = e.section;
  const auto& k = e.key;
  const bool sub = !e.subsection.empty();
  if (s == "core") {
    return !sub && ((k == "fsmonitor" && !is_boolean(e.value)) || k == "sshcommand" ||
                    k == "pager" || k == "editor" || k == "askpass" || k == "gitproxy");
  }
  if (s == "sequence") return !sub && k == "editor";
  if (s == "gpg") return k == "program";
  if (s == "diff") return (!sub && k == "external") || (sub && (k == "command" || k == "textconv"));
  if (s == "filter") return sub && (k == "clean" || k == "smudge" || k == "process");
  if (s == "merge") return sub && k == "driver";
  if (s == "credential") return k == "helper";
  if (s == "pager") return !sub;
  if (s == "alias") return !sub && e.value.starts_with("!");
  if (s == "submodule") return sub && k == "update" && e.value.starts_with("!");
  if (s == "remote") return sub && (k == "uploadpack" || k == "receivepack");
  if (s == "difftool" || s == "mergetool" || s == "man" || s == "browser") {
    return sub && (k == "cmd" || k == "path");
  }
  return false;
}

std::string setting_name(const GitConfigEntry& e, std::string_view key) {
  return e.section + (e.subsection.empty() ? "" : "." + e.subsection) + "." + std::string(key);
}

}  // namespace

std::vector<GitPathSetting> git_path_settings(const std::vector<GitConfigEntry>& entries) {
  std::vector<GitPathSetting> out;
  for (const auto& e : entries) {
    if (e.value.empty()) continue;
    if ((e.section == "include" && e.subsection.empty() && e.key == "path") ||
        (e.section == "includeif" && !e.subsection.empty() && e.key == "path")) {
      out.push_back({setting_name(e, "path"), GitPathKind::include, e.value, true});
    } else if (e.section == "core" && e.subsection.empty() && e.key == "hookspath") {
      out.push_back({"core.hooksPath", GitPathKind::hooks, e.value, true});
    } else if (e.section == "core" && e.subsection.empty() && e.key == "worktree") {
      out.push_back({"core.worktree", GitPathKind::worktree, e.value, true});
    } else if (runs_program(e)) {
      std::string_view line = e.value;
      if (line.starts_with("!")) line.remove_prefix(1);
      bool first = true;
      for (auto& word : command_words(line)) {
        if (word.find('/') != std::string::npos) {
          out.push_back({setting_name(e, e.key), GitPathKind::program, std::move(word), first});
        }
        first = false;
      }
    }
  }
  return out;
}

std::optional<std::string> resolve_git_path(std::string_view written, const std::string& base,
                                            const std::string& home) {
  if (written.starts_with(":(optional)")) written.remove_prefix(11);
  if (written.empty() || written.starts_with("%(prefix)")) return std::nullopt;
  if (written.starts_with("~/") || written == "~") {
    if (home.empty()) return std::nullopt;
    return join_path(home, written.substr(1));
  }
  if (written.starts_with("~")) return std::nullopt;
  if (written.starts_with("/")) return join_path("/", written);
  if (base.empty()) return std::nullopt;
  return join_path(base, written);
}

}  // namespace holdfast::sandbox
