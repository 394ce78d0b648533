// The TLS ClientHello read for its server name: two real ones, then
// hand-built ones for each refusal, each length field lying about its
// container, the limits at and one past their bounds, reassembly across
// records, and the incremental contract (a verdict on a prefix is the
// verdict on the whole).
#include "launcher/network/client_hello.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/network/hex_bytes.hpp"

namespace holdfast::network {
// Helpers and tests both in a named namespace: a unity build compiles this
// file in one unit with the suite's other files, which have helpers of the
// same names.
namespace client_hello_test {

using namespace std::string_literals;

// The first bytes curl 7.88.1 (OpenSSL 3.0, Debian 12) sent to a python3
// socket listener on 127.0.0.1 that recorded them:
//   curl --connect-to ::127.0.0.1:18014 https://Example.COM./
// One record; curl lower-cased the name and dropped its trailing dot
// itself. The padding extension (21) brings it to 517 bytes.
const char kCurlHex[] =
    "1603010200010001fc030308f62e0598b811019eb82ac6b8f592b839b85a55ba"
    "7eeb78d6b350fb5eabc01620e716857a94e07475096432be0bb71f2b701e69c4"
    "368a41c40f2e5280031d7d91003e130213031301c02cc030009fcca9cca8ccaa"
    "c02bc02f009ec024c028006bc023c0270067c00ac0140039c009c0130033009d"
    "009c003d003c0035002f00ff0100017500000010000e00000b6578616d706c65"
    "2e636f6d000b000403000102000a00160014001d0017001e0019001801000101"
    "0102010301040010000e000c02683208687474702f312e310016000000170000"
    "00310000000d002a0028040305030603080708080809080a080b080408050806"
    "040105010601030303010302040205020602002b000908030403030302030100"
    "2d00020101003300260024001d0020d88bc5b1cb22b267a14ccd91e24c409f6e"
    "bda29c4ee1a63f7deac1b574935408001500b200000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000"
    "0000000000";

// The same listener, OpenSSL 3.0's s_client:
//   openssl s_client -connect 127.0.0.1:18015 -servername Example.COM.
// It sends the name as given: upper case and a trailing dot.
const char kOpensslHex[] =
    "16030101390100013503033bc21f8f857812ce129c823d5a5eccdfe9a2e6df2d"
    "e1873c9cf0dbe9ab34ff342002a0b8fa32b30eb4568d4e5996158651920c4144"
    "b3e91b7bf04b4b104b139e6b003e130213031301c02cc030009fcca9cca8ccaa"
    "c02bc02f009ec024c028006bc023c0270067c00ac0140039c009c0130033009d"
    "009c003d003c0035002f00ff010000ae00000011000f00000c4578616d706c65"
    "2e434f4d2e000b000403000102000a00160014001d0017001e00190018010001"
    "01010201030104002300000016000000170000000d002a002804030503060308"
    "0708080809080a080b0804080508060401050106010303030103020402050206"
    "02002b0009080304030303020301002d00020101003300260024001d00207124"
    "117c557d3b98dd6ac489d30cca4ac948b6875f868b6bcf716ccf29e9ab42";

const std::string kCurl = testing::bytes_from_hex(kCurlHex);
const std::string kOpenssl = testing::bytes_from_hex(kOpensslHex);

std::string u8(std::size_t value) { return std::string(1, static_cast<char>(value)); }
std::string u16(std::size_t value) { return u8(value >> 8) + u8(value & 0xff); }
std::string u24(std::size_t value) { return u8(value >> 16) + u16(value & 0xffff); }

std::string extension(std::size_t type, std::string_view data) {
  return u16(type) + u16(data.size()) + std::string(data);
}

// server_name's data: a list holding one host_name.
std::string server_name_data(std::string_view name) {
  return u16(name.size() + 3) + u8(0) + u16(name.size()) + std::string(name);
}

std::string sni(std::string_view name) { return extension(0, server_name_data(name)); }

// A ClientHello's fields, each as it goes on the wire without its length.
struct Body {
  std::string version = "\x03\x03"s;
  std::string session_id = std::string(32, 's');
  std::string cipher_suites = "\x13\x01\x13\x02"s;
  std::string compression_methods = "\x00"s;
  std::optional<std::string> extensions = sni("example.com");  // nothing: no block at all
};

std::string body(const Body& b) {
  std::string bytes = b.version + std::string(32, 'r') + u8(b.session_id.size()) + b.session_id +
                      u16(b.cipher_suites.size()) + b.cipher_suites +
                      u8(b.compression_methods.size()) + b.compression_methods;
  if (b.extensions) bytes += u16(b.extensions->size()) + *b.extensions;
  return bytes;
}

std::string handshake(std::string_view body_bytes, std::size_t type = 1) {
  return u8(type) + u24(body_bytes.size()) + std::string(body_bytes);
}

std::string record(std::string_view fragment, std::string_view version = "\x03\x01") {
  return "\x16"s + std::string(version) + u16(fragment.size()) + std::string(fragment);
}

// HANDSHAKE in records of FRAGMENT bytes (the last one shorter).
std::string records(std::string_view handshake_bytes, std::size_t fragment = 16384) {
  std::string bytes;
  for (std::size_t at = 0; at < handshake_bytes.size(); at += fragment) {
    bytes += record(handshake_bytes.substr(at, fragment));
  }
  return bytes;
}

// HANDSHAKE in exactly COUNT records of near-equal size.
std::string records_of_count(std::string_view handshake_bytes, std::size_t count) {
  std::string bytes;
  std::size_t at = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t size = (handshake_bytes.size() - at) / (count - i);
    bytes += record(handshake_bytes.substr(at, size));
    at += size;
  }
  return bytes;
}

// A whole ClientHello in one record, with these extensions.
std::string hello(const std::string& extensions) {
  Body b;
  b.extensions = extensions;
  return records(handshake(body(b)));
}

std::string hello(const Body& b) { return records(handshake(body(b))); }

// The handshake of a ClientHello with a padding extension that makes the
// handshake message exactly SIZE bytes long.
std::string handshake_of_size(std::size_t size) {
  Body b;
  const std::size_t without = handshake(body(b)).size() + 4;  // padding's own header
  b.extensions = sni("example.com") + extension(21, std::string(size - without, '\0'));
  return handshake(body(b));
}

std::string describe(const ClientHello& hello) {
  return std::to_string(static_cast<int>(hello.status)) + " reason=" + hello.reason +
         " name=" + hello.server_name.value_or("-") + " ech=" + std::to_string(hello.has_ech) +
         " consumed=" + std::to_string(hello.consumed);
}

// Why BYTES are refused, or what else happened.
std::string refusal(std::string_view bytes) {
  const ClientHello result = parse_client_hello(bytes);
  switch (result.status) {
    case HelloStatus::need_more:
      return "need more";
    case HelloStatus::not_tls:
      return "not TLS";
    case HelloStatus::refused:
      return result.reason;
    case HelloStatus::parsed:
      return "parsed " + result.server_name.value_or("without a name");
  }
  return "?";
}

// The incremental contract on every prefix of BYTES.
void expect_prefixes_agree(std::string_view bytes) {
  const std::string whole = describe(parse_client_hello(bytes));
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    const ClientHello prefix = parse_client_hello(bytes.substr(0, size));
    if (prefix.status != HelloStatus::need_more) {
      ASSERT_EQ(describe(prefix), whole) << "prefix of " << size << " bytes";
    }
  }
}

