#include "launcher/gatekeeper/shell_words.hpp"

#include <algorithm>
#include <cctype>

namespace holdfast::gatekeeper::shell::detail {

namespace {

// A shell variable name: letters, digits and '_', not starting with a digit.
bool is_name(std::string_view text) {
  return !text.empty() && std::isdigit(static_cast<unsigned char>(text[0])) == 0 &&
         std::all_of(text.begin(), text.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
         });
}

}  // namespace

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
          if (eq != std::string_view::npos && is_name(value.substr(0, eq)) &&
              (eq + 2 == value.size() || value[eq + 2] == '/')) {
            e.text += value.substr(0, eq + 1);
            value.remove_prefix(eq + 1);
          }
        }
        if (k == 0 && !part.quoted && value.starts_with('~')) {
          const auto slash = value.find('/');
          const std::string_view user =
              value.substr(1, slash == std::string_view::npos ? std::string_view::npos : slash - 1);
          if (user.empty() && !home.empty()) {
            e.text += home;
            value.remove_prefix(1);
          } else if (user.empty()) {
            e.dynamic = true;
            if (e.why.empty()) e.why = "~ (HOME was reassigned)";
          } else {
            e.dynamic = true;
            if (e.why.empty()) e.why = "~" + std::string(user);
          }
        }
        e.text += value;
        if (!part.quoted && value.find_first_of("*?[") != std::string_view::npos) {
          e.pattern = true;
        }
        break;
      }
      case WordPart::Kind::variable:
        if (part.value == "HOME" && !home.empty()) {
          e.text += home;
        } else if (part.value == "PWD" && !pwd.empty()) {
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
      case WordPart::Kind::arithmetic:
        e.dynamic = true;
        if (e.why.empty()) e.why = "$((" + part.value + "))";
        if (!is_plain_arithmetic(part.value) && e.arithmetic.empty()) e.arithmetic = part.value;
        for (std::string& body : substitutions_in(part.value)) {
          e.substitutions.push_back(std::move(body));
        }
        e.text += "$((" + part.value + "))";
        break;
      case WordPart::Kind::parameter: {
        e.dynamic = true;
        e.splits = e.splits || !part.quoted;
        if (e.why.empty()) e.why = "${" + part.value + "}";
        // ${a[sub]} and ${x:offset:length} evaluate arithmetic.
        const std::string_view body = part.value;
        const auto bracket = body.find('[');
        const auto colon = body.find(':');
        if (bracket != std::string_view::npos) {
          const auto close = body.find(']', bracket);
          const std::string_view sub = body.substr(bracket + 1, close - bracket - 1);
          if (sub != "@" && sub != "*" && !is_plain_arithmetic(sub))
            e.arithmetic = std::string(sub);
        }
        if (colon != std::string_view::npos && colon + 1 < body.size() &&
            std::string_view("-=?+").find(body[colon + 1]) == std::string_view::npos &&
            !is_plain_arithmetic(body.substr(colon + 1))) {
          e.arithmetic = std::string(body.substr(colon + 1));
        }
        e.text += "${" + part.value + "}";
        break;
      }
    }
  }
  return e;
}

bool is_plain_arithmetic(std::string_view expression) {
  return expression.find_first_not_of("0123456789 \t+-*/%()<>=!&|^~?:,") == std::string_view::npos;
}

std::vector<std::string> substitutions_in(std::string_view text) {
  std::vector<std::string> bodies;
  if (text.find("$(") == std::string_view::npos && text.find('`') == std::string_view::npos &&
      text.find("<(") == std::string_view::npos && text.find(">(") == std::string_view::npos) {
    return bodies;
  }
  const LexResult lexed = lex(text);
  auto collect = [&](const Word& word) {
    for (const WordPart& part : word.parts) {
      if (part.kind == WordPart::Kind::substitution) bodies.push_back(part.value);
      if (part.kind == WordPart::Kind::arithmetic || part.kind == WordPart::Kind::parameter) {
        for (std::string& inner : substitutions_in(part.value)) bodies.push_back(std::move(inner));
      }
    }
  };
  for (const SimpleCommand& command : lexed.commands) {
    for (const Word& word : command.words) collect(word);
    for (const Redirect& redirect : command.redirects) collect(redirect.target);
  }
  if (!lexed.problems.empty() && bodies.empty()) bodies.emplace_back(text);
  return bodies;
}

