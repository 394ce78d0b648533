// The allow-list's entries: what each form covers, what is refused and
// why, and deny beating allow.
#include "launcher/network/host_rule.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace holdfast::network {
// Helpers and tests in a named namespace: a unity build compiles this
// file in one unit with the suite's other files.
namespace host_rule_test {

HostRule allow(std::string_view entry) { return parse_host_rule(entry, RuleList::allow); }
HostRule deny(std::string_view entry) { return parse_host_rule(entry, RuleList::deny); }

// The refusal message for ENTRY, or "accepted".
std::string refusal(std::string_view entry) {
  try {
    parse_host_rule(entry, RuleList::allow);
    return "accepted";
  } catch (const InvalidHostRule& e) {
    return e.what();
  }
}

TEST(HostRule, AnExactNameCoversItselfOnPort443Only) {
  const HostRule rule = allow("github.com");
  EXPECT_TRUE(rule_matches_name(rule, "github.com", 443));
  EXPECT_FALSE(rule_matches_name(rule, "github.com", 80));
  EXPECT_FALSE(rule_matches_name(rule, "api.github.com", 443));
  EXPECT_FALSE(rule_matches_name(rule, "evilgithub.com", 443));
  EXPECT_FALSE(rule_matches_name(rule, "github.com.evil.net", 443));
}

TEST(HostRule, OneStarCoversStrictSubdomainsAtAnyDepth) {
  const HostRule rule = allow("*.npmjs.org");
  EXPECT_TRUE(rule_matches_name(rule, "registry.npmjs.org", 443));
  EXPECT_TRUE(rule_matches_name(rule, "a.b.npmjs.org", 443));
  EXPECT_FALSE(rule_matches_name(rule, "npmjs.org", 443));
  EXPECT_FALSE(rule_matches_name(rule, "evilnpmjs.org", 443));
}

TEST(HostRule, TwoStarsCoverTheNameAndItsSubdomains) {
  const HostRule rule = allow("**.npmjs.org");
  EXPECT_TRUE(rule_matches_name(rule, "npmjs.org", 443));
  EXPECT_TRUE(rule_matches_name(rule, "registry.npmjs.org", 443));
  EXPECT_FALSE(rule_matches_name(rule, "xnpmjs.org", 443));
}

TEST(HostRule, APortIsWrittenAfterTheNameAnd80IsHowPlainHttpIsAllowed) {
  EXPECT_EQ(allow("api.example.com:8443").port, 8443);
  const HostRule plain = allow("deb.debian.org:80");
  EXPECT_TRUE(rule_matches_name(plain, "deb.debian.org", 80));
  EXPECT_FALSE(rule_matches_name(plain, "deb.debian.org", 443));
}

TEST(HostRule, ADenyWithoutAPortDeniesEveryPort) {
  const HostRule rule = deny("gist.github.com");
  EXPECT_TRUE(rule_matches_name(rule, "gist.github.com", 443));
  EXPECT_TRUE(rule_matches_name(rule, "gist.github.com", 80));
  EXPECT_TRUE(rule_matches_name(rule, "gist.github.com", 22));
  EXPECT_FALSE(rule_matches_name(deny("gist.github.com:22"), "gist.github.com", 443));
}

TEST(HostRule, NamesAreComparedLowerCaseWithoutTheTrailingDot) {
  const HostRule rule = allow("GitHub.COM.");
  EXPECT_EQ(rule.name, "github.com");
  EXPECT_EQ(normalize_host_name("API.GitHub.com."), "api.github.com");
  EXPECT_TRUE(rule_matches_name(rule, *normalize_host_name("GITHUB.com."), 443));
}

TEST(HostRule, InternationalNamesAreComparedInTheirPunycodeForm) {
  EXPECT_EQ(allow("bücher.example").name, "xn--bcher-kva.example");
  EXPECT_EQ(normalize_host_name("BÜCHER.example"), "xn--bcher-kva.example");
  // Full-width letters map to ASCII ones, as a browser maps them: a name
  // that looks foreign is the host it reaches.
  EXPECT_EQ(normalize_host_name("\xef\xbd\x85vil.com"), "evil.com");  // "ｅvil.com"
}

TEST(HostRule, WhatAHostnameCannotBeIsNoName) {
  EXPECT_EQ(normalize_host_name(""), std::nullopt);
  EXPECT_EQ(normalize_host_name("."), std::nullopt);
  EXPECT_EQ(normalize_host_name("a..b"), std::nullopt);
  EXPECT_EQ(normalize_host_name("-a.com"), std::nullopt);
  EXPECT_EQ(normalize_host_name("a-.com"), std::nullopt);
  EXPECT_EQ(normalize_host_name("a b.com"), std::nullopt);
  EXPECT_EQ(normalize_host_name(std::string("a\0b.com", 7)), std::nullopt);
  EXPECT_EQ(normalize_host_name("a.com/x"), std::nullopt);
  EXPECT_EQ(normalize_host_name(std::string(64, 'a') + ".com"), std::nullopt);
  EXPECT_TRUE(normalize_host_name(std::string(63, 'a') + ".com"));
  std::string long_name;
  for (int i = 0; i < 4; ++i) long_name += std::string(62, 'a') + ".";  // 252 bytes
  EXPECT_TRUE(normalize_host_name(long_name + "b"));                    // 253
  EXPECT_EQ(normalize_host_name(long_name + "bc"), std::nullopt);       // 254
}

TEST(HostRule, NumericFormsAreNoNames) {
  for (const char* host :
       {"2130706433", "0x7f000001", "127.1", "0177.0.0.1", "127.0.0.1", "example.0x10", "::1"}) {
    EXPECT_EQ(normalize_host_name(host), std::nullopt) << host;
  }
  EXPECT_EQ(normalize_host_name("1password.com"), "1password.com");
  EXPECT_EQ(normalize_host_name("0xdeadbeef.example"), "0xdeadbeef.example");
}

TEST(HostRule, EveryRefusalSaysWhatWasWrong) {
  EXPECT_NE(refusal("").find("empty"), std::string::npos);
  EXPECT_NE(refusal("*").find("every host"), std::string::npos);
  EXPECT_NE(refusal("*.com").find("single label"), std::string::npos);
  EXPECT_NE(refusal("**.org").find("single label"), std::string::npos);
  EXPECT_NE(refusal("a*.example.com").find("first label"), std::string::npos);
  EXPECT_NE(refusal("www.*.example.com").find("first label"), std::string::npos);
  EXPECT_NE(refusal("127.0.0.1").find("ip:"), std::string::npos);
  EXPECT_NE(refusal("2130706433").find("ip:"), std::string::npos);
  EXPECT_NE(refusal("[::1]:443").find("ip:"), std::string::npos);
  EXPECT_NE(refusal("example.com:0").find("1 to 65535"), std::string::npos);
  EXPECT_NE(refusal("example.com:65536").find("1 to 65535"), std::string::npos);
  EXPECT_NE(refusal("example.com:+80").find("1 to 65535"), std::string::npos);
  EXPECT_NE(refusal("example.com:").find("1 to 65535"), std::string::npos);
  EXPECT_NE(refusal("a:b:443").find("more than one ':'"), std::string::npos);
  EXPECT_NE(refusal("exa mple.com").find("not a hostname"), std::string::npos);
  EXPECT_NE(refusal("https://example.com").find("1 to 65535"), std::string::npos);
  // Every message names the entry, so the policy reader's location and
  // the entry together say where to look.
  EXPECT_NE(refusal("*.com").find("\"*.com\""), std::string::npos);
}

TEST(HostRule, IpAddressesOnlyThroughTheExplicitForm) {
  const HostRule v4 = allow("ip:203.0.113.7");
  EXPECT_EQ(v4.match, HostMatch::address);
  EXPECT_EQ(v4.port, 443);
  EXPECT_TRUE(rule_matches_address(v4, *parse_ip_literal("203.0.113.7"), 443));
  EXPECT_FALSE(rule_matches_address(v4, *parse_ip_literal("203.0.113.8"), 443));
  EXPECT_FALSE(rule_matches_name(v4, "203.0.113.7", 443));

  EXPECT_EQ(allow("ip:203.0.113.7:8080").port, 8080);
  EXPECT_EQ(allow("ip:[2001:db8::7]:8443").port, 8443);
  EXPECT_EQ(allow("ip:2001:db8::7").address, parse_ip_literal("2001:db8::7"));
  EXPECT_NE(refusal("ip:127.1").find("not an IP address"), std::string::npos);
  EXPECT_NE(refusal("ip:[203.0.113.7]:80").find("not an IP address"), std::string::npos);
  EXPECT_NE(refusal("ip:[2001:db8::7").find("']'"), std::string::npos);
  EXPECT_NE(refusal("ip:[2001:db8::7]x").find("PORT"), std::string::npos);
}

TEST(HostRule, AnAddressDenyCannotBePassedByAnotherSpellingOfTheAddress) {
  const HostRule rule = deny("ip:203.0.113.7");
  EXPECT_TRUE(rule_matches_address(rule, *parse_ip_literal("::ffff:203.0.113.7"), 443));
  EXPECT_TRUE(rule_matches_address(rule, *parse_ip_literal("64:ff9b::203.0.113.7"), 443));
}

TEST(HostRule, PrivateIsSaidByTheEntry) {
  EXPECT_FALSE(allow("git.corp.example").private_allowed);
  const HostRule rule = allow("private:git.corp.example:8443");
  EXPECT_TRUE(rule.private_allowed);
  EXPECT_EQ(rule.name, "git.corp.example");
  EXPECT_EQ(rule.port, 8443);
}

TEST(HostRule, DenyBeatsAllowAndAnUnlistedNameIsNotAllowed) {
  const std::vector<HostRule> allows{allow("**.github.com"), allow("pypi.org")};
  const std::vector<HostRule> denies{deny("gist.github.com")};
  const HostDecision gist = decide_name(allows, denies, "gist.github.com", 443);
  EXPECT_EQ(gist.verdict, HostVerdict::denied);
  EXPECT_EQ(gist.rule->text, "gist.github.com");
  const HostDecision api = decide_name(allows, denies, "api.github.com", 443);
  EXPECT_EQ(api.verdict, HostVerdict::allowed);
  EXPECT_EQ(api.rule->text, "**.github.com");
  const HostDecision other = decide_name(allows, denies, "evil.com", 443);
  EXPECT_EQ(other.verdict, HostVerdict::not_listed);
  EXPECT_EQ(other.rule, nullptr);
  EXPECT_EQ(decide_name(allows, denies, "pypi.org", 80).verdict, HostVerdict::not_listed);
}

TEST(HostRule, AddressDecisionsReadOnlyAddressEntries) {
  const std::vector<HostRule> allows{allow("ip:203.0.113.7"), allow("**.example.com")};
  const std::vector<HostRule> denies{};
  EXPECT_EQ(decide_address(allows, denies, *parse_ip_literal("203.0.113.7"), 443).verdict,
            HostVerdict::allowed);
  EXPECT_EQ(decide_address(allows, denies, *parse_ip_literal("198.51.100.1"), 443).verdict,
            HostVerdict::not_listed);
}

TEST(HostRule, AnyPortDecisionsServeTheDnsStub) {
  const std::vector<HostRule> allows{allow("**.example.com"), allow("api.corp.example:8443"),
                                     allow("ip:203.0.113.7")};
  const std::vector<HostRule> denies{deny("bad.example.com"), deny("ssh.example.com:22")};
  // An allow entry on any port lets the name be resolved.
  const HostDecision api = decide_name_any_port(allows, denies, "api.corp.example");
  EXPECT_EQ(api.verdict, HostVerdict::allowed);
  EXPECT_EQ(api.rule->text, "api.corp.example:8443");
  // A deny entry without a port denies the name outright ...
  const HostDecision bad = decide_name_any_port(allows, denies, "bad.example.com");
  EXPECT_EQ(bad.verdict, HostVerdict::denied);
  EXPECT_EQ(bad.rule->text, "bad.example.com");
  // ... one with a port leaves the name's other ports reachable.
  EXPECT_EQ(decide_name_any_port(allows, denies, "ssh.example.com").verdict, HostVerdict::allowed);
  EXPECT_EQ(decide_name_any_port(allows, denies, "other.org").verdict, HostVerdict::not_listed);
}

}  // namespace host_rule_test
}  // namespace holdfast::network
