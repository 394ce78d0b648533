#include "launcher/gatekeeper/rule.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace holdfast::gatekeeper {

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

RuleKind kind_of(const std::string& tool) {
  if (tool == "Read" || tool == "Edit" || tool == "Write") return RuleKind::path;
  if (tool == "Bash") return RuleKind::shell;
  if (tool == "WebFetch") return RuleKind::fetch;
  return RuleKind::other;
}

void check_path_specifier(const std::string& text, const std::string& spec) {
  // A variable would be compared literally and never match: a deny rule
  // that silently does nothing. Refuse it instead.
  if (spec.find('$') != std::string::npos) {
    throw RuleError(text,
                    "variables are not expanded in rules; write ~/ for the home directory, "
                    "/ for the workspace root or // for an absolute path");
  }
  if (spec.size() > 1 && spec[0] == '~' && spec[1] != '/') {
    throw RuleError(text, "only ~/ (the current user's home) is supported, not ~user");
  }
}

void check_fetch_specifier(const std::string& text, const std::string& spec) {
  constexpr std::string_view prefix = "domain:";
  if (!spec.starts_with(prefix) || spec.size() == prefix.size()) {
    throw RuleError(text, "a WebFetch specifier is domain:HOST, e.g. WebFetch(domain:example.com)");
  }
  const std::string_view host = std::string_view(spec).substr(prefix.size());
  if (host.find_first_of("/:@ ") != std::string_view::npos) {
    throw RuleError(text, "domain: takes a host name only (no scheme, port or path)");
  }
}

}  // namespace

RuleError::RuleError(std::string rule, const std::string& problem)
    : std::runtime_error("permission rule \"" + rule + "\": " + problem), rule_(std::move(rule)) {}

Rule parse_rule(const std::string& text) {
  Rule rule;
  rule.text = text;
  const std::size_t open = text.find('(');
  const std::string tool = text.substr(0, open);
  if (tool.empty()) throw RuleError(text, "missing tool name; write Tool or Tool(specifier)");
  if (!std::all_of(tool.begin(), tool.end(), valid_tool_char)) {
    throw RuleError(text,
                    "a tool name has letters, digits, _ - . only; write Tool or "
                    "Tool(specifier)");
  }
  for (std::string_view known : kKnownTools) {
    if (tool != known && iequals(tool, known)) {
      throw RuleError(text,
                      "tool names are case-sensitive; did you mean " + std::string(known) + "?");
    }
  }
  rule.tool = tool == "Shell" ? "Bash" : tool;
  rule.kind = kind_of(rule.tool);
  if (open == std::string::npos) return rule;

  // The specifier runs to the ')' that balances the first '('; nothing may
  // follow it.
  int depth = 0;
  std::size_t close = std::string::npos;
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
  if (close == std::string::npos) {
    throw RuleError(text, "unbalanced parentheses; write Tool(specifier) with a closing )");
  }
  if (close + 1 != text.size()) {
    throw RuleError(text, "text after the closing ); write Tool(specifier)");
  }
  rule.specifier = text.substr(open + 1, close - open - 1);
  const auto first = rule.specifier.find_first_not_of(" \t");
  if (first == std::string::npos) {
    throw RuleError(text, "empty specifier; write " + tool + " alone to match every call");
  }
  rule.has_specifier = true;
  if (rule.kind == RuleKind::path) check_path_specifier(text, rule.specifier);
  if (rule.kind == RuleKind::fetch) check_fetch_specifier(text, rule.specifier);
  return rule;
}

RuleSet rules_from_settings(const nlohmann::json& settings) {
  RuleSet set;
  if (!settings.is_object()) return set;
  const auto permissions = settings.find("permissions");
  if (permissions == settings.end()) return set;
  if (!permissions->is_object()) {
    throw RuleError("permissions", "must be an object with allow / ask / deny lists");
  }
  const std::pair<const char*, std::vector<Rule>*> lists[] = {
      {"allow", &set.allow}, {"ask", &set.ask}, {"deny", &set.deny}};
  for (const auto& [name, out] : lists) {
    const auto list = permissions->find(name);
    if (list == permissions->end()) continue;
    if (!list->is_array()) {
      throw RuleError(std::string("permissions.") + name, "must be a list of rule strings");
    }
    for (const auto& entry : *list) {
      if (!entry.is_string()) {
        throw RuleError(entry.dump(),
                        std::string("in permissions.") + name + ": every rule must be a string");
      }
      out->push_back(parse_rule(entry.get<std::string>()));
    }
  }
  return set;
}

}  // namespace holdfast::gatekeeper
