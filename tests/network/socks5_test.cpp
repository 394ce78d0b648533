// SOCKS5 as a confined command speaks it: the greeting, the request and
// the replies the proxy sends; every refusal with its reply code, and the
// incremental contract (a verdict on a prefix is the verdict on the whole).
#include "launcher/network/socks5.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/network/hex_bytes.hpp"

namespace holdfast::network {
// Helpers and tests both in a named namespace: a unity build compiles this
// file in one unit with the suite's other files, which have helpers of the
// same names.
namespace socks5_test {

using namespace std::string_literals;

// Captured from curl 7.88.1 (Debian 12) against a python3 socket listener
// on 127.0.0.1 that recorded the greeting, answered 05 00, and recorded
// the request:
//   curl --socks5-hostname 127.0.0.1:18003 https://Example.COM./
// Offered methods: no authentication (00) and GSSAPI (01).
const std::string kCurlGreeting = "\x05\x02\x00\x01"s;
// CONNECT, a domain name of 12 bytes, as the user typed it, port 443.
const std::string kCurlRequest =
    "\x05\x01\x00\x03\x0c"
    "Example.COM.\x01\xbb"s;

// A CONNECT request for a domain name on PORT.
std::string domain_request(std::string_view name, std::uint16_t port = 443) {
  std::string bytes = "\x05\x01\x00\x03"s;
  bytes += static_cast<char>(name.size());
  bytes += name;
  bytes += static_cast<char>(port >> 8);
  bytes += static_cast<char>(port & 0xff);
  return bytes;
}

std::string describe(const Socks5Request& request) {
  const Socks5Destination& d = request.destination;
  return std::to_string(static_cast<int>(request.status)) +
         " consumed=" + std::to_string(request.consumed) + " reason=" + request.reason +
         " reply=" + std::to_string(static_cast<int>(request.reply)) + " host=" + d.host +
         " address=" + (d.address ? to_string(*d.address) : "-") +
         " port=" + std::to_string(d.port);
}

std::string describe(const Socks5Greeting& greeting) {
  return std::to_string(static_cast<int>(greeting.status)) +
         " consumed=" + std::to_string(greeting.consumed) + " reason=" + greeting.reason +
         " no_auth=" + std::to_string(greeting.no_auth_offered);
}

// Why a request is refused, or what else happened.
std::string refusal(std::string_view bytes) {
  const Socks5Request request = parse_socks5_request(bytes);
  if (request.status == Socks5Status::refused) return request.reason;
  return request.status == Socks5Status::done ? "done" : "need more";
}

// The incremental contract on every prefix of BYTES.
template <typename Parse>
void expect_prefixes_agree(std::string_view bytes, Parse parse) {
  const std::string whole = describe(parse(bytes));
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    const auto prefix = parse(bytes.substr(0, size));
    if (prefix.status != Socks5Status::need_more) {
      ASSERT_EQ(describe(prefix), whole) << "prefix of " << size << " bytes";
    }
  }
}

// Need more until the last byte, which completes the message.
template <typename Parse>
void expect_need_more_until_the_end(std::string_view bytes, Parse parse) {
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    ASSERT_EQ(parse(bytes.substr(0, size)).status, Socks5Status::need_more) << size;
  }
  const auto whole = parse(bytes);
  EXPECT_EQ(whole.status, Socks5Status::done) << whole.reason;
  EXPECT_EQ(whole.consumed, bytes.size());
}

TEST(Socks5, CurlsGreetingOffersNoAuthentication) {
  const Socks5Greeting greeting = parse_socks5_greeting(kCurlGreeting);
  ASSERT_EQ(greeting.status, Socks5Status::done) << greeting.reason;
  EXPECT_EQ(greeting.consumed, 4u);
  EXPECT_TRUE(greeting.no_auth_offered);
  expect_need_more_until_the_end(kCurlGreeting, parse_socks5_greeting);
}

