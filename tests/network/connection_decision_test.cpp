// The proxy's three decisions on one connection: the destination against
// the lists, the resolved address it may connect to, and what the client
// sends first through the tunnel.
#include "launcher/network/connection_decision.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace holdfast::network {
// Helpers and tests in a named namespace: a unity build compiles this
// file in one unit with the suite's other files.
namespace connection_decision_test {

NetworkRules rules(std::vector<std::string_view> allow, std::vector<std::string_view> deny = {}) {
  NetworkRules result;
  for (const auto entry : allow) result.allow.push_back(parse_host_rule(entry, RuleList::allow));
  for (const auto entry : deny) result.deny.push_back(parse_host_rule(entry, RuleList::deny));
  return result;
}

Destination name(std::string host, std::uint16_t port = 443) { return {std::move(host), {}, port}; }

Destination literal(std::string_view text, std::uint16_t port = 443) {
  const Address address = *parse_ip_literal(text);
  return {to_string(address), address, port};
}

Address ip(std::string_view text) { return *parse_ip_literal(text); }

// A minimal TLS 1.2-style ClientHello in one record, with a server_name
// extension for NAME when given and an ECH extension when asked.
std::string client_hello(std::optional<std::string> name, bool ech = false) {
  std::string extensions;
  const auto u16 = [](std::size_t v) {
    return std::string{static_cast<char>(v >> 8), static_cast<char>(v & 0xff)};
  };
  if (name) {
    const std::string entry = std::string(1, '\0') + u16(name->size()) + *name;
    const std::string list = u16(entry.size()) + entry;
    extensions += u16(0x0000) + u16(list.size()) + list;
  }
  if (ech) extensions += u16(0xfe0d) + u16(1) + std::string(1, '\x01');
  std::string body = "\x03\x03" + std::string(32, 'r') + std::string(1, '\0') + u16(2) +
                     "\x13\x01" + std::string("\x01\x00", 2) + u16(extensions.size()) + extensions;
  const std::string handshake = "\x01" + std::string(1, '\0') + u16(body.size()) + body;
  return "\x16\x03\x01" + u16(handshake.size()) + handshake;
}

TEST(ConnectionDecision, AListedNameIsAllowedWithTheEntryThatAllowedIt) {
  const NetworkRules list = rules({"**.github.com", "pypi.org"});
  const Verdict verdict = judge_destination(list, name("api.github.com"));
  EXPECT_TRUE(verdict.allowed);
  ASSERT_NE(verdict.rule, nullptr);
  EXPECT_EQ(verdict.rule->text, "**.github.com");
}

TEST(ConnectionDecision, AnUnlistedNameADeniedNameAndAnUnlistedPortAreRefusedWithTheReason) {
  const NetworkRules list = rules({"**.github.com"}, {"gist.github.com"});
  const Verdict unlisted = judge_destination(list, name("evil.com"));
  EXPECT_FALSE(unlisted.allowed);
  EXPECT_EQ(unlisted.reason, "evil.com:443 is not on the network allow-list");
  const Verdict denied = judge_destination(list, name("gist.github.com"));
  EXPECT_FALSE(denied.allowed);
  EXPECT_EQ(denied.reason, "gist.github.com:443 is denied by \"gist.github.com\"");
  EXPECT_FALSE(judge_destination(list, name("api.github.com", 22)).allowed);
}

TEST(ConnectionDecision, AnAddressIsAllowedOnlyByAnIpEntryForIt) {
  const NetworkRules list = rules({"**.github.com", "ip:140.82.121.4"});
  EXPECT_TRUE(judge_destination(list, literal("140.82.121.4")).allowed);
  const Verdict other = judge_destination(list, literal("140.82.121.5"));
  EXPECT_FALSE(other.allowed);
  EXPECT_NE(other.reason.find("ip:ADDRESS"), std::string::npos) << other.reason;
  EXPECT_EQ(judge_destination(list, literal("2001:db8::1")).reason.substr(0, 17),
            "[2001:db8::1]:443");
}

TEST(ConnectionDecision, TheFirstAddressThatPassesIsChosenAndOnlyThatOne) {
  const HostRule rule = parse_host_rule("example.com", RuleList::allow);
  const std::vector<Address> resolved{ip("127.0.0.1"), ip("169.254.169.254"), ip("93.184.215.14"),
                                      ip("93.184.215.15")};
  const AddressChoice choice = choose_address(resolved, rule, {});
  EXPECT_EQ(choice.address, ip("93.184.215.14"));
}

TEST(ConnectionDecision, ARebindingAnswerLeavesNoAddressAndSaysWhyForEach) {
  const HostRule rule = parse_host_rule("example.com", RuleList::allow);
  const std::vector<Address> resolved{ip("127.0.0.1"), ip("::ffff:169.254.169.254")};
  const AddressChoice choice = choose_address(resolved, rule, {});
  EXPECT_EQ(choice.address, std::nullopt);
  EXPECT_NE(choice.reason.find("127.0.0.1 is a loopback address"), std::string::npos)
      << choice.reason;
  EXPECT_NE(choice.reason.find("metadata"), std::string::npos) << choice.reason;
  EXPECT_EQ(choose_address({}, rule, {}).reason, "the name resolved to no address");
}

TEST(ConnectionDecision, PrivateAddressesNeedTheEntryToSaySo) {
  const std::vector<Address> resolved{ip("10.0.0.7")};
  const HostRule plain = parse_host_rule("git.corp.example", RuleList::allow);
  EXPECT_EQ(choose_address(resolved, plain, {}).address, std::nullopt);
  const HostRule marked = parse_host_rule("private:git.corp.example", RuleList::allow);
  EXPECT_EQ(choose_address(resolved, marked, {}).address, ip("10.0.0.7"));
  // An ip: entry for the address says so too, but for that address only.
  const HostRule named = parse_host_rule("ip:10.0.0.7", RuleList::allow);
  EXPECT_EQ(choose_address(resolved, named, {}).address, ip("10.0.0.7"));
  EXPECT_EQ(choose_address(std::vector<Address>{ip("10.0.0.8")}, named, {}).address, std::nullopt);
  // Not even an ip: entry opens loopback or the host's own addresses.
  const HostRule loopback = parse_host_rule("ip:127.0.0.1", RuleList::allow);
  EXPECT_EQ(choose_address(std::vector<Address>{ip("127.0.0.1")}, loopback, {}).address,
            std::nullopt);
  const std::vector<Address> own{ip("93.184.215.14")};
  EXPECT_EQ(choose_address(std::vector<Address>{ip("93.184.215.14")}, plain, own).address,
            std::nullopt);
}

TEST(ConnectionDecision, ATunnelMustNameItsHostInTheClientHello) {
  const Destination github = name("github.com");
  const TunnelVerdict same = judge_tunnel_start(github, client_hello("github.com"));
  EXPECT_EQ(same.status, TunnelStatus::allowed) << same.reason;
  EXPECT_EQ(same.server_name, "github.com");
  EXPECT_EQ(same.kind, "tls");
  // The parser's form: upper case and one trailing dot are the same name.
  EXPECT_EQ(judge_tunnel_start(github, client_hello("GitHub.com.")).status, TunnelStatus::allowed);

  const TunnelVerdict other = judge_tunnel_start(github, client_hello("evil.com"));
  EXPECT_EQ(other.status, TunnelStatus::refused);
  EXPECT_NE(other.reason.find("names evil.com, not github.com"), std::string::npos) << other.reason;
  const TunnelVerdict none = judge_tunnel_start(github, client_hello(std::nullopt));
  EXPECT_EQ(none.status, TunnelStatus::refused);
  EXPECT_NE(none.reason.find("no SNI"), std::string::npos) << none.reason;
  const TunnelVerdict ech = judge_tunnel_start(github, client_hello("github.com", true));
  EXPECT_EQ(ech.status, TunnelStatus::refused);
  EXPECT_NE(ech.reason.find("ECH"), std::string::npos) << ech.reason;
}

TEST(ConnectionDecision, ATunnelToAnAddressCarriesNoServerName) {
  const Destination address = literal("140.82.121.4");
  EXPECT_EQ(judge_tunnel_start(address, client_hello(std::nullopt)).status, TunnelStatus::allowed);
  EXPECT_EQ(judge_tunnel_start(address, client_hello("evil.com")).status, TunnelStatus::refused);
}

TEST(ConnectionDecision, ATunnelWaitsForTheWholeClientHello) {
  const std::string hello = client_hello("github.com");
  for (std::size_t n = 1; n < hello.size(); ++n) {
    EXPECT_EQ(judge_tunnel_start(name("github.com"), hello.substr(0, n)).status,
              TunnelStatus::need_more)
        << n;
  }
}

TEST(ConnectionDecision, SshPassesAndEverythingElseIsRefused) {
  const Destination github = name("github.com", 22);
  const TunnelVerdict ssh = judge_tunnel_start(github, "SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n");
  EXPECT_EQ(ssh.status, TunnelStatus::allowed);
  EXPECT_EQ(ssh.kind, "ssh");
  EXPECT_EQ(judge_tunnel_start(github, "SSH-2.").status, TunnelStatus::need_more);
  EXPECT_EQ(judge_tunnel_start(github, "").status, TunnelStatus::need_more);
  const TunnelVerdict http = judge_tunnel_start(github, "GET / HTTP/1.1\r\nHost: evil.com\r\n\r\n");
  EXPECT_EQ(http.status, TunnelStatus::refused);
  EXPECT_NE(http.reason.find("TLS or SSH only"), std::string::npos) << http.reason;
  EXPECT_EQ(judge_tunnel_start(github, "SSH-1.5-old").status, TunnelStatus::refused);
}

}  // namespace connection_decision_test
}  // namespace holdfast::network
