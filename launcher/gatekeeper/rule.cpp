#include "launcher/gatekeeper/rule.hpp"

namespace holdfast::gatekeeper {

RuleError::RuleError(std::string rule, const std::string& problem)
    : std::runtime_error("permission rule \"" + settings::printable_rule(rule) + "\": " + problem),
      rule_(std::move(rule)) {}

Rule parse_rule(const std::string& text) {
  settings::RuleParse parsed = settings::parse_rule_syntax(text);
  if (!parsed.rule) throw RuleError(text, parsed.problem);
  settings::RuleSyntax& syntax = *parsed.rule;
  return Rule{text, std::move(syntax.tool), std::move(syntax.specifier), syntax.has_specifier,
              syntax.kind};
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