TEST(Socks5, CurlsRequestNamesTheHostLowerCasedWithoutItsTrailingDot) {
  const Socks5Request request = parse_socks5_request(kCurlRequest);
  ASSERT_EQ(request.status, Socks5Status::done) << request.reason;
  EXPECT_EQ(request.consumed, kCurlRequest.size());
  EXPECT_EQ(request.destination.host, "example.com");
  EXPECT_FALSE(request.destination.address);
  EXPECT_EQ(request.destination.port, 443);
  expect_need_more_until_the_end(kCurlRequest, parse_socks5_request);
}

TEST(Socks5, AGreetingWithoutNoAuthenticationIsReadAndSaysSo) {
  const Socks5Greeting greeting = parse_socks5_greeting("\x05\x02\x01\x02"s);
  ASSERT_EQ(greeting.status, Socks5Status::done);
  EXPECT_FALSE(greeting.no_auth_offered);
}

TEST(Socks5, AGreetingReadsAllItsMethodsAndNoMore) {
  std::string all = "\x05\xff"s;
  for (int method = 1; method <= 255; ++method) all += static_cast<char>(method);
  all.back() = '\x00';  // no authentication, offered last
  expect_need_more_until_the_end(all, parse_socks5_greeting);
  EXPECT_TRUE(parse_socks5_greeting(all).no_auth_offered);
  // A client may send its request right behind the greeting.
  const Socks5Greeting pipelined = parse_socks5_greeting(kCurlGreeting + kCurlRequest);
  ASSERT_EQ(pipelined.status, Socks5Status::done);
  EXPECT_EQ(pipelined.consumed, kCurlGreeting.size());
}

TEST(Socks5, AGreetingIsVersion5WithAtLeastOneMethod) {
  EXPECT_EQ(parse_socks5_greeting("\x04"s).reason, "SOCKS4 is not served, only SOCKS5");
  EXPECT_EQ(parse_socks5_greeting("\x06\x01\x00"s).reason, "not SOCKS5");
  EXPECT_EQ(parse_socks5_greeting("GET / HTTP/1.1\r\n"s).reason, "not SOCKS5");
  EXPECT_EQ(parse_socks5_greeting("\x05\x00"s).reason, "a greeting that offers no method");
  EXPECT_EQ(parse_socks5_greeting(""s).status, Socks5Status::need_more);
}

TEST(Socks5, TheMethodReplyAcceptsNoAuthenticationOrNothing) {
  EXPECT_EQ(testing::hex_of(socks5_method_reply(true)), "0500");
  EXPECT_EQ(testing::hex_of(socks5_method_reply(false)), "05ff");
}

TEST(Socks5, AnIpv4RequestGivesTheAddressBytes) {
  const Socks5Request request = parse_socks5_request("\x05\x01\x00\x01\xc0\x00\x02\x07\x1f\x90"s);
  ASSERT_EQ(request.status, Socks5Status::done) << request.reason;
  EXPECT_EQ(request.consumed, 10u);
  ASSERT_TRUE(request.destination.address);
  EXPECT_EQ(request.destination.address->family, Family::ipv4);
  EXPECT_EQ(request.destination.address, parse_ip_literal("192.0.2.7"));
  EXPECT_EQ(request.destination.host, "192.0.2.7");
  EXPECT_EQ(request.destination.port, 8080);  // big-endian 0x1f90
}

TEST(Socks5, AnIpv6RequestGivesTheAddressBytes) {
  const std::string request_bytes =
      "\x05\x01\x00\x04\x20\x01\x0d\xb8\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x01\xbb"s;
  const Socks5Request request = parse_socks5_request(request_bytes);
  ASSERT_EQ(request.status, Socks5Status::done) << request.reason;
  EXPECT_EQ(request.consumed, 22u);
  EXPECT_EQ(request.destination.address, parse_ip_literal("2001:db8::1"));
  EXPECT_EQ(request.destination.host, "2001:db8::1");
  EXPECT_EQ(request.destination.port, 443);
  expect_need_more_until_the_end(request_bytes, parse_socks5_request);
}