// Need more at every truncation, parsed at the last byte.
void expect_need_more_until_the_end(std::string_view bytes) {
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    ASSERT_EQ(parse_client_hello(bytes.substr(0, size)).status, HelloStatus::need_more) << size;
  }
  const ClientHello whole = parse_client_hello(bytes);
  EXPECT_EQ(whole.status, HelloStatus::parsed) << whole.reason;
  EXPECT_EQ(whole.consumed, bytes.size());
}

TEST(TlsClientHello, CurlsClientHelloNamesItsServer) {
  ASSERT_EQ(kCurl.size(), 517u);
  const ClientHello result = parse_client_hello(kCurl);
  ASSERT_EQ(result.status, HelloStatus::parsed) << result.reason;
  EXPECT_EQ(result.server_name, "example.com");
  EXPECT_FALSE(result.has_ech);
  EXPECT_EQ(result.consumed, kCurl.size());
  expect_need_more_until_the_end(kCurl);
}

TEST(TlsClientHello, OpensslsNameIsLowerCasedWithoutItsTrailingDot) {
  ASSERT_EQ(kOpenssl.size(), 318u);
  const ClientHello result = parse_client_hello(kOpenssl);
  ASSERT_EQ(result.status, HelloStatus::parsed) << result.reason;
  EXPECT_EQ(result.server_name, "example.com");
  EXPECT_EQ(result.consumed, kOpenssl.size());
  expect_need_more_until_the_end(kOpenssl);
}

