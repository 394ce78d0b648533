// Rule parsing: strict, and every refusal names the rule.
#include "launcher/gatekeeper/rule.hpp"

#include <gtest/gtest.h>

namespace holdfast::gatekeeper {
namespace {

TEST(ParseRule, BareTool) {
  const Rule rule = parse_rule("Read");
  EXPECT_EQ(rule.tool, "Read");
  EXPECT_FALSE(rule.has_specifier);
  EXPECT_EQ(rule.kind, RuleKind::path);
}

TEST(ParseRule, ToolWithSpecifier) {
  const Rule rule = parse_rule("Bash(git commit)");
  EXPECT_EQ(rule.tool, "Bash");
  EXPECT_EQ(rule.specifier, "git commit");
  EXPECT_EQ(rule.kind, RuleKind::shell);
}

TEST(ParseRule, ShellIsAnAliasOfBash) {
  const Rule rule = parse_rule("Shell(ls *)");
  EXPECT_EQ(rule.tool, "Bash");
  EXPECT_EQ(rule.text, "Shell(ls *)");
}

TEST(ParseRule, ParenthesesInsideTheSpecifier) {
  EXPECT_EQ(parse_rule("Bash(echo (a))").specifier, "echo (a)");
}

TEST(ParseRule, OtherToolsVerbatim) {
  const Rule rule = parse_rule("mcp__server__tool");
  EXPECT_EQ(rule.tool, "mcp__server__tool");
  EXPECT_EQ(rule.kind, RuleKind::other);
}

TEST(ParseRule, WebFetchDomain) {
  const Rule rule = parse_rule("WebFetch(domain:example.com)");
  EXPECT_EQ(rule.kind, RuleKind::fetch);
}

void expect_refused(const std::string& text, const std::string& fragment) {
  try {
    parse_rule(text);
    ADD_FAILURE() << text << " was accepted";
  } catch (const RuleError& e) {
    EXPECT_EQ(e.rule(), text);
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(ParseRule, Refusals) {
  expect_refused("Read(", "unbalanced");
  expect_refused("Read(~/.ssh/**", "unbalanced");
  expect_refused("Read(a))", "after the closing");
  expect_refused("Read(a)b", "after the closing");
  expect_refused("Read()", "empty specifier");
  expect_refused("(x)", "missing tool name");
  expect_refused("Re ad", "tool name");
  expect_refused("read(~/.ssh/**)", "did you mean Read");
  expect_refused("BASH(rm)", "did you mean Bash");
  expect_refused("WebFetch(example.com)", "domain:");
  expect_refused("WebFetch(domain:https://x.com)", "host name only");
  expect_refused("Read($HOME/.ssh/**)", "variables are not expanded");
  expect_refused("Read(~bob/.ssh)", "~user");
}

// A NUL would cut the rule short wherever it is compared as a C string;
// the message shows it escaped, so it is not cut short either.
TEST(ParseRule, ControlCharactersAreRefusedAndShownEscaped) {
  const std::string text("Bash(rm\0x)", 10);
  try {
    parse_rule(text);
    ADD_FAILURE() << "a rule with a NUL was accepted";
  } catch (const RuleError& e) {
    EXPECT_EQ(e.rule(), text);
    EXPECT_EQ(std::string(e.what()),
              "permission rule \"Bash(rm\\u0000x)\": a rule cannot hold control characters "
              "(U+0000 at byte 7); remove it");
  }
}

TEST(RulesFromSettings, ReadsTheThreeLists) {
  const auto set = rules_from_settings(nlohmann::json::parse(
      R"j({"permissions": {"allow": ["Read"], "ask": ["Bash(git push)"], "deny": ["Edit", "Write"]}})j"));
  EXPECT_EQ(set.allow.size(), 1u);
  EXPECT_EQ(set.ask.size(), 1u);
  EXPECT_EQ(set.deny.size(), 2u);
}

TEST(RulesFromSettings, AbsentPermissionsAreEmpty) {
  const auto set = rules_from_settings(nlohmann::json::parse(R"j({"tools": {}})j"));
  EXPECT_TRUE(set.allow.empty() && set.ask.empty() && set.deny.empty());
}

TEST(RulesFromSettings, ABadDenyRuleIsNeverDropped) {
  EXPECT_THROW(rules_from_settings(nlohmann::json::parse(
                   R"j({"permissions": {"deny": ["Read(~/.ssh/**)", "Read("]}})j")),
               RuleError);
  EXPECT_THROW(rules_from_settings(nlohmann::json::parse(R"j({"permissions": {"deny": [3]}})j")),
               RuleError);
  EXPECT_THROW(rules_from_settings(nlohmann::json::parse(R"j({"permissions": {"deny": "Read"}})j")),
               RuleError);
  EXPECT_THROW(rules_from_settings(nlohmann::json::parse(R"j({"permissions": ["Read"]})j")),
               RuleError);
}

}  // namespace
}  // namespace holdfast::gatekeeper