TEST(Socks5, ADomainNameThatIsAnIpLiteralIsJudgedAsAnAddress) {
  const Socks5Request v4 = parse_socks5_request(domain_request("127.0.0.1"));
  ASSERT_EQ(v4.status, Socks5Status::done) << v4.reason;
  EXPECT_EQ(v4.destination.address, parse_ip_literal("127.0.0.1"));
  const Socks5Request v6 = parse_socks5_request(domain_request("::1"));
  ASSERT_EQ(v6.status, Socks5Status::done) << v6.reason;
  EXPECT_EQ(v6.destination.address, parse_ip_literal("::1"));
  EXPECT_EQ(v6.destination.host, "::1");
}

TEST(Socks5, ADomainNameIsAHostname) {
  const std::string bad = "the domain name is not a hostname or an IP address";
  EXPECT_EQ(refusal(domain_request("example.com\0evil.example"s)), bad);
  EXPECT_EQ(refusal(domain_request("example.com\0"s)), bad);
  EXPECT_EQ(refusal(domain_request("exa mple.com")), bad);
  EXPECT_EQ(refusal(domain_request("example.com/")), bad);
  EXPECT_EQ(refusal(domain_request("user@example.com")), bad);
  EXPECT_EQ(refusal(domain_request("[::1]")), bad);
  EXPECT_EQ(refusal(domain_request("a..b")), bad);
  EXPECT_EQ(refusal(domain_request(".")), bad);
  EXPECT_EQ(refusal(domain_request("example.com..")), bad);
  EXPECT_EQ(refusal(domain_request("2130706433")), bad);
  EXPECT_EQ(refusal(domain_request("0x7f.1")), bad);
  EXPECT_EQ(refusal(domain_request("b\xc3\xbc"
                                   "cher.example")),
            bad);
  EXPECT_EQ(refusal(domain_request(std::string(64, 'a') + ".example")), bad);
  EXPECT_EQ(refusal("\x05\x01\x00\x03\x00\x01\xbb"s), "an empty domain name");
}

TEST(Socks5, DomainNamesUpTo255BytesAreRead) {
  // Four labels of 63 and a trailing dot: 256 bytes would not fit the
  // length byte, and 253 is the longest name without the dot.
  const std::string label(63, 'a');
  const std::string longest = label + "." + label + "." + label + "." + std::string(61, 'b');
  ASSERT_EQ(longest.size(), 253u);
  const Socks5Request request = parse_socks5_request(domain_request(longest + "."));
  ASSERT_EQ(request.status, Socks5Status::done) << request.reason;
  EXPECT_EQ(request.destination.host, longest);
  EXPECT_EQ(refusal(domain_request(longest + "b")),
            "the domain name is not a hostname or an IP address");
  const std::string full = domain_request(std::string(255, 'a'));
  EXPECT_EQ(refusal(full.substr(0, 5 + 254)), "need more");
  EXPECT_EQ(refusal(full), "the domain name is not a hostname or an IP address");
}

TEST(Socks5, OnlyConnectIsServedAndTheReplySaysSo) {
  const auto command = [](char cmd) {
    std::string bytes = domain_request("example.com");
    bytes[1] = cmd;
    return parse_socks5_request(bytes);
  };
  for (const char cmd : {'\x02', '\x03', '\x00', '\x04', '\xff'}) {
    const Socks5Request request = command(cmd);
    EXPECT_EQ(request.status, Socks5Status::refused) << static_cast<int>(cmd);
    EXPECT_EQ(request.reply, Socks5Reply::command_not_supported) << static_cast<int>(cmd);
  }
  EXPECT_EQ(command('\x02').reason, "BIND is not served, only CONNECT");
  EXPECT_EQ(command('\x03').reason, "UDP ASSOCIATE is not served, only CONNECT");
  EXPECT_EQ(command('\x09').reason, "an unknown command");
  // Decided on the command byte, before the rest arrives.
  EXPECT_EQ(refusal("\x05\x02"s), "BIND is not served, only CONNECT");
}