TEST(TlsClientHello, WhatFollowsTheClientHellosRecordsIsNotConsumed) {
  const std::string change_cipher_spec = "\x14\x03\x03\x00\x01\x01"s;
  const ClientHello result = parse_client_hello(kCurl + change_cipher_spec);
  ASSERT_EQ(result.status, HelloStatus::parsed) << result.reason;
  EXPECT_EQ(result.consumed, kCurl.size());
}

TEST(TlsClientHello, AClientHelloSpreadOverRecordsIsReassembled) {
  const std::string message = kCurl.substr(5);
  for (const std::size_t fragment : {9, 100, 511, 512}) {
    const std::string split = records(message, fragment);
    const ClientHello result = parse_client_hello(split);
    ASSERT_EQ(result.status, HelloStatus::parsed) << fragment << ": " << result.reason;
    EXPECT_EQ(result.server_name, "example.com");
    EXPECT_EQ(result.consumed, split.size());
  }
  // The handshake header itself split: two bytes, then the rest.
  const std::string header_split = record(message.substr(0, 2)) + record(message.substr(2));
  expect_need_more_until_the_end(header_split);
  expect_need_more_until_the_end(records(message, 100));
}

TEST(TlsClientHello, SixtyFourRecordsAreReassembledAndOneMoreIsRefused) {
  const std::string message = kCurl.substr(5);
  const std::string at_limit = records_of_count(message, kMaxClientHelloRecords);
  EXPECT_EQ(refusal(at_limit), "parsed example.com");
  const std::string over = records_of_count(message, kMaxClientHelloRecords + 1);
  EXPECT_EQ(refusal(over), "a ClientHello in more than 64 records");
  EXPECT_EQ(refusal(records(message, 1)), "a ClientHello in more than 64 records");
}

TEST(TlsClientHello, AClientHelloOf64KiBIsReadAndOneByteMoreIsRefused) {
  const std::string at_limit = handshake_of_size(kMaxClientHelloBytes);
  ASSERT_EQ(at_limit.size(), kMaxClientHelloBytes);
  const ClientHello read = parse_client_hello(records(at_limit));
  ASSERT_EQ(read.status, HelloStatus::parsed) << read.reason;
  EXPECT_EQ(read.server_name, "example.com");
  EXPECT_EQ(read.consumed, at_limit.size() + 4 * 5);
  const std::string over = records(handshake_of_size(kMaxClientHelloBytes + 1));
  EXPECT_EQ(refusal(over), "a ClientHello longer than 65536 bytes");
  // Refused once its length field is in, not after 64 KiB of waiting.
  EXPECT_EQ(refusal(over.substr(0, 5 + 4)), "a ClientHello longer than 65536 bytes");
  EXPECT_EQ(refusal(over.substr(0, 5 + 3)), "need more");
}

TEST(TlsClientHello, ARecordOf18432BytesIsReadAndOneByteMoreIsRefused) {
  const std::string at_limit = record(handshake_of_size(kMaxTlsRecordBytes));
  EXPECT_EQ(refusal(at_limit), "parsed example.com");
  const std::string over = record(handshake_of_size(kMaxTlsRecordBytes + 1));
  EXPECT_EQ(refusal(over), "a record longer than 18432 bytes");
  EXPECT_EQ(refusal(over.substr(0, 5)), "a record longer than 18432 bytes");
  EXPECT_EQ(refusal("\x16\x03\x01\x00\x00"s + kCurl), "an empty handshake record");
}

