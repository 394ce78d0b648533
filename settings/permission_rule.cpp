#include "settings/permission_rule.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>

namespace holdfast::settings {

namespace {

constexpr std::array<std::string_view, 6> kKnownTools = {"Read", "Edit",  "Write",
                                                         "Bash", "Shell", "WebFetch"};

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool valid_tool_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
}

RuleKind kind_of(std::string_view tool) {
  if (tool == "Read" || tool == "Edit" || tool == "Write") return RuleKind::path;
  if (tool == "Bash") return RuleKind::shell;
  if (tool == "WebFetch") return RuleKind::fetch;
  return RuleKind::other;
}

// A control character would be cut short or reinterpreted by what the rule
// is compared with (C strings, terminals, shell words).
std::optional<std::string> control_character_problem(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "U+%04X", c);
      return std::string("a rule cannot hold control characters (") + code + " at byte " +
             std::to_string(i) + "); remove it";
    }
  }
  return std::nullopt;
}

std::optional<std::string> path_specifier_problem(std::string_view spec) {
  // A variable would be compared literally and never match: a deny rule
  // that silently does nothing. Refuse it instead.
  if (spec.find('$') != std::string_view::npos) {
    return "variables are not expanded in rules; write ~/ for the home directory, / for the "
           "workspace root or // for an absolute path";
  }
  if (spec.size() > 1 && spec[0] == '~' && spec[1] != '/') {
    return "only ~/ (the current user's home) is supported, not ~user";
  }
  return std::nullopt;
}

std::optional<std::string> fetch_specifier_problem(std::string_view spec) {
  constexpr std::string_view prefix = "domain:";
  if (!spec.starts_with(prefix) || spec.size() == prefix.size()) {
    return "a WebFetch specifier is domain:HOST, e.g. WebFetch(domain:example.com)";
  }
  if (spec.substr(prefix.size()).find_first_of("/:@ ") != std::string_view::npos) {
    return "domain: takes a host name only (no scheme, port or path)";
  }
  return std::nullopt;
}

RuleParse refused(std::string problem) { return RuleParse{std::nullopt, std::move(problem)}; }

}  // namespace

RuleParse parse_rule_syntax(std::string_view text) {
  if (auto problem = control_character_problem(text)) return refused(*problem);
  const std::size_t open = text.find('(');
  const std::string_view tool = text.substr(0, open);
  if (tool.empty()) return refused("missing tool name; write Tool or Tool(specifier)");
  if (!std::all_of(tool.begin(), tool.end(), valid_tool_char)) {
    return refused("a tool name has letters, digits, _ - . only; write Tool or Tool(specifier)");
  }
  for (std::string_view known : kKnownTools) {
    if (tool != known && iequals(tool, known)) {
      return refused("tool names are case-sensitive; did you mean " + std::string(known) + "?");
    }
  }
  RuleSyntax rule;
  rule.tool = tool == "Shell" ? "Bash" : std::string(tool);
  rule.kind = kind_of(rule.tool);
  if (open == std::string_view::npos) return RuleParse{std::move(rule), {}};

  // The specifier runs to the ')' that balances the first '('; nothing may
  // follow it.
  int depth = 0;
  std::size_t close = std::string_view::npos;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      ++i;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')' && --depth == 0) {
      close = i;
      break;
    }
  }
  if (close == std::string_view::npos) {
    return refused("unbalanced parentheses; write Tool(specifier) with a closing )");
  }
  if (close + 1 != text.size()) return refused("text after the closing ); write Tool(specifier)");
  rule.specifier = std::string(text.substr(open + 1, close - open - 1));
  if (rule.specifier.find_first_not_of(" \t") == std::string::npos) {
    return refused("empty specifier; write " + std::string(tool) + " alone to match every call");
  }
  rule.has_specifier = true;
  std::optional<std::string> problem;
  if (rule.kind == RuleKind::path) problem = path_specifier_problem(rule.specifier);
  if (rule.kind == RuleKind::fetch) problem = fetch_specifier_problem(rule.specifier);
  if (problem) return refused(*problem);
  return RuleParse{std::move(rule), {}};
}

std::string printable_rule(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", byte);
      out += code;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace holdfast::settings
