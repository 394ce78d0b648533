// Where a connection may go: every range the proxy refuses, the IPv4
// addresses hidden in IPv6 forms, the host's own addresses, and the numeric
// spellings of an address that resolvers accept.
#include "launcher/network/address_check.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace holdfast::network {
// Helpers and tests in a named namespace: a unity build compiles this
// file in one unit with the suite's other files.
namespace address_check_test {

Address ip(std::string_view text) {
  const std::optional<Address> address = parse_ip_literal(text);
  if (!address) throw std::invalid_argument("not an address: " + std::string(text));
  return *address;
}

std::optional<std::string> refuse(std::string_view text, bool private_allowed = false) {
  return refuse_address(ip(text), AddressPolicy{private_allowed, {}});
}

TEST(AddressCheck, LiteralsAreStrict) {
  EXPECT_TRUE(parse_ip_literal("203.0.113.7"));
  EXPECT_TRUE(parse_ip_literal("2001:db8::7"));
  for (const char* text : {"127.1", "0x7f000001", "2130706433", "0177.0.0.1", "1.2.3.4.", "[::1]",
                           "fe80::1%eth0", "", " 1.2.3.4", "1.2.3.256"}) {
    EXPECT_EQ(parse_ip_literal(text), std::nullopt) << text;
  }
  EXPECT_EQ(to_string(ip("2001:DB8:0:0::7")), "2001:db8::7");
}

TEST(AddressCheck, NumericHostFormsAreSeenInEverySpellingAResolverAccepts) {
  for (const char* host : {"2130706433", "0x7f000001", "0X7F000001", "127.1", "0177.0.0.1",
                           "127.0.0.1", "127.0.0.1.", "1.0x7f", "0x", "::1", "::ffff:127.0.0.1"}) {
    EXPECT_TRUE(numeric_host_form(host)) << host;
  }
  for (const char* host : {"example.com", "1password.com", "0x7f.example", "a.b1", "x"}) {
    EXPECT_FALSE(numeric_host_form(host)) << host;
  }
}

TEST(AddressCheck, PublicAddressesPass) {
  EXPECT_EQ(refuse("93.184.215.14"), std::nullopt);
  EXPECT_EQ(refuse("140.82.121.4"), std::nullopt);
  EXPECT_EQ(refuse("2606:4700::6810:84e5"), std::nullopt);
}

TEST(AddressCheck, LoopbackLinkLocalMulticastAndUnspecifiedAreRefused) {
  const std::pair<const char*, const char*> cases[] = {
      {"127.0.0.1", "loopback"},
      {"127.255.0.9", "loopback"},
      {"::1", "loopback"},
      {"169.254.1.1", "link-local"},
      {"fe80::1", "link-local"},
      {"224.0.0.251", "multicast"},
      {"ff02::fb", "multicast"},
      {"0.0.0.0", "unspecified"},
      {"::", "unspecified"},
      {"0.1.2.3", "unspecified"},
      {"255.255.255.255", "reserved"},
      {"240.0.0.1", "reserved"},
      {"2001:db8::1", "reserved"},
      {"2001:0:4136:e378::1", "reserved"},
  };
  for (const auto& [address, word] : cases) {
    const std::optional<std::string> why = refuse(address);
    ASSERT_TRUE(why) << address;
    EXPECT_NE(why->find(word), std::string::npos) << address << ": " << *why;
    EXPECT_NE(why->find(to_string(ip(address))), std::string::npos) << *why;
  }
}

TEST(AddressCheck, CloudMetadataEndpointsAreRefusedEvenWherePrivateIsAllowed) {
  for (const char* address : {"169.254.169.254", "169.254.170.2", "100.100.100.200",
                              "168.63.129.16", "fd00:ec2::254", "::ffff:169.254.169.254"}) {
    const std::optional<std::string> why = refuse(address, /*private_allowed=*/true);
    ASSERT_TRUE(why) << address;
    EXPECT_NE(why->find("metadata"), std::string::npos) << *why;
  }
}

TEST(AddressCheck, PrivateRangesOnlyWhereTheEntrySaysSo) {
  for (const char* address : {"10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
                              "100.64.0.1", "fd12:3456::1", "fec0::1", "64:ff9b:1::1"}) {
    const std::optional<std::string> why = refuse(address);
    ASSERT_TRUE(why) << address;
    EXPECT_NE(why->find("private:"), std::string::npos) << "the remedy is named: " << *why;
    EXPECT_EQ(refuse(address, /*private_allowed=*/true), std::nullopt) << address;
  }
  // Just outside the ranges.
  EXPECT_EQ(refuse("172.32.0.1"), std::nullopt);
  EXPECT_EQ(refuse("100.128.0.1"), std::nullopt);
  EXPECT_EQ(refuse("11.0.0.1"), std::nullopt);
}

TEST(AddressCheck, AnIpv4AddressInsideAnIpv6FormIsJudgedAsItself) {
  // Loopback and metadata through every IPv6 form that carries IPv4.
  for (const char* address : {"::ffff:127.0.0.1", "::127.0.0.1", "64:ff9b::7f00:1",
                              "2002:7f00:1::", "2002:a9fe:a9fe::1"}) {
    EXPECT_TRUE(refuse(address)) << address;
    EXPECT_EQ(embedded_ipv4(ip(address)).has_value(), true) << address;
  }
  EXPECT_EQ(embedded_ipv4(ip("::ffff:10.0.0.1")), ip("10.0.0.1"));
  EXPECT_EQ(embedded_ipv4(ip("2002:0a00:0001::")), ip("10.0.0.1"));
  EXPECT_EQ(classify(ip("::ffff:10.0.0.1")), AddressKind::private_use);
  // And a public address in such a form is public.
  EXPECT_EQ(refuse("::ffff:93.184.215.14"), std::nullopt);
  EXPECT_EQ(embedded_ipv4(ip("2001:db8::1")), std::nullopt);
}

TEST(AddressCheck, TheHostsOwnAddressesAreRefusedInAnySpelling) {
  const std::vector<Address> own{ip("198.18.0.5"), ip("93.184.215.14"), ip("2606:4700::1")};
  const AddressPolicy policy{false, own};
  for (const char* address : {"93.184.215.14", "::ffff:93.184.215.14", "2606:4700::1"}) {
    const std::optional<std::string> why = refuse_address(ip(address), policy);
    ASSERT_TRUE(why) << address;
    EXPECT_NE(why->find("this host's own"), std::string::npos) << *why;
  }
  EXPECT_EQ(refuse_address(ip("93.184.215.15"), policy), std::nullopt);
}

}  // namespace address_check_test
}  // namespace holdfast::network