TEST(TlsClientHello, RecordVersionsAreTls10To13) {
  const std::string message = kCurl.substr(5);
  const std::string bad = "a record version other than TLS 1.0 to 1.3";
  EXPECT_EQ(refusal(record(message, "\x03\x00"s)), bad);
  EXPECT_EQ(refusal(record(message, "\x03\x05")), bad);
  EXPECT_EQ(refusal(record(message, "\x02\x03")), bad);
  EXPECT_EQ(refusal(record(message, "\x03\x03")), "parsed example.com");
  EXPECT_EQ(refusal(record(message, "\x03\x04")), "parsed example.com");
}

TEST(TlsClientHello, AFirstByteOtherThanHandshakeIsNotTls) {
  EXPECT_EQ(refusal("GET / HTTP/1.1\r\n"), "not TLS");
  EXPECT_EQ(refusal("\x80\x2e\x01\x03\x01"s), "not TLS");  // an SSLv2-compatible hello
  EXPECT_EQ(refusal("\x17\x03\x03\x00\x10"s), "not TLS");
  EXPECT_EQ(refusal("\x15"s), "not TLS");
  EXPECT_EQ(refusal(""), "need more");
  EXPECT_EQ(refusal("\x16"s), "need more");
}

TEST(TlsClientHello, AnotherRecordTypeBeforeTheClientHelloEndsIsRefused) {
  const std::string message = kCurl.substr(5);
  std::string alert_between = record(message.substr(0, 100));
  alert_between += "\x15\x03\x03"s + u16(message.size() - 100) + message.substr(100);
  EXPECT_EQ(refusal(alert_between), "a record other than a handshake before the ClientHello ended");
}

TEST(TlsClientHello, OnlyAClientHelloIsRead) {
  Body b;
  EXPECT_EQ(refusal(records(handshake(body(b), 2))), "a handshake message other than ClientHello");
  b.version = "\x03\x00"s;
  EXPECT_EQ(refusal(hello(b)), "a ClientHello version other than TLS 1.0 to 1.3");
  b.version = "\x03\x05"s;
  EXPECT_EQ(refusal(hello(b)), "a ClientHello version other than TLS 1.0 to 1.3");
  b.version = "\x03\x01"s;
  EXPECT_EQ(refusal(hello(b)), "parsed example.com");
}

TEST(TlsClientHello, TheFixedFieldsHaveTheirBounds) {
  Body b;
  b.session_id = std::string(32, 's');
  EXPECT_EQ(refusal(hello(b)), "parsed example.com");
  b.session_id = std::string(33, 's');
  EXPECT_EQ(refusal(hello(b)), "a session id longer than 32 bytes");
  b.session_id.clear();
  EXPECT_EQ(refusal(hello(b)), "parsed example.com");
  b.cipher_suites = "\x13\x01\x13"s;
  EXPECT_EQ(refusal(hello(b)), "a cipher suite list empty or of odd length");
  b.cipher_suites.clear();
  EXPECT_EQ(refusal(hello(b)), "a cipher suite list empty or of odd length");
  b.cipher_suites = "\x13\x01"s;
  b.compression_methods.clear();
  EXPECT_EQ(refusal(hello(b)), "no compression method");
}

TEST(TlsClientHello, AFieldPastTheEndOfTheClientHelloIsRefused) {
  // The body: version 2, random 32, session id 1 + 32, cipher suites
  // 2 + 4, compression methods 1 + 1 (75 bytes), then the extensions.
  const std::string full = body(Body{});
  ASSERT_EQ(full.size(), 75u + 2 + 20);
  // A handshake length that cuts the body inside each of its fields.
  for (const std::size_t length : {1, 20, 34, 35, 40, 67, 70, 72, 74}) {
    const std::string message = "\x01"s + u24(length) + full;
    EXPECT_EQ(refusal(record(message)), "a field past the end of the ClientHello") << length;
  }
  // Cut after the compression methods: a ClientHello without extensions,
  // and its record goes on.
  EXPECT_EQ(refusal(record("\x01"s + u24(75) + full)), "bytes after the ClientHello in its record");
  EXPECT_EQ(refusal(record("\x01"s + u24(76) + full)),
            "an extensions length past the end of the ClientHello");
}