namespace {

// Skips a quoted or expansion construct starting at i (', ", \, $(, ${,
// `); returns the index after it, or i when there is none.
std::size_t skip_quoted(std::string_view s, std::size_t i) {
  const char c = s[i];
  if (c == '\\') return std::min(i + 2, s.size());
  if (c == '\'') {
    const auto end = s.find('\'', i + 1);
    return end == std::string_view::npos ? s.size() : end + 1;
  }
  if (c == '"' || c == '`') {
    std::size_t j = i + 1;
    while (j < s.size() && s[j] != c) j += s[j] == '\\' ? 2 : 1;
    return std::min(j + 1, s.size());
  }
  if (c == '$' && i + 1 < s.size() && (s[i + 1] == '(' || s[i + 1] == '{')) {
    const char open = s[i + 1];
    const char close = open == '(' ? ')' : '}';
    int depth = 0;
    std::size_t j = i + 1;
    for (; j < s.size(); ++j) {
      if (s[j] == '\'' || s[j] == '"' || s[j] == '\\') {
        j = skip_quoted(s, j) - 1;
        continue;
      }
      if (s[j] == open) ++depth;
      if (s[j] == close && --depth == 0) return j + 1;
    }
    return s.size();
  }
  return i;
}

// The sequence {a..b[..step]} of numbers or single characters.
bool sequence(std::string_view body, std::vector<std::string>& out) {
  const auto dots = body.find("..");
  if (dots == std::string_view::npos) return false;
  std::string_view from = body.substr(0, dots);
  std::string_view rest = body.substr(dots + 2);
  std::string_view step_text = "1";
  if (const auto more = rest.find(".."); more != std::string_view::npos) {
    step_text = rest.substr(more + 2);
    rest = rest.substr(0, more);
  }
  auto number = [](std::string_view t, long& v) {
    if (t.empty() || t.size() > 9) return false;
    std::size_t k = t[0] == '-' || t[0] == '+' ? 1 : 0;
    if (k == t.size()) return false;
    for (std::size_t j = k; j < t.size(); ++j) {
      if (std::isdigit(static_cast<unsigned char>(t[j])) == 0) return false;
    }
    v = std::stol(std::string(t));
    return true;
  };
  long a = 0;
  long b = 0;
  long step = 1;
  if (!number(step_text, step)) return false;
  if (step == 0) step = 1;
  if (step < 0) step = -step;
  if (number(from, a) && number(rest, b)) {
    const std::size_t width =
        (from.size() > 1 && from[0] == '0') || (rest.size() > 1 && rest[0] == '0')
            ? std::max(from.size(), rest.size())
            : 0;
    for (long v = a; a <= b ? v <= b : v >= b; v += a <= b ? step : -step) {
      std::string t = std::to_string(v < 0 ? -v : v);
      while (t.size() + (v < 0 ? 1 : 0) < width) t.insert(0, "0");
      out.push_back(v < 0 ? "-" + t : t);
      if (out.size() > 100000) break;
    }
    return true;
  }
  if (from.size() == 1 && rest.size() == 1 && std::isalpha(static_cast<unsigned char>(from[0])) &&
      std::isalpha(static_cast<unsigned char>(rest[0]))) {
    for (int v = from[0]; from[0] <= rest[0] ? v <= rest[0] : v >= rest[0];
         v += from[0] <= rest[0] ? static_cast<int>(step) : -static_cast<int>(step)) {
      out.emplace_back(1, static_cast<char>(v));
    }
    return true;
  }
  return false;
}

void brace_expand_into(const std::string& s, std::size_t limit, bool& over,
                       std::vector<std::string>& out) {
  if (over) return;
  for (std::size_t a = 0; a < s.size(); ++a) {
    const std::size_t skipped = skip_quoted(s, a);
    if (skipped != a) {
      a = skipped - 1;
      continue;
    }
    if (s[a] != '{') continue;
    // The matching brace, and the top-level commas inside.
    std::vector<std::size_t> commas;
    int depth = 0;
    std::size_t b = a;
    for (; b < s.size(); ++b) {
      const std::size_t q = skip_quoted(s, b);
      if (q != b) {
        b = q - 1;
        continue;
      }
      if (s[b] == '{') ++depth;
      if (s[b] == '}' && --depth == 0) break;
      if (s[b] == ',' && depth == 1) commas.push_back(b);
    }
    if (b >= s.size()) return out.push_back(s);
    std::vector<std::string> alternatives;
    if (!commas.empty()) {
      std::size_t begin = a + 1;
      for (std::size_t comma : commas) {
        alternatives.push_back(s.substr(begin, comma - begin));
        begin = comma + 1;
      }
      alternatives.push_back(s.substr(begin, b - begin));
    } else if (!sequence(std::string_view(s).substr(a + 1, b - a - 1), alternatives)) {
      continue;  // {x} and the like: no brace expression here
    }
    const std::string before = s.substr(0, a);
    const std::string after = s.substr(b + 1);
    for (const std::string& alternative : alternatives) {
      brace_expand_into(before + alternative + after, limit, over, out);
      if (out.size() > limit) {
        over = true;
        return;
      }
    }
    return;
  }
  out.push_back(s);
}

}  // namespace

std::vector<std::string> brace_expand(std::string_view source, std::size_t limit, bool& over) {
  std::vector<std::string> out;
  over = false;
  brace_expand_into(std::string(source), limit, over, out);
  return out;
}

bool is_assignment(const Word& word) {
  if (word.parts.empty() || word.parts[0].kind != WordPart::Kind::text || word.parts[0].quoted) {
    return false;
  }
  const std::string& t = word.parts[0].value;
  const auto eq = t.find('=');
  return eq != std::string::npos && is_name(std::string_view(t).substr(0, eq));
}

std::string_view basename_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_device_without_effect(std::string_view path) {
  return path == "/dev/null" || path == "/dev/stdin" || path == "/dev/stdout" ||
         path == "/dev/stderr" || path == "/dev/tty" || path.starts_with("/dev/fd/");
}

}  // namespace holdfast::gatekeeper::shell::detail
