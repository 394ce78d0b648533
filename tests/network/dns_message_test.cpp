// DNS queries as the launch's DNS stub reads them and the answers it
// builds: real queries from glibc's resolver, hand-built ones for each
// refusal, every truncation of a valid query, the limits at and one past
// their bounds, the TCP framing's incremental contract, and the answers
// read back by a decoder of their own.
#include "launcher/network/dns_message.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tests/network/hex_bytes.hpp"

namespace holdfast::network {
// Helpers and tests both in a named namespace: a unity build compiles this
// file in one unit with the suite's other files, which have helpers of the
// same names.
namespace dns_message_test {

using namespace std::string_literals;

// Captured from glibc 2.36 (Debian 12), getent in a private mount
// namespace whose /etc/resolv.conf said "nameserver 127.0.0.1" and
// "options timeout:1 attempts:1" plus the options named below, against a
// python3 listener on 127.0.0.1:53 (UDP and TCP) that recorded each
// message and answered REFUSED:
//   unshare -m sh -c 'mount --bind my-resolv.conf /etc/resolv.conf &&
//                     getent ahosts example.com'
// No options: A and AAAA sent together, RD set, no EDNS.
const std::string kGlibcA =
    testing::bytes_from_hex("d12d01000001000000000000076578616d706c6503636f6d0000010001");
const std::string kGlibcAaaa =
    testing::bytes_from_hex("ff2801000001000000000000076578616d706c6503636f6d00001c0001");
// "options edns0", getent ahosts Example.COM: the name as typed, an OPT
// record offering 1200 bytes.
const std::string kGlibcEdnsA = testing::bytes_from_hex(
    "621b01000001000000000001074578616d706c6503434f4d000001000100002904b0000000000000");
// "options edns0 trust-ad", getent ahostsv6 ipv6.example.: AD set (0x20).
const std::string kGlibcTrustAdAaaa = testing::bytes_from_hex(
    "1ba3012000010000000000010469707636076578616d706c6500001c000100002904b0000000000000");
// "options use-vc", getent ahostsv4 example.net: over TCP, with its
// 2-byte length prefix (0x001d).
const std::string kGlibcTcpA =
    testing::bytes_from_hex("001d60bd01000001000000000000076578616d706c65036e65740000010001");

std::string wire_name(std::string_view dotted) {
  std::string bytes;
  std::size_t start = 0;
  while (start < dotted.size()) {
    const std::size_t end = std::min(dotted.find('.', start), dotted.size());
    bytes += static_cast<char>(end - start);
    bytes += dotted.substr(start, end - start);
    start = end + 1;
  }
  return bytes + '\0';
}

void put_u16(std::string& out, std::uint16_t value) {
  out += static_cast<char>(value >> 8);
  out += static_cast<char>(value & 0xff);
}

std::string opt_record(std::uint16_t udp_size = 1232, std::uint8_t version = 0,
                       const std::string& options = "") {
  std::string bytes = "\x00\x00\x29"s;
  put_u16(bytes, udp_size);
  bytes += "\x00"s + static_cast<char>(version) + "\x00\x00"s;
  put_u16(bytes, static_cast<std::uint16_t>(options.size()));
  return bytes + options;
}

// A query, every field settable; by default example.com A with RD.
struct QueryBytes {
  std::uint16_t id = 0x1234;
  std::uint8_t flags = 0x01;  // QR, OPCODE, AA, TC, RD
  std::uint8_t flags2 = 0x00;
  std::uint16_t qdcount = 1, ancount = 0, nscount = 0, arcount = 0;
  std::string qname = wire_name("example.com");
  std::uint16_t qtype = kDnsTypeA;
  std::uint16_t qclass = kDnsClassIn;
  std::string after;  // the additional records and anything else