TEST(TlsClientHello, WithoutExtensionsOrWithoutServerNameThereIsNoName) {
  Body none;
  none.extensions.reset();
  const ClientHello bare = parse_client_hello(hello(none));
  ASSERT_EQ(bare.status, HelloStatus::parsed) << bare.reason;
  EXPECT_FALSE(bare.server_name);
  const ClientHello unnamed = parse_client_hello(hello(extension(10, "\x00\x02\x00\x1d"s)));
  ASSERT_EQ(unnamed.status, HelloStatus::parsed) << unnamed.reason;
  EXPECT_FALSE(unnamed.server_name);
  EXPECT_EQ(refusal(hello(std::string())), "parsed without a name");
}

TEST(TlsClientHello, EncryptedClientHelloIsReported) {
  const ClientHello result =
      parse_client_hello(hello(sni("public.example") + extension(0xfe0d, "\x00\x01\x02"s)));
  ASSERT_EQ(result.status, HelloStatus::parsed) << result.reason;
  EXPECT_TRUE(result.has_ech);
  EXPECT_EQ(result.server_name, "public.example");
  EXPECT_FALSE(parse_client_hello(kCurl).has_ech);
}

TEST(TlsClientHello, AnExtensionTypeTwiceIsRefused) {
  const std::string twice = "an extension type that appears twice";
  EXPECT_EQ(refusal(hello(sni("a.example") + sni("b.example"))), twice);
  EXPECT_EQ(refusal(hello(extension(10, "") + sni("a.example") + extension(10, ""))), twice);
  EXPECT_EQ(refusal(hello(extension(0xfe0d, "") + extension(0xfe0d, ""))), twice);
}

TEST(TlsClientHello, ExtensionLengthsStayInsideTheirBlock) {
  EXPECT_EQ(refusal(hello(u16(10) + u16(100) + "short"s)),
            "an extension longer than the extensions block");
  EXPECT_EQ(refusal(hello(sni("example.com") + "\x00\x0a\x00"s)),
            "an extension header past the end of the block");
  // The block's own length against the ClientHello's end.
  Body shorter;
  shorter.extensions = sni("example.com");
  std::string bytes = body(shorter);
  bytes += "\x00"s;  // one byte after the block, inside the ClientHello
  EXPECT_EQ(refusal(records(handshake(bytes))),
            "an extensions block that does not end with the ClientHello");
  bytes = body(shorter);
  bytes.pop_back();  // the block says one byte more than there is
  EXPECT_EQ(refusal(records(handshake(bytes))),
            "an extensions block that does not end with the ClientHello");
  Body one_byte;
  one_byte.extensions.reset();
  bytes = body(one_byte) + "\x00"s;
  EXPECT_EQ(refusal(records(handshake(bytes))),
            "an extensions length past the end of the ClientHello");
}

TEST(TlsClientHello, TheServerNameListHoldsExactlyOneHostName) {
  const std::string name = "example.com";
  EXPECT_EQ(refusal(hello(extension(0, ""))), "a server_name field past the end of its extension");
  EXPECT_EQ(refusal(hello(extension(0, "\x00"s))),
            "a server_name field past the end of its extension");
  // The list's length past its extension, and short of it.
  EXPECT_EQ(refusal(hello(extension(0, u16(name.size() + 4) + u8(0) + u16(name.size()) + name))),
            "a server name list that does not fill its extension");
  EXPECT_EQ(refusal(hello(extension(0, server_name_data(name) + "x"))),
            "a server name list that does not fill its extension");
  EXPECT_EQ(refusal(hello(extension(0, u16(2) + "\x00\x00"s))),
            "a server_name field past the end of its extension");
  // The name's length past its list, and short of it.
  EXPECT_EQ(
      refusal(hello(extension(0, u16(name.size() + 3) + u8(0) + u16(name.size() + 1) + name))),
      "a server name longer than its list");
  const std::string two = u8(0) + u16(1) + "a" + u8(0) + u16(1) + "b";
  EXPECT_EQ(refusal(hello(extension(0, u16(two.size()) + two))), "more than one server name");
  EXPECT_EQ(refusal(hello(extension(0, u16(name.size() + 3) + u8(1) + u16(name.size()) + name))),
            "a server name that is not a host_name");
  EXPECT_EQ(refusal(hello(sni(""))), "an empty server name");
}