TEST(Socks5, AnUnknownAddressTypeGetsItsOwnReply) {
  for (const char type : {'\x00', '\x02', '\x05', '\xff'}) {
    const Socks5Request request =
        parse_socks5_request("\x05\x01\x00"s + type + "\x7f\x00\x00\x01\x00\x50"s);
    EXPECT_EQ(request.status, Socks5Status::refused);
    EXPECT_EQ(request.reply, Socks5Reply::address_type_not_supported);
    EXPECT_EQ(request.reason, "an unknown address type");
  }
}

TEST(Socks5, MalformedRequestsGetAGeneralFailure) {
  const auto reply_to = [](const std::string& bytes) { return parse_socks5_request(bytes).reply; };
  std::string wrong_version = kCurlRequest;
  wrong_version[0] = '\x04';
  EXPECT_EQ(refusal(wrong_version), "not SOCKS5");
  EXPECT_EQ(reply_to(wrong_version), Socks5Reply::general_failure);
  std::string reserved = kCurlRequest;
  reserved[2] = '\x01';
  EXPECT_EQ(refusal(reserved), "a reserved byte not 0");
  EXPECT_EQ(reply_to(reserved), Socks5Reply::general_failure);
  EXPECT_EQ(refusal(domain_request("example.com", 0)), "port 0");
  EXPECT_EQ(reply_to(domain_request("example.com", 0)), Socks5Reply::general_failure);
  EXPECT_EQ(reply_to(domain_request("a..b")), Socks5Reply::general_failure);
  EXPECT_EQ(parse_socks5_request(domain_request("example.com", 65535)).destination.port, 65535);
}

TEST(Socks5, BytesAfterTheRequestAreNotPartOfIt) {
  const Socks5Request request = parse_socks5_request(kCurlRequest + "\x16\x03\x01"s);
  ASSERT_EQ(request.status, Socks5Status::done);
  EXPECT_EQ(request.consumed, kCurlRequest.size());
  EXPECT_EQ(describe(request), describe(parse_socks5_request(kCurlRequest)));
}

TEST(Socks5, RequestRepliesCarryTheCodeAndTheBoundAddress) {
  EXPECT_EQ(testing::hex_of(socks5_request_reply(Socks5Reply::not_allowed)),
            "05020001000000000000");
  EXPECT_EQ(testing::hex_of(socks5_request_reply(Socks5Reply::command_not_supported)),
            "05070001000000000000");
  EXPECT_EQ(testing::hex_of(socks5_request_reply(Socks5Reply::succeeded,
                                                 *parse_ip_literal("10.0.2.15"), 40000)),
            "050000010a00020f9c40");
  EXPECT_EQ(testing::hex_of(socks5_request_reply(Socks5Reply::succeeded,
                                                 *parse_ip_literal("2001:db8::2"), 443)),
            "0500000420010db800000000000000000000000201bb");
}

TEST(Socks5, AVerdictOnAPrefixIsTheVerdictOnTheWhole) {
  for (const std::string& bytes :
       {kCurlRequest, kCurlRequest + "more", domain_request("a..b"), domain_request("x", 0),
        "\x05\x03\x00\x01\x7f\x00\x00\x01\x00\x50"s, "\x05\x01\x00\x07\x7f\x00\x00\x01"s,
        "\x05\x01\x01\x01\x7f\x00\x00\x01\x00\x50"s, domain_request(std::string(255, 'a'))}) {
    expect_prefixes_agree(bytes, parse_socks5_request);
  }
  for (const std::string& bytes :
       {kCurlGreeting, kCurlGreeting + kCurlRequest, "\x05\x00"s, "\x04\x01\x00\x50"s}) {
    expect_prefixes_agree(bytes, parse_socks5_greeting);
  }
}

}  // namespace socks5_test
}  // namespace holdfast::network
