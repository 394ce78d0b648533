// The allow-list as a scope writes it: parsed with each entry's origin,
// and every mistake located.
#include "launcher/network/network_rules.hpp"

#include <gtest/gtest.h>

namespace holdfast::network {
// Helpers and tests in a named namespace: a unity build compiles this
// file in one unit with the suite's other files.
namespace network_rules_test {

// The refusal message for VALUE, or "accepted".
std::string refusal(const nlohmann::json& value) {
  try {
    parse_network_rules(value, "user");
    return "accepted";
  } catch (const InvalidHostRule& e) {
    return e.what();
  }
}

TEST(NetworkRules, BothListsAreParsedAndEveryEntryKeepsItsScope) {
  const NetworkRules rules = parse_network_rules(
      nlohmann::json::parse(R"({"allow": ["github.com", "**.npmjs.org", "api.example.com:8443"],
                                "deny": ["gist.github.com"]})"),
      "workspace");
  ASSERT_EQ(rules.allow.size(), 3u);
  ASSERT_EQ(rules.deny.size(), 1u);
  EXPECT_EQ(rules.allow[1].match, HostMatch::name_and_subdomains);
  EXPECT_EQ(rules.allow[2].port, 8443);
  EXPECT_EQ(rules.deny[0].port, std::nullopt) << "a deny without a port denies every port";
  for (const HostRule& rule : rules.allow) EXPECT_EQ(rule.origin, "workspace");
  EXPECT_EQ(rules.deny[0].origin, "workspace");
}

TEST(NetworkRules, EitherListMayBeLeftOut) {
  EXPECT_TRUE(parse_network_rules(nlohmann::json::object(), "user").allow.empty());
  EXPECT_EQ(parse_network_rules(nlohmann::json{{"deny", {"x.example"}}}, "user").deny.size(), 1u);
}

TEST(NetworkRules, EveryMistakeSaysWhereItIs) {
  const std::string wildcard = refusal(nlohmann::json{{"allow", {"github.com", "*.com"}}});
  EXPECT_TRUE(wildcard.starts_with("tools.executionSandbox.network.allow[1]: \"*.com\": "))
      << wildcard;
  EXPECT_NE(refusal(nlohmann::json{{"allow", {"github.com", "*.com"}}}).find("single label"),
            std::string::npos);
  EXPECT_EQ(refusal(nlohmann::json{{"deny", {1}}}),
            "tools.executionSandbox.network.deny[0]: must be a string such as \"github.com\", "
            "not number");
  EXPECT_NE(refusal(nlohmann::json{{"allow", "github.com"}}).find("allow: must be an array"),
            std::string::npos);
  EXPECT_NE(
      refusal(nlohmann::json{{"allows", nlohmann::json::array()}}).find("unknown key \"allows\""),
      std::string::npos);
  EXPECT_NE(refusal(nlohmann::json::array()).find("must be \"open\", \"closed\" or an object"),
            std::string::npos);
}

}  // namespace network_rules_test
}  // namespace holdfast::network