TEST(TlsClientHello, TheServerNameIsAHostname) {
  const std::string bad = "a server name that is not a hostname";
  EXPECT_EQ(refusal(hello(sni("Example.COM."))), "parsed example.com");
  EXPECT_EQ(refusal(hello(sni("example.com\0"s))), bad);
  EXPECT_EQ(refusal(hello(sni("example.com\0evil.example"s))), bad);
  EXPECT_EQ(refusal(hello(sni("exa mple.com"))), bad);
  EXPECT_EQ(refusal(hello(sni("a..b"))), bad);
  EXPECT_EQ(refusal(hello(sni("example.com.."))), bad);
  EXPECT_EQ(refusal(hello(sni("2130706433"))), bad);
  EXPECT_EQ(refusal(hello(sni(std::string(64, 'a') + ".example"))), bad);
  EXPECT_EQ(refusal(hello(sni("127.0.0.1"))), "an IP address as the server name");
  EXPECT_EQ(refusal(hello(sni("::1"))), "an IP address as the server name");
  EXPECT_EQ(refusal(hello(sni("b\xc3\xbc"
                              "cher.example"))),
            "a server name that is not ASCII");
}

TEST(TlsClientHello, ServerNamesUpTo255BytesAreReadAndLongerOnesRefusedUnread) {
  const std::string label(63, 'a');
  const std::string longest = label + "." + label + "." + label + "." + std::string(61, 'b');
  const ClientHello result = parse_client_hello(hello(sni(longest + ".")));
  ASSERT_EQ(result.status, HelloStatus::parsed) << result.reason;
  EXPECT_EQ(result.server_name, longest);
  EXPECT_EQ(refusal(hello(sni(std::string(255, 'a')))), "a server name that is not a hostname");
  EXPECT_EQ(refusal(hello(sni(std::string(256, 'a')))), "a server name longer than 255 bytes");
}

TEST(TlsClientHello, NothingMayFollowTheClientHelloInItsRecord) {
  const std::string message = kCurl.substr(5) + "\x16\x03\x03\x00\x00"s;
  EXPECT_EQ(refusal(record(message)), "bytes after the ClientHello in its record");
  // Decided without waiting for those bytes: the record's length says so.
  const std::string whole = record(message);
  EXPECT_EQ(refusal(whole.substr(0, kCurl.size())), "bytes after the ClientHello in its record");
}

TEST(TlsClientHello, AVerdictOnAPrefixIsTheVerdictOnTheWhole) {
  const std::string message = kCurl.substr(5);
  const std::vector<std::string> inputs = {
      kCurl,
      kOpenssl,
      kCurl + "\x14\x03\x03\x00\x01\x01"s,
      records(message, 7),
      records_of_count(message, kMaxClientHelloRecords + 1),
      record(message + "x"),
      hello(sni("a.example") + sni("b.example")),
      hello(u16(10) + u16(100) + "short"s),
      hello(sni("a..b")),
      hello(extension(0, u16(2) + "\x00\x00"s)),
      hello(sni("public.example") + extension(0xfe0d, "\x00"s)),
      "GET / HTTP/1.1\r\n"s,
      record(message, "\x03\x00"s),
  };
  for (const std::string& input : inputs) expect_prefixes_agree(input);
}

}  // namespace client_hello_test
}  // namespace holdfast::network
