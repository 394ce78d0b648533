#include "launcher/network/dns_message.hpp"

#include <algorithm>

#include "launcher/network/host_rule.hpp"

namespace holdfast::network {
// Named, not anonymous alone: a unity build compiles this file in one unit
// with the rest of holdfast::network.
namespace dns_message_parse {
namespace {

// The header's third and fourth bytes (RFC 1035, 4.1.1).
constexpr std::uint8_t kQr = 0x80;
constexpr std::uint8_t kOpcodeMask = 0x78;
constexpr std::uint8_t kTc = 0x02;
constexpr std::uint8_t kRd = 0x01;
constexpr std::uint8_t kRa = 0x80;
// The top two bits of a label's length byte: 00 a plain label, 11 a
// compression pointer, 01 and 10 the extended label types nobody uses.
constexpr std::uint8_t kLabelTypeMask = 0xc0;
constexpr std::uint8_t kPointer = 0xc0;
// The fixed part of a resource record after its name: TYPE, CLASS, TTL,
// RDLENGTH.
constexpr std::size_t kRecordFixedBytes = 10;
// An OPT record: the root name (one 0 byte) and the fixed part, no options.
constexpr std::size_t kOptRecordBytes = 1 + kRecordFixedBytes;
constexpr std::uint16_t kPointerToQuestion = 0xc000 | kDnsHeaderBytes;

std::uint8_t byte_at(std::string_view in, std::size_t i) {
  return static_cast<std::uint8_t>(in[i]);
}

std::uint16_t u16_at(std::string_view in, std::size_t i) {
  return static_cast<std::uint16_t>(byte_at(in, i) << 8 | byte_at(in, i + 1));
}

void put_u16(std::string& out, std::uint16_t value) {
  out += static_cast<char>(value >> 8);
  out += static_cast<char>(value & 0xff);
}

void put_u32(std::string& out, std::uint32_t value) {
  put_u16(out, static_cast<std::uint16_t>(value >> 16));
  put_u16(out, static_cast<std::uint16_t>(value & 0xffff));
}

DnsQuery refused(DnsQuery query, DnsRcode rcode, std::string_view reason) {
  query.status = DnsStatus::refused;
  query.rcode = rcode;
  query.reason = reason;
  return query;
}

// The QNAME's labels joined as the allow-list compares them, or nothing
// when they are no hostname. A '.' inside a label would read as two
// labels once joined ("a.b" in one label is not the name a.b); a byte
// above 0x7f has no place in a name on the wire (normalize_wire_host_name).
std::optional<std::string> host_name(std::string_view labels) {
  std::string text;
  std::size_t at = 0;
  while (at < labels.size()) {
    const std::string_view label = labels.substr(at + 1, byte_at(labels, at));
    if (label.find('.') != std::string_view::npos) return std::nullopt;
    if (!text.empty()) text += '.';
    text += label;
    at += 1 + label.size();
  }
  return normalize_wire_host_name(text);
}

// Each part is judged in wire order; the first fault decides. Faults of
// form come first (FORMERR), then what the stub does not serve.
DnsQuery parse_query(std::string_view in, DnsTransport transport) {
  DnsQuery query;
  query.answer_limit =
      transport == DnsTransport::tcp ? kDnsTcpMessageBytes : kDnsUdpBytesWithoutEdns;
  if (in.size() < kDnsHeaderBytes) {
    return refused(query, DnsRcode::formerr, "shorter than a DNS header");
  }
  query.id = u16_at(in, 0);
  const std::uint8_t flags = byte_at(in, 2);
  if ((flags & kQr) != 0) return refused(query, DnsRcode::formerr, "a response, not a query");
  query.answerable = true;
  query.recursion_desired = (flags & kRd) != 0;
  if (in.size() > kMaxDnsQueryBytes) {
    return refused(query, DnsRcode::formerr, "longer than 4096 bytes");
  }
  if ((flags & kOpcodeMask) != 0) {
    return refused(query, DnsRcode::notimp, "an OPCODE other than QUERY");
  }
  if (u16_at(in, 4) != 1) {
    return refused(query, DnsRcode::formerr, "a question count other than 1");
  }
  if (u16_at(in, 6) != 0 || u16_at(in, 8) != 0) {
    return refused(query, DnsRcode::formerr, "answer or authority records in a query");
  }
  const std::uint16_t additional = u16_at(in, 10);
  if (additional > 1) return refused(query, DnsRcode::formerr, "more than one additional record");

  std::size_t at = kDnsHeaderBytes;
  const auto cut_short = [&] {
    return refused(query, DnsRcode::formerr, "the message ends inside a record");
  };
  while (true) {
    if (at >= in.size()) return cut_short();
    const std::size_t length = byte_at(in, at);
    if (length == 0) break;
    if ((length & kLabelTypeMask) == kPointer) {
      return refused(query, DnsRcode::formerr, "a compression pointer in the question's name");
    }
    if (length > kMaxDnsLabelBytes) {
      return refused(query, DnsRcode::formerr, "a label longer than 63 bytes");
    }
    // The name so far, this label, and the root's 0 that must still come.
    if (at - kDnsHeaderBytes + 1 + length + 1 > kMaxDnsNameWireBytes) {
      return refused(query, DnsRcode::formerr, "a name longer than 255 bytes");
    }
    if (in.size() - at - 1 < length) return cut_short();
    at += 1 + length;
  }
  const std::string_view labels = in.substr(kDnsHeaderBytes, at - kDnsHeaderBytes);
  ++at;  // the root's 0
  if (in.size() - at < 4) return cut_short();
  query.qtype = u16_at(in, at);
  query.qclass = u16_at(in, at + 2);
  at += 4;
  query.question = in.substr(kDnsHeaderBytes, at - kDnsHeaderBytes);
  query.name = host_name(labels);

  if (additional == 1) {
    // The OPT record (RFC 6891, 6.1.2): the root name, TYPE 41, CLASS the
    // UDP payload size, TTL the extended RCODE, VERSION and flags.
    if (in.size() - at < 1) return cut_short();
    if (byte_at(in, at) != 0) {
      return refused(query, DnsRcode::formerr, "an additional record other than an EDNS OPT");
    }
    if (in.size() - at < kOptRecordBytes) return cut_short();
    if (u16_at(in, at + 1) != kDnsTypeOpt) {
      return refused(query, DnsRcode::formerr, "an additional record other than an EDNS OPT");
    }
    const std::uint16_t udp_size = u16_at(in, at + 3);
    // A responder that does not speak the version should answer BADVERS;
    // FORMERR makes a client drop EDNS just the same, and every client
    // sends version 0.
    if (byte_at(in, at + 6) != 0) {
      return refused(query, DnsRcode::formerr, "an EDNS version other than 0");
    }
    const std::size_t options_length = u16_at(in, at + 9);
    at += kOptRecordBytes;
    if (in.size() - at < options_length) return cut_short();
    // The options are not used (a cookie, padding, a client subnet), but
    // they must fill the record exactly.
    const std::string_view options = in.substr(at, options_length);
    for (std::size_t o = 0; o < options.size();) {
      if (options.size() - o < 4 || options.size() - o - 4 < u16_at(options, o + 2)) {
        return refused(query, DnsRcode::formerr, "an EDNS option longer than its record");
      }
      o += 4 + u16_at(options, o + 2);
    }
    at += options_length;
    query.edns_udp_size = udp_size;
    if (transport == DnsTransport::udp) {
      query.answer_limit =
          std::clamp<std::size_t>(udp_size, kDnsUdpBytesWithoutEdns, kDnsUdpBytesWithEdns);
    }
  }
  if (at != in.size()) return refused(query, DnsRcode::formerr, "bytes after the records");

  if (query.qclass != kDnsClassIn) {
    return refused(query, DnsRcode::refused, "a class other than IN");
  }
  if (query.qtype == kDnsTypeOpt) {
    return refused(query, DnsRcode::formerr, "the OPT type asked as a question");
  }
  if (query.qtype == kDnsTypeAxfr || query.qtype == kDnsTypeIxfr) {
    return refused(query, DnsRcode::refused, "a zone transfer");
  }
  query.status = DnsStatus::done;
  return query;
}

// The whole answer: header, the question when it was read, RECORDS (COUNT
// of them) unless they do not fit, then the OPT record.
std::string answer(const DnsQuery& query, DnsRcode rcode, std::string_view records,
                   std::size_t count) {
  if (!query.answerable) return {};
  const bool opt = query.edns_udp_size.has_value();
  const std::size_t without_records =
      kDnsHeaderBytes + query.question.size() + (opt ? kOptRecordBytes : 0);
  const bool truncated = without_records + records.size() > query.answer_limit;
  if (truncated) {
    records = {};
    count = 0;
  }
  std::string out;
  out.reserve(without_records + records.size());
  put_u16(out, query.id);
  out += static_cast<char>(kQr | (truncated ? kTc : 0) | (query.recursion_desired ? kRd : 0));
  out += static_cast<char>(kRa | static_cast<std::uint8_t>(rcode));
  put_u16(out, query.question.empty() ? 0 : 1);
  put_u16(out, static_cast<std::uint16_t>(count));
  put_u16(out, 0);
  put_u16(out, opt ? 1 : 0);
  out += query.question;
  out += records;
  if (opt) {
    out += '\0';  // the root
    put_u16(out, kDnsTypeOpt);
    put_u16(out, static_cast<std::uint16_t>(kDnsUdpBytesWithEdns));
    put_u32(out, 0);  // extended RCODE 0, version 0, no DO
    put_u16(out, 0);  // no options
  }
  return out;
}

}  // namespace
}  // namespace dns_message_parse

DnsQuery parse_dns_query(std::string_view message, DnsTransport transport) {
  return dns_message_parse::parse_query(message, transport);
}

DnsTcpFrame read_dns_tcp_frame(std::string_view received) {
  DnsTcpFrame frame;
  if (received.size() < kDnsTcpLengthBytes) return frame;
  const std::size_t length = dns_message_parse::u16_at(received, 0);
  if (length < kDnsHeaderBytes || length > kMaxDnsQueryBytes) {
    frame.status = DnsStatus::refused;
    frame.reason = length < kDnsHeaderBytes ? "a message shorter than a DNS header"
                                            : "a message longer than 4096 bytes";
    return frame;
  }
  if (received.size() - kDnsTcpLengthBytes < length) return frame;
  frame.status = DnsStatus::done;
  frame.length = length;
  frame.consumed = kDnsTcpLengthBytes + length;
  return frame;
}

std::string dns_tcp_framed(std::string_view answer) {
  std::string out;
  out.reserve(kDnsTcpLengthBytes + answer.size());
  dns_message_parse::put_u16(out, static_cast<std::uint16_t>(answer.size()));
  out += answer;
  return out;
}

std::string dns_answer(const DnsQuery& query, DnsRcode rcode) {
  return dns_message_parse::answer(query, rcode, {}, 0);
}

std::string dns_answer_addresses(const DnsQuery& query, std::span<const Address> addresses,
                                 std::uint32_t ttl) {
  using namespace dns_message_parse;
  if (query.status != DnsStatus::done) return dns_answer(query, query.rcode);
  const bool any = query.qtype == kDnsTypeAny;
  std::string records;
  std::size_t count = 0;
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    const Address& address = addresses[i];
    const bool v4 = address.family == Family::ipv4;
    if (!any && query.qtype != (v4 ? kDnsTypeA : kDnsTypeAaaa)) continue;
    if (std::find(addresses.begin(), addresses.begin() + static_cast<std::ptrdiff_t>(i), address) !=
        addresses.begin() + static_cast<std::ptrdiff_t>(i)) {
      continue;
    }
    // Past the limit already: the answer is truncated whatever follows.
    if (records.size() > query.answer_limit) break;
    const std::size_t length = v4 ? 4 : 16;
    put_u16(records, kPointerToQuestion);
    put_u16(records, v4 ? kDnsTypeA : kDnsTypeAaaa);
    put_u16(records, kDnsClassIn);
    put_u32(records, std::min(ttl, kMaxDnsTtl));
    put_u16(records, static_cast<std::uint16_t>(length));
    records.append(reinterpret_cast<const char*>(address.bytes.data()), length);
    ++count;
  }
  return answer(query, DnsRcode::noerror, records, count);
}

}  // namespace holdfast::network