  std::string bytes() const {
    std::string out;
    put_u16(out, id);
    out += static_cast<char>(flags);
    out += static_cast<char>(flags2);
    put_u16(out, qdcount);
    put_u16(out, ancount);
    put_u16(out, nscount);
    put_u16(out, arcount);
    out += qname;
    put_u16(out, qtype);
    put_u16(out, qclass);
    return out + after;
  }
};

QueryBytes with_edns(std::uint16_t udp_size = 1232) {
  QueryBytes q;
  q.arcount = 1;
  q.after = opt_record(udp_size);
  return q;
}

DnsQuery udp(std::string_view bytes) { return parse_dns_query(bytes, DnsTransport::udp); }

// Why a query is refused, or "parsed".
std::string refusal(std::string_view bytes) {
  const DnsQuery query = udp(bytes);
  return query.status == DnsStatus::refused ? query.reason : "parsed";
}

// An answer read back independently of the code that built it.
struct Record {
  std::string name;  // hex: "c00c" for the pointer, "00" for the root
  std::uint16_t type = 0, klass = 0;
  std::uint32_t ttl = 0;
  std::string data;
};

struct Decoded {
  std::uint16_t id = 0;
  std::uint8_t flags = 0, flags2 = 0;
  std::string question;
  std::vector<Record> answers, additional;
  std::optional<std::string> error;
};

Decoded decode(std::string_view m) {
  Decoded d;
  std::size_t at = 0;
  const auto need = [&](std::size_t n) {
    if (m.size() - at < n) d.error = "short at " + std::to_string(at);
    return !d.error;
  };
  const auto u16 = [&] {
    const auto v = static_cast<std::uint16_t>(static_cast<unsigned char>(m[at]) << 8 |
                                              static_cast<unsigned char>(m[at + 1]));
    at += 2;
    return v;
  };
  if (!need(12)) return d;
  d.id = u16();
  d.flags = static_cast<std::uint8_t>(m[2]);
  d.flags2 = static_cast<std::uint8_t>(m[3]);
  at = 4;
  const std::uint16_t qd = u16(), an = u16(), ns = u16(), ar = u16();
  if (qd > 1 || ns != 0) d.error = "counts";
  if (qd == 1) {
    const std::size_t start = at;
    while (need(1) && m[at] != 0) at += 1 + static_cast<unsigned char>(m[at]);
    if (!need(5)) return d;
    at += 5;
    d.question = m.substr(start, at - start);
  }
  const auto record = [&] {
    Record r;
    if (!need(1)) return r;
    const std::size_t name_length = (static_cast<unsigned char>(m[at]) & 0xc0) == 0xc0 ? 2 : 1;
    if (!need(name_length + 10)) return r;
    r.name = testing::hex_of(m.substr(at, name_length));
    at += name_length;
    r.type = u16();
    r.klass = u16();
    r.ttl = std::uint32_t{u16()} << 16;
    r.ttl |= u16();
    const std::size_t length = u16();
    if (!need(length)) return r;
    r.data = m.substr(at, length);
    at += length;
    return r;
  };
  for (int i = 0; i < an && !d.error; ++i) d.answers.push_back(record());
  for (int i = 0; i < ar && !d.error; ++i) d.additional.push_back(record());
  if (!d.error && at != m.size()) d.error = "trailing bytes";
  return d;
}

std::string data_of(std::string_view literal) {
  const Address address = *parse_ip_literal(literal);
  return std::string(reinterpret_cast<const char*>(address.bytes.data()),
                     address.family == Family::ipv4 ? 4 : 16);
}

const std::vector<Address> kAddresses = {
    *parse_ip_literal("93.184.215.14"), *parse_ip_literal("2606:2800:21f:cb07:6820:80da:af6b:8b2c"),
    *parse_ip_literal("93.184.215.15")};

TEST(DnsQuery, GlibcsQueriesForAAndAaaaAreParsed) {
  for (const std::string& bytes : {kGlibcA, kGlibcAaaa}) {
    const DnsQuery query = udp(bytes);
    ASSERT_EQ(query.status, DnsStatus::done) << query.reason;
    EXPECT_TRUE(query.answerable);
    EXPECT_TRUE(query.recursion_desired);
    EXPECT_EQ(query.name, "example.com");
    EXPECT_EQ(query.qclass, kDnsClassIn);
    EXPECT_FALSE(query.edns_udp_size);
    EXPECT_EQ(query.answer_limit, 512u);
    EXPECT_EQ(query.question, bytes.substr(12));
  }
  EXPECT_EQ(udp(kGlibcA).id, 0xd12d);
  EXPECT_EQ(udp(kGlibcA).qtype, kDnsTypeA);
  EXPECT_EQ(udp(kGlibcAaaa).id, 0xff28);
  EXPECT_EQ(udp(kGlibcAaaa).qtype, kDnsTypeAaaa);
}

TEST(DnsQuery, GlibcsEdnsQueryOffersItsPayloadSizeAndKeepsItsCase) {
  const DnsQuery query = udp(kGlibcEdnsA);
  ASSERT_EQ(query.status, DnsStatus::done) << query.reason;
  EXPECT_EQ(query.name, "example.com");
  EXPECT_EQ(query.edns_udp_size, 1200);
  EXPECT_EQ(query.answer_limit, 1200u);
  // Echoed as received: a resolver that randomises case compares it.
  EXPECT_EQ(query.question, wire_name("Example.COM") + "\x00\x01\x00\x01"s);
}

TEST(DnsQuery, TheAdBitOfAQueryIsIgnored) {
  const DnsQuery query = udp(kGlibcTrustAdAaaa);
  ASSERT_EQ(query.status, DnsStatus::done) << query.reason;
  EXPECT_EQ(query.name, "ipv6.example");
  EXPECT_EQ(query.qtype, kDnsTypeAaaa);
  const Decoded answer = decode(dns_answer_addresses(query, kAddresses, 60));
  ASSERT_FALSE(answer.error) << *answer.error;
  EXPECT_EQ(answer.flags2, 0x80);  // RA, no AD, NOERROR
}

TEST(DnsQuery, GlibcsTcpQueryIsFramedThenParsed) {
  const DnsTcpFrame frame = read_dns_tcp_frame(kGlibcTcpA);
  ASSERT_EQ(frame.status, DnsStatus::done) << frame.reason;
  EXPECT_EQ(frame.length, 29u);
  EXPECT_EQ(frame.consumed, kGlibcTcpA.size());
  for (std::size_t size = 0; size < kGlibcTcpA.size(); ++size) {
    ASSERT_EQ(read_dns_tcp_frame(kGlibcTcpA.substr(0, size)).status, DnsStatus::need_more) << size;
  }
  const DnsQuery query = parse_dns_query(kGlibcTcpA.substr(2, frame.length), DnsTransport::tcp);
  ASSERT_EQ(query.status, DnsStatus::done) << query.reason;
  EXPECT_EQ(query.name, "example.net");
  EXPECT_EQ(query.answer_limit, kDnsTcpMessageBytes);
  // Pipelined: the next message starts at CONSUMED.
  const std::string two = kGlibcTcpA + kGlibcTcpA;
  EXPECT_EQ(read_dns_tcp_frame(two).consumed, kGlibcTcpA.size());
  EXPECT_EQ(read_dns_tcp_frame(std::string_view(two).substr(frame.consumed)).consumed,
            kGlibcTcpA.size());
}

TEST(DnsQuery, TheTcpLengthIsJudgedAsSoonAsItIsIn) {
  const auto reason = [](const std::string& bytes) { return read_dns_tcp_frame(bytes).reason; };
  EXPECT_EQ(reason("\x00\x00"s), "a message shorter than a DNS header");
  EXPECT_EQ(reason("\x00\x0b"s), "a message shorter than a DNS header");
  EXPECT_EQ(reason("\x10\x01"s), "a message longer than 4096 bytes");
  EXPECT_EQ(reason("\xff\xff"s + std::string(100, 'a')), "a message longer than 4096 bytes");
  EXPECT_EQ(read_dns_tcp_frame("\x10\x00"s).status, DnsStatus::need_more);
  const std::string longest = "\x10\x00"s + std::string(4096, '\0');
  EXPECT_EQ(read_dns_tcp_frame(longest).status, DnsStatus::done);
  EXPECT_EQ(read_dns_tcp_frame(longest.substr(0, 4097)).status, DnsStatus::need_more);
  EXPECT_EQ(read_dns_tcp_frame("\x00\x0c"s + std::string(12, '\0')).consumed, 14u);
  EXPECT_EQ(testing::hex_of(dns_tcp_framed("\x01\x02\x03"s)), "0003010203");
}

TEST(DnsQuery, AHeaderIsAQueryOfOneQuestion) {
  QueryBytes response;
  response.flags = 0x81;
  EXPECT_EQ(refusal(response.bytes()), "a response, not a query");
  EXPECT_FALSE(udp(response.bytes()).answerable);
  EXPECT_EQ(dns_answer(udp(response.bytes()), DnsRcode::formerr), "");
  EXPECT_EQ(refusal("\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00"s), "shorter than a DNS header");
  EXPECT_FALSE(udp("\x12\x34"s).answerable);

  QueryBytes status;  // OPCODE 2
  status.flags = 0x11;
  EXPECT_EQ(refusal(status.bytes()), "an OPCODE other than QUERY");
  EXPECT_EQ(udp(status.bytes()).rcode, DnsRcode::notimp);
  for (const std::uint16_t count : {0, 2, 0xffff}) {
    QueryBytes q;
    q.qdcount = count;
    EXPECT_EQ(refusal(q.bytes()), "a question count other than 1") << count;
  }
  QueryBytes answer;
  answer.ancount = 1;
  EXPECT_EQ(refusal(answer.bytes()), "answer or authority records in a query");
  QueryBytes authority;
  authority.nscount = 1;
  EXPECT_EQ(refusal(authority.bytes()), "answer or authority records in a query");
  QueryBytes two_additional = with_edns();
  two_additional.arcount = 2;
  two_additional.after += opt_record();
  EXPECT_EQ(refusal(two_additional.bytes()), "more than one additional record");
  // TC, AA, Z, AD and CD in a query change nothing.
  QueryBytes bits;
  bits.flags = 0x07;
  bits.flags2 = 0x70;
  EXPECT_EQ(refusal(bits.bytes()), "parsed");
}

TEST(DnsQuery, RefusalsBeforeTheQuestionGetTheirCodeInAHeaderAlone) {
  QueryBytes q;
  q.qdcount = 2;
  const DnsQuery query = udp(q.bytes());
  EXPECT_TRUE(query.answerable);
  EXPECT_EQ(query.rcode, DnsRcode::formerr);
  EXPECT_EQ(query.question, "");
  // ID 1234, QR and RD, RA and FORMERR, no records.
  EXPECT_EQ(testing::hex_of(dns_answer(query, query.rcode)), "123481810000000000000000");
  EXPECT_EQ(testing::hex_of(dns_answer_addresses(query, kAddresses, 60)),
            "123481810000000000000000");
  QueryBytes status;
  status.flags = 0x10;  // OPCODE 2, no RD: the answer's OPCODE is 0
  EXPECT_EQ(testing::hex_of(dns_answer(udp(status.bytes()), DnsRcode::notimp)),
            "123480840000000000000000");
}

TEST(DnsQuery, TheQuestionsNameIsLabelsWithoutCompression) {
  QueryBytes pointer;
  pointer.qname =
      "\x07"
      "example\xc0\x0c"s;
  EXPECT_EQ(refusal(pointer.bytes()), "a compression pointer in the question's name");
  pointer.qname = "\xc0\x0c"s;
  EXPECT_EQ(refusal(pointer.bytes()), "a compression pointer in the question's name");
  QueryBytes extended;  // label types 01 and 10
  extended.qname = "\x41"s + std::string(65, 'a') + '\0';
  EXPECT_EQ(refusal(extended.bytes()), "a label longer than 63 bytes");
  extended.qname = "\x80\x00"s;
  EXPECT_EQ(refusal(extended.bytes()), "a label longer than 63 bytes");

  QueryBytes label;
  label.qname = wire_name(std::string(63, 'a') + ".com");
  EXPECT_EQ(udp(label.bytes()).name, std::string(63, 'a') + ".com");
  label.qname = wire_name(std::string(64, 'a') + ".com");
  EXPECT_EQ(refusal(label.bytes()), "a label longer than 63 bytes");

  // Four labels: 64 + 64 + 64 + 62 + the root's 0 = 255 bytes.
  const std::string l63(63, 'a');
  QueryBytes longest;
  longest.qname = wire_name(l63 + "." + l63 + "." + l63 + "." + std::string(61, 'b'));
  ASSERT_EQ(longest.qname.size(), 255u);
  const DnsQuery query = udp(longest.bytes());
  ASSERT_EQ(query.status, DnsStatus::done) << query.reason;
  EXPECT_EQ(query.name->size(), 253u);
  QueryBytes too_long;
  too_long.qname = wire_name(l63 + "." + l63 + "." + l63 + "." + std::string(62, 'b'));
  ASSERT_EQ(too_long.qname.size(), 256u);
  EXPECT_EQ(refusal(too_long.bytes()), "a name longer than 255 bytes");
  // Judged before the label's bytes are read.
  EXPECT_EQ(refusal(too_long.bytes().substr(0, 12 + 193)), "a name longer than 255 bytes");
}

TEST(DnsQuery, ANameThatIsNoHostnameIsParsedWithoutAName) {
  const auto name_of = [](const std::string& qname) {
    QueryBytes q;
    q.qname = qname;
    const DnsQuery query = udp(q.bytes());
    EXPECT_EQ(query.status, DnsStatus::done) << query.reason;
    EXPECT_FALSE(query.question.empty());
    return query.name;
  };
  EXPECT_EQ(name_of(wire_name("WWW.Example.Com")), "www.example.com");
  EXPECT_EQ(name_of(wire_name("_dmarc.example.com")), "_dmarc.example.com");
  EXPECT_EQ(name_of(wire_name("1.0.0.127.in-addr.arpa")), "1.0.0.127.in-addr.arpa");
  // One label "example.com": joined it would read as the allowed name.
  EXPECT_EQ(name_of("\x0b"
                    "example.com\x00"s),
            std::nullopt);
  EXPECT_EQ(name_of("\x0b"
                    "example\x00"
                    "com\x00"s),
            std::nullopt);
  EXPECT_EQ(name_of("\x08"
                    "ex ample\x03"
                    "com\x00"s),
            std::nullopt);
  EXPECT_EQ(name_of("\x07"
                    "b\xc3\xbc"
                    "cher\x07"
                    "example\x00"s),
            std::nullopt);
  EXPECT_EQ(name_of(wire_name("-a.example")), std::nullopt);
  EXPECT_EQ(name_of(wire_name("127.0.0.1")), std::nullopt);
  EXPECT_EQ(name_of(wire_name("2130706433")), std::nullopt);
  EXPECT_EQ(name_of("\x00"s), std::nullopt);  // the root
}

TEST(DnsQuery, TheClassIsInAndZoneTransfersAreRefused) {
  QueryBytes chaos;  // dig @stub version.bind CH TXT
  chaos.qname = wire_name("version.bind");
  chaos.qtype = 16;
  chaos.qclass = 3;
  const DnsQuery query = udp(chaos.bytes());
  EXPECT_EQ(query.reason, "a class other than IN");
  EXPECT_EQ(query.rcode, DnsRcode::refused);
  const Decoded answer = decode(dns_answer(query, query.rcode));
  ASSERT_FALSE(answer.error) << *answer.error;
  EXPECT_EQ(answer.question, chaos.bytes().substr(12));
  EXPECT_EQ(answer.flags2 & 0x0f, 5);
  EXPECT_TRUE(answer.answers.empty());
  QueryBytes any_class;
  any_class.qclass = 255;
  EXPECT_EQ(udp(any_class.bytes()).rcode, DnsRcode::refused);

  for (const std::uint16_t type : {kDnsTypeAxfr, kDnsTypeIxfr}) {
    QueryBytes transfer;
    transfer.qtype = type;
    EXPECT_EQ(refusal(transfer.bytes()), "a zone transfer");
    EXPECT_EQ(udp(transfer.bytes()).rcode, DnsRcode::refused);
  }
  QueryBytes opt;
  opt.qtype = kDnsTypeOpt;
  EXPECT_EQ(refusal(opt.bytes()), "the OPT type asked as a question");
}

TEST(DnsQuery, TheOnlyAdditionalRecordIsAnEdnsOpt) {
  QueryBytes named = with_edns();
  named.after = wire_name("example.com").substr(0, 8) + "\x00" + named.after.substr(1);
  EXPECT_EQ(refusal(named.bytes()), "an additional record other than an EDNS OPT");
  QueryBytes tsig = with_edns();
  tsig.after[2] = static_cast<char>(250);  // TSIG, owned by the root
  EXPECT_EQ(refusal(tsig.bytes()), "an additional record other than an EDNS OPT");
  QueryBytes a_record = with_edns();
  a_record.after = "\x00\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04\x7f\x00\x00\x01"s;
  EXPECT_EQ(refusal(a_record.bytes()), "an additional record other than an EDNS OPT");
  QueryBytes version = with_edns();
  version.after = opt_record(1232, 1);
  EXPECT_EQ(refusal(version.bytes()), "an EDNS version other than 0");
  // The options must fill the record exactly: a cookie (10) of 8 bytes,
  // then padding (12) of 0.
  const std::string cookie = "\x00\x0a\x00\x08"s + "\x01\x02\x03\x04\x05\x06\x07\x08"s;
  QueryBytes options = with_edns();
  options.after = opt_record(1232, 0, cookie + "\x00\x0c\x00\x00"s);
  EXPECT_EQ(refusal(options.bytes()), "parsed");
  options.after = opt_record(1232, 0, cookie.substr(0, 11));
  EXPECT_EQ(refusal(options.bytes()), "an EDNS option longer than its record");
  options.after = opt_record(1232, 0, "\x00\x0c\x00"s);
  EXPECT_EQ(refusal(options.bytes()), "an EDNS option longer than its record");
  QueryBytes missing = with_edns();
  missing.after = "";
  EXPECT_EQ(refusal(missing.bytes()), "the message ends inside a record");
}

TEST(DnsQuery, TheAnswerLimitFollowsTheOfferedSizeWithinItsBounds) {
  EXPECT_EQ(udp(with_edns(1232).bytes()).answer_limit, 1232u);
  EXPECT_EQ(udp(with_edns(4096).bytes()).answer_limit, 1232u);
  EXPECT_EQ(udp(with_edns(65535).bytes()).answer_limit, 1232u);
  EXPECT_EQ(udp(with_edns(100).bytes()).answer_limit, 512u);  // RFC 6891: below 512 is 512
  EXPECT_EQ(udp(with_edns(100).bytes()).edns_udp_size, 100);
  EXPECT_EQ(udp(with_edns(600).bytes()).answer_limit, 600u);
  EXPECT_EQ(parse_dns_query(with_edns(600).bytes(), DnsTransport::tcp).answer_limit, 65535u);
}

TEST(DnsQuery, BytesAfterTheRecordsAreRefused) {
  EXPECT_EQ(refusal(kGlibcA + "\x00"s), "bytes after the records");
  EXPECT_EQ(refusal(kGlibcEdnsA + "junk"), "bytes after the records");
  // An OPT record the header does not count is trailing junk too.
  EXPECT_EQ(refusal(kGlibcA + opt_record()), "bytes after the records");
  const DnsQuery query = udp(kGlibcA + "\x00"s);
  EXPECT_EQ(query.rcode, DnsRcode::formerr);
  // The question was read: the FORMERR echoes it.
  EXPECT_EQ(decode(dns_answer(query, query.rcode)).question, kGlibcA.substr(12));
}

TEST(DnsQuery, AUdpPayloadOver4096BytesIsRefused) {
  QueryBytes padded = with_edns();
  // A padding option brings the query to exactly 4096 bytes.
  const std::size_t base = padded.bytes().size() + 4;
  std::string padding = "\x00\x0c"s;
  put_u16(padding, static_cast<std::uint16_t>(4096 - base));
  padding += std::string(4096 - base, '\0');
  padded.after = opt_record(1232, 0, padding);
  ASSERT_EQ(padded.bytes().size(), 4096u);
  EXPECT_EQ(refusal(padded.bytes()), "parsed");
  padding += '\0';
  padding[3] = static_cast<char>(padding[3] + 1);
  padded.after = opt_record(1232, 0, padding);
  ASSERT_EQ(padded.bytes().size(), 4097u);
  EXPECT_EQ(refusal(padded.bytes()), "longer than 4096 bytes");
  EXPECT_EQ(refusal(kGlibcA + std::string(5000, '\0')), "longer than 4096 bytes");
}

TEST(DnsQuery, NoTruncationOfAValidQueryParses) {
  QueryBytes with_options = with_edns();
  with_options.after = opt_record(1232, 0, "\x00\x0a\x00\x08"s + "abcdefgh" + "\x00\x0c\x00\x00"s);
  for (const std::string& bytes :
       {kGlibcA, kGlibcAaaa, kGlibcEdnsA, kGlibcTrustAdAaaa, with_options.bytes()}) {
    ASSERT_EQ(refusal(bytes), "parsed");
    for (std::size_t size = 0; size < bytes.size(); ++size) {
      const DnsQuery query = udp(bytes.substr(0, size));
      EXPECT_EQ(query.status, DnsStatus::refused) << testing::hex_of(bytes) << " cut at " << size;
      // The fault is where the bytes end, not what a read past them found.
      EXPECT_EQ(query.reason,
                size < 12 ? "shorter than a DNS header" : "the message ends inside a record")
          << size;
      EXPECT_EQ(query.rcode, DnsRcode::formerr) << size;
      EXPECT_EQ(query.answerable, size >= 12) << size;
    }
  }
}

TEST(DnsAnswer, AddressesOfTheAskedFamilyWithTheIdRdQuestionAndTtl) {
  const DnsQuery a = udp(kGlibcA);
  const Decoded answer = decode(dns_answer_addresses(a, kAddresses, 300));
  ASSERT_FALSE(answer.error) << *answer.error;
  EXPECT_EQ(answer.id, 0xd12d);
  EXPECT_EQ(answer.flags, 0x81);   // QR, OPCODE 0, AA 0, TC 0, RD
  EXPECT_EQ(answer.flags2, 0x80);  // RA, NOERROR
  EXPECT_EQ(answer.question, kGlibcA.substr(12));
  ASSERT_EQ(answer.answers.size(), 2u);  // the IPv6 one skipped
  for (const Record& record : answer.answers) {
    EXPECT_EQ(record.name, "c00c");
    EXPECT_EQ(record.type, kDnsTypeA);
    EXPECT_EQ(record.klass, kDnsClassIn);
    EXPECT_EQ(record.ttl, 300u);
  }
  EXPECT_EQ(answer.answers[0].data, data_of("93.184.215.14"));
  EXPECT_EQ(answer.answers[1].data, data_of("93.184.215.15"));
  EXPECT_TRUE(answer.additional.empty());

  const Decoded aaaa = decode(dns_answer_addresses(udp(kGlibcAaaa), kAddresses, 0));
  ASSERT_FALSE(aaaa.error) << *aaaa.error;
  ASSERT_EQ(aaaa.answers.size(), 1u);
  EXPECT_EQ(aaaa.answers[0].type, kDnsTypeAaaa);
  EXPECT_EQ(aaaa.answers[0].ttl, 0u);
  EXPECT_EQ(aaaa.answers[0].data, data_of("2606:2800:21f:cb07:6820:80da:af6b:8b2c"));
}

TEST(DnsAnswer, ASimpleAnswerIsExactlyTheseBytes) {
  QueryBytes q;
  q.qname = wire_name("a.b");
  EXPECT_EQ(
      testing::hex_of(dns_answer_addresses(udp(q.bytes()), std::span(kAddresses).first(1), 60)),
      "1234"
      "8180"
      "0001000100000000"
      "0161016200"
      "00010001"
      "c00c000100010000003c00045db8d70e");
}

TEST(DnsAnswer, AnyGetsBothFamiliesAndOtherTypesGetNoData) {
  QueryBytes any;
  any.qtype = kDnsTypeAny;
  const Decoded both = decode(dns_answer_addresses(udp(any.bytes()), kAddresses, 60));
  ASSERT_FALSE(both.error) << *both.error;
  ASSERT_EQ(both.answers.size(), 3u);
  EXPECT_EQ(both.answers[1].type, kDnsTypeAaaa);

  for (const std::uint16_t type : {16, 15, 65, 64, 12, 5}) {  // TXT MX HTTPS SVCB PTR CNAME
    QueryBytes other;
    other.qtype = type;
    const std::string bytes = dns_answer_addresses(udp(other.bytes()), kAddresses, 60);
    const Decoded nodata = decode(bytes);
    ASSERT_FALSE(nodata.error) << *nodata.error;
    EXPECT_EQ(nodata.flags2, 0x80) << type;
    EXPECT_TRUE(nodata.answers.empty()) << type;
    EXPECT_EQ(nodata.question, other.bytes().substr(12));
    EXPECT_EQ(bytes, dns_answer(udp(other.bytes()), DnsRcode::noerror));
  }
  // No address of the family: NODATA too.
  const Decoded none =
      decode(dns_answer_addresses(udp(kGlibcAaaa), std::span(kAddresses).first(1), 60));
  EXPECT_FALSE(none.error);
  EXPECT_TRUE(none.answers.empty());
}

TEST(DnsAnswer, AnAddressListedTwiceIsSentOnceAndTheTtlIsCapped) {
  const std::vector<Address> twice = {kAddresses[0], kAddresses[0], kAddresses[2], kAddresses[0]};
  const Decoded answer = decode(dns_answer_addresses(udp(kGlibcA), twice, 0xffffffff));
  ASSERT_FALSE(answer.error) << *answer.error;
  ASSERT_EQ(answer.answers.size(), 2u);
  EXPECT_EQ(answer.answers[0].ttl, kMaxDnsTtl);
}

TEST(DnsAnswer, AnswersThatDoNotFitAreDroppedAndTruncatedForTcp) {
  std::vector<Address> many;
  for (int i = 0; i < 40; ++i) {
    many.push_back(*parse_ip_literal("2001:db8::" + std::to_string(i + 1)));
  }
  // 12 + 17 + 40 * 28 = 1149 bytes: more than 512.
  const std::string dropped = dns_answer_addresses(udp(kGlibcAaaa), many, 60);
  const Decoded truncated = decode(dropped);
  ASSERT_FALSE(truncated.error) << *truncated.error;
  EXPECT_EQ(truncated.flags, 0x83);  // QR, TC, RD
  EXPECT_TRUE(truncated.answers.empty());
  EXPECT_EQ(truncated.question, kGlibcAaaa.substr(12));
  EXPECT_LE(dropped.size(), 512u);
  // 18 of them fit in 512: 12 + 17 + 18 * 28 = 533 does not, 17 do.
  EXPECT_EQ(
      decode(dns_answer_addresses(udp(kGlibcAaaa), std::span(many).first(17), 60)).answers.size(),
      17u);
  EXPECT_EQ(decode(dns_answer_addresses(udp(kGlibcAaaa), std::span(many).first(18), 60)).flags,
            0x83);
  // With EDNS offering 1232 (1160 bytes with the OPT) and over TCP they fit.
  QueryBytes edns = with_edns();
  edns.qtype = kDnsTypeAaaa;
  const std::string fits = dns_answer_addresses(udp(edns.bytes()), many, 60);
  EXPECT_EQ(fits.size(), 12 + 17 + 40 * 28 + 11u);
  EXPECT_EQ(decode(fits).answers.size(), 40u);
  const std::string tcp =
      dns_answer_addresses(parse_dns_query(kGlibcAaaa, DnsTransport::tcp), many, 60);
  EXPECT_EQ(decode(tcp).answers.size(), 40u);
  EXPECT_EQ(decode(tcp).flags, 0x81);
}

TEST(DnsAnswer, AnOptRecordIffTheQueryHadOne) {
  const std::vector<DnsRcode> rcodes = {DnsRcode::noerror,  DnsRcode::formerr, DnsRcode::servfail,
                                        DnsRcode::nxdomain, DnsRcode::notimp,  DnsRcode::refused};
  for (const std::string& bytes : {kGlibcA, kGlibcEdnsA, kGlibcTrustAdAaaa}) {
    ASSERT_EQ(udp(bytes).question.size(), bytes.size() - 12 - (bytes == kGlibcA ? 0 : 11));
    const DnsQuery query = udp(bytes);
    const bool edns = query.edns_udp_size.has_value();
    std::vector<std::string> answers = {dns_answer_addresses(query, kAddresses, 60)};
    for (const DnsRcode rcode : rcodes) answers.push_back(dns_answer(query, rcode));
    for (std::size_t i = 0; i < answers.size(); ++i) {
      const Decoded answer = decode(answers[i]);
      ASSERT_FALSE(answer.error) << *answer.error;
      EXPECT_EQ(answer.question, query.question);
      if (i > 0) {
        EXPECT_EQ(answer.flags2, 0x80 | static_cast<int>(rcodes[i - 1]));
      }
      ASSERT_EQ(answer.additional.size(), edns ? 1u : 0u) << testing::hex_of(bytes);
      if (!edns) continue;
      const Record& opt = answer.additional[0];
      EXPECT_EQ(opt.name, "00");
      EXPECT_EQ(opt.type, kDnsTypeOpt);
      EXPECT_EQ(opt.klass, 1232);
      EXPECT_EQ(opt.ttl, 0u);
      EXPECT_EQ(opt.data, "");
    }
  }
  // A malformed OPT is not answered with one.
  QueryBytes bad = with_edns();
  bad.after = opt_record(1232, 1);
  EXPECT_TRUE(decode(dns_answer(udp(bad.bytes()), DnsRcode::formerr)).additional.empty());
}

TEST(DnsAnswer, AnAnswerEchoesNothingButTheIdRdAndQuestion) {
  // Every flag the client can set, and options in its OPT record.
  QueryBytes q = with_edns(4096);
  q.flags = 0x07;   // AA, TC, RD
  q.flags2 = 0x7f;  // Z, AD, CD, an RCODE
  q.after = opt_record(4096, 0, "\x00\x0a\x00\x08"s + "cookie!!");
  const DnsQuery query = udp(q.bytes());
  ASSERT_EQ(query.status, DnsStatus::done) << query.reason;
  const std::string bytes = dns_answer_addresses(query, kAddresses, 60);
  EXPECT_EQ(bytes.find("cookie"), std::string::npos);
  const Decoded answer = decode(bytes);
  ASSERT_FALSE(answer.error) << *answer.error;
  EXPECT_EQ(answer.flags, 0x81);
  EXPECT_EQ(answer.flags2, 0x80);
  EXPECT_EQ(answer.additional.at(0).klass, 1232);
}

}  // namespace dns_message_test
}  // namespace holdfast::network
