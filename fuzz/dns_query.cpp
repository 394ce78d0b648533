// Fuzz target: a DNS query as a confined command sends it to the launch's
// DNS stub (a UDP payload), and every answer the stub can build for it.
//
// Properties:
// * a query that is parsed has a question of class IN, and a name (when
//   it is a hostname) in the allow-list's form; a refused one says why;
// * every answer to an answerable query fits the query's answer limit,
//   starts with its ID, has QR set, OPCODE 0 and its RD, and reads back
//   (with a decoder of this file's own) as the echoed question, the
//   answer records of the asked type (none when TC is set), and an OPT
//   record exactly when the query had one; a query that is not
//   answerable gets no answer at all;
// * the same bytes over TCP parse the same (only the limit differs), and
//   the TCP framing, on the input framed and on the input itself, fed in
//   two pieces (split at a point the first byte picks), ends in the
//   verdict the whole gets.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.hpp"
#include "launcher/network/dns_message.hpp"

using holdfast::fuzz::check;
namespace network = holdfast::network;

namespace {

std::string describe(const network::DnsQuery& q) {
  return std::to_string(static_cast<int>(q.status)) + "|" + q.reason + "|" +
         std::to_string(static_cast<int>(q.rcode)) + "|" + std::to_string(q.answerable) + "|" +
         std::to_string(q.id) + "|" + std::to_string(q.recursion_desired) + "|" + q.question + "|" +
         q.name.value_or("-") + "|" + std::to_string(q.qtype) + "|" + std::to_string(q.qclass) +
         "|" + (q.edns_udp_size ? std::to_string(*q.edns_udp_size) : "-");
}

std::string describe(const network::DnsTcpFrame& f) {
  return std::to_string(static_cast<int>(f.status)) + "|" + f.reason + "|" +
         std::to_string(f.length) + "|" + std::to_string(f.consumed);
}

bool name_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

std::uint16_t u16(std::string_view m, std::size_t at) {
  return static_cast<std::uint16_t>(static_cast<std::uint8_t>(m[at]) << 8 |
                                    static_cast<std::uint8_t>(m[at + 1]));
}

// An answer read back: the counts as the header gives them, each record
// checked to lie within the message.
struct Answer {
  std::uint16_t qdcount = 0, ancount = 0, nscount = 0, arcount = 0;
  std::string question;
  std::vector<std::uint16_t> answer_types;
  std::vector<std::size_t> answer_lengths;
  bool opt = false;
};

std::optional<Answer> decode(std::string_view m) {
  Answer a;
  if (m.size() < 12) return std::nullopt;
  a.qdcount = u16(m, 4);
  a.ancount = u16(m, 6);
  a.nscount = u16(m, 8);
  a.arcount = u16(m, 10);
  std::size_t at = 12;
  if (a.qdcount > 1 || a.nscount != 0 || a.arcount > 1) return std::nullopt;
  if (a.qdcount == 1) {
    while (at < m.size() && m[at] != 0) at += 1 + static_cast<std::uint8_t>(m[at]);
    if (at >= m.size() || m.size() - at < 5) return std::nullopt;
    at += 5;
    a.question = m.substr(12, at - 12);
  }
  for (int i = 0; i < a.ancount; ++i) {
    if (m.size() - at < 12 || u16(m, at) != 0xc00c) return std::nullopt;
    const std::size_t length = u16(m, at + 10);
    if (m.size() - at - 12 < length || u16(m, at + 4) != network::kDnsClassIn) return std::nullopt;
    if (u16(m, at + 6) & 0x8000) return std::nullopt;  // a TTL over 31 bits
    a.answer_types.push_back(u16(m, at + 2));
    a.answer_lengths.push_back(length);
    at += 12 + length;
  }
  if (a.arcount == 1) {
    if (m.size() - at != 11 || m[at] != 0 || u16(m, at + 1) != network::kDnsTypeOpt ||
        u16(m, at + 3) != network::kDnsUdpBytesWithEdns || u16(m, at + 9) != 0) {
      return std::nullopt;
    }
    a.opt = true;
    at += 11;
  }
  if (at != m.size()) return std::nullopt;
  return a;
}

void check_answer(const network::DnsQuery& query, const std::string& bytes,
                  std::optional<network::DnsRcode> rcode) {
  if (!query.answerable) {
    check(bytes.empty(), "a query that is not answerable gets no answer");
    return;
  }
  check(bytes.size() <= query.answer_limit, "an answer fits the query's limit");
  check(bytes.size() >= 12 && u16(bytes, 0) == query.id, "an answer starts with the query's ID");
  const auto flags = static_cast<std::uint8_t>(bytes[2]);
  const auto flags2 = static_cast<std::uint8_t>(bytes[3]);
  check((flags & 0x80) != 0 && (flags & 0x78) == 0, "an answer has QR set and OPCODE 0");
  check(((flags & 0x01) != 0) == query.recursion_desired, "an answer copies RD");
  check((flags & 0x04) == 0 &&
            flags2 == (0x80 | static_cast<int>(rcode.value_or(network::DnsRcode::noerror))),
        "an answer has AA 0, RA 1, no Z, AD or CD, and its RCODE");
  const std::optional<Answer> answer = decode(bytes);
  check(answer.has_value(), "an answer reads back");
  check(answer->question == query.question, "an answer echoes the question as it was read");
  check(answer->qdcount == (query.question.empty() ? 0 : 1), "the question count");
  check(answer->opt == query.edns_udp_size.has_value(), "an OPT record iff the query had one");
  if (flags & 0x02) check(answer->ancount == 0, "a truncated answer has no records");
  if (rcode) check(answer->ancount == 0, "a refusal has no records");
  for (std::size_t i = 0; i < answer->answer_types.size(); ++i) {
    const std::uint16_t type = answer->answer_types[i];
    check(type == query.qtype || query.qtype == network::kDnsTypeAny,
          "a record is of the asked type");
    check((type == network::kDnsTypeA && answer->answer_lengths[i] == 4) ||
              (type == network::kDnsTypeAaaa && answer->answer_lengths[i] == 16),
          "a record is an address of its type");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = size == 0 ? 0 : data[0] * size / 255;

  const network::DnsQuery query = network::parse_dns_query(input, network::DnsTransport::udp);
  if (query.status == network::DnsStatus::refused) check(!query.reason.empty(), "says why");
  check(query.status != network::DnsStatus::need_more, "a query is parsed or refused");
  if (query.status == network::DnsStatus::done) {
    check(query.answerable && !query.question.empty() && query.qclass == network::kDnsClassIn,
          "a parsed query has a question of class IN");
    check(query.question.size() <= network::kMaxDnsNameWireBytes + 4, "a question's length");
    if (query.name) {
      const std::string& name = *query.name;
      check(!name.empty() && name.size() <= 253 && !name.ends_with('.') &&
                std::all_of(name.begin(), name.end(), name_byte),
            "a name is a normalized hostname");
    }
  }
  const std::size_t limit =
      query.edns_udp_size ? network::kDnsUdpBytesWithEdns : network::kDnsUdpBytesWithoutEdns;
  check(query.answer_limit >= network::kDnsUdpBytesWithoutEdns && query.answer_limit <= limit,
        "a UDP answer's limit");

  // Addresses of both families, as many as the input is long (up to 200):
  // enough, for long inputs, to overflow every UDP limit.
  std::vector<network::Address> addresses;
  for (std::size_t i = 0; i < size % 201; ++i) {
    network::Address address;
    address.family = i % 2 == 0 ? network::Family::ipv4 : network::Family::ipv6;
    address.bytes[0] = static_cast<std::uint8_t>(i % 7);  // some repeat
    address.bytes[3] = static_cast<std::uint8_t>(i % 7 == 0 ? 0 : i);
    addresses.push_back(address);
  }
  const std::uint32_t ttl = size < 4 ? 60 : std::uint32_t{u16(input, 0)} << 16 | u16(input, 2);
  check_answer(
      query, network::dns_answer_addresses(query, addresses, ttl),
      query.status == network::DnsStatus::done ? std::nullopt : std::optional(query.rcode));
  for (const network::DnsRcode rcode :
       {network::DnsRcode::noerror, network::DnsRcode::formerr, network::DnsRcode::servfail,
        network::DnsRcode::nxdomain, network::DnsRcode::notimp, network::DnsRcode::refused}) {
    check_answer(query, network::dns_answer(query, rcode), rcode);
  }

  // The same message over TCP reads the same; the answer may be longer.
  const network::DnsQuery tcp = network::parse_dns_query(input, network::DnsTransport::tcp);
  check(describe(tcp) == describe(query), "a message reads the same over TCP");
  check(tcp.answer_limit == network::kDnsTcpMessageBytes, "a TCP answer's limit");
  check_answer(tcp, network::dns_answer_addresses(tcp, addresses, ttl),
               tcp.status == network::DnsStatus::done ? std::nullopt : std::optional(tcp.rcode));

  // The framing: the input framed, fed in two pieces; then the input itself.
  if (size <= network::kDnsTcpMessageBytes) {
    std::string framed = network::dns_tcp_framed(input);
    check(framed.size() == size + 2 && framed.substr(2) == input, "a frame is its message");
    const network::DnsTcpFrame whole = network::read_dns_tcp_frame(framed);
    const bool fits = size >= network::kDnsHeaderBytes && size <= network::kMaxDnsQueryBytes;
    check(whole.status == (fits ? network::DnsStatus::done : network::DnsStatus::refused),
          "a frame is read whole, or refused for its length");
    if (fits) check(whole.length == size && whole.consumed == size + 2, "a frame's length");
    const network::DnsTcpFrame first =
        network::read_dns_tcp_frame(std::string_view(framed).substr(0, split + 2));
    if (first.status != network::DnsStatus::need_more || split + 2 >= framed.size()) {
      check(describe(first) == describe(whole),
            "a verdict on a prefix is the verdict on the whole");
    }
  }
  const network::DnsTcpFrame raw = network::read_dns_tcp_frame(input);
  const network::DnsTcpFrame raw_first = network::read_dns_tcp_frame(input.substr(0, split));
  if (raw_first.status != network::DnsStatus::need_more) {
    check(describe(raw_first) == describe(raw),
          "a verdict on a prefix is the verdict on the whole");
  }
  if (raw.status == network::DnsStatus::done) {
    check(raw.consumed == raw.length + 2 && raw.consumed <= size, "a frame is within the input");
    check(describe(network::read_dns_tcp_frame(input.substr(0, raw.consumed))) == describe(raw),
          "a frame reads the same without what follows it");
  }
  if (raw.status == network::DnsStatus::refused) check(!raw.reason.empty(), "says why");
  return 0;
}
