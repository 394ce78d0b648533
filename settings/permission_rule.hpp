// The grammar of a permission rule as written in settings
// (permissions.allow / ask / deny): `Tool` or `Tool(specifier)`.
//
// It lives here, below the gatekeeper that judges with rules, because it is
// part of the settings format: a rule that does not parse is refused where
// it is saved (`settings set`, the service's PUT and PATCH, the library's
// Store) and reported by `settings validate`, like any other value of the
// wrong shape, instead of being saved and then stopping every `check`. The
// schema names it (`"format": "holdfast-permission-rule"`), the schema
// validator applies it, and the gatekeeper's parse_rule() is built on it,
// so there is one grammar.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace holdfast::settings {

// Which specifier grammar a rule's tool uses.
enum class RuleKind {
  path,   // Read, Edit, Write: gitignore-style path globs
  shell,  // Bash (alias Shell): command prefixes on word boundaries
  fetch,  // WebFetch: domain:example.com
  other,  // any other tool name, verbatim; the specifier globs the argument
};

struct RuleSyntax {
  std::string tool;       // canonical: "Shell" is read as "Bash"
  std::string specifier;  // empty when has_specifier is false
  bool has_specifier = false;
  RuleKind kind = RuleKind::other;
};

// Either the rule's parts or what is wrong with it and how to write it
// (`problem`, without the rule's text: the caller names the rule).
struct RuleParse {
  std::optional<RuleSyntax> rule;
  std::string problem;
};

RuleParse parse_rule_syntax(std::string_view text);

// The rule as text that is safe to print: control characters as \u00XX.
std::string printable_rule(std::string_view text);

}  // namespace holdfast::settings
