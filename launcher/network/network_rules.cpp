#include "launcher/network/network_rules.hpp"

#include <string>

namespace holdfast::network {
namespace network_rules_parse {
namespace {

std::vector<HostRule> parse_list(const nlohmann::json& list, RuleList kind, std::string_view origin,
                                 const std::string& where) {
  if (!list.is_array()) {
    throw InvalidHostRule(where + ": must be an array of host entries (for example " +
                          "[\"github.com\", \"**.npmjs.org\"])");
  }
  std::vector<HostRule> rules;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (!list[i].is_string()) {
      throw InvalidHostRule(at + ": must be a string such as \"github.com\", not " +
                            std::string(list[i].type_name()));
    }
    try {
      HostRule rule = parse_host_rule(list[i].get<std::string>(), kind);
      rule.origin = origin;
      rules.push_back(std::move(rule));
    } catch (const InvalidHostRule& e) {
      throw InvalidHostRule(at + ": " + e.what());
    }
  }
  return rules;
}

}  // namespace
}  // namespace network_rules_parse

NetworkRules parse_network_rules(const nlohmann::json& value, std::string_view origin,
                                 std::string_view where) {
  const std::string at(where);
  if (!value.is_object()) {
    throw InvalidHostRule(at + ": must be \"open\", \"closed\" or an object with \"allow\" " +
                          "and \"deny\" lists");
  }
  NetworkRules rules;
  for (const auto& [key, list] : value.items()) {
    if (key == "allow") {
      rules.allow = network_rules_parse::parse_list(list, RuleList::allow, origin, at + ".allow");
    } else if (key == "deny") {
      rules.deny = network_rules_parse::parse_list(list, RuleList::deny, origin, at + ".deny");
    } else {
      throw InvalidHostRule(at + ": unknown key \"" + key + "\" (only \"allow\" and \"deny\")");
    }
  }
  return rules;
}

}  // namespace holdfast::network
