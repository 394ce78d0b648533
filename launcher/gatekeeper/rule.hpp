// Permission rules as written in settings: `Tool` or `Tool(specifier)`.
//
// Parsing is strict because a rule that does not parse must never be
// dropped silently: an ignored deny rule is an open door. Every error names
// the rule and says how to write it. The grammar is the settings format's
// (settings/permission_rule.hpp), so a rule that would not parse here is
// refused when it is saved.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "settings/permission_rule.hpp"

namespace holdfast::gatekeeper {

// Which specifier grammar a rule's tool uses (path, shell, fetch, other).
using RuleKind = settings::RuleKind;

struct Rule {
  std::string text;       // as written in settings, for messages
  std::string tool;       // canonical: "Shell" is stored as "Bash"
  std::string specifier;  // empty when has_specifier is false
  bool has_specifier = false;
  RuleKind kind = RuleKind::other;
};

// A rule that cannot be understood. what() names the rule and the fix.
class RuleError : public std::runtime_error {
 public:
  RuleError(std::string rule, const std::string& problem);
  const std::string& rule() const { return rule_; }

 private:
  std::string rule_;
};

// Throws RuleError.
Rule parse_rule(const std::string& text);

// The allow / ask / deny lists of one source (the session given to the API,
// or the persistent settings).
struct RuleSet {
  std::vector<Rule> allow;
  std::vector<Rule> ask;
  std::vector<Rule> deny;
};

// Reads permissions.allow / ask / deny from an effective settings document
// (the whole document, not the "permissions" object). Absent lists are
// empty; a list entry that is not a string or does not parse throws
// RuleError naming it.
RuleSet rules_from_settings(const nlohmann::json& settings);

}  // namespace holdfast::gatekeeper
