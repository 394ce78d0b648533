// DNS messages (RFC 1035) as the launch's DNS stub reads and writes them.
// The stub listens on 127.0.0.1:53 inside the sandbox and answers only
// names the allow-list covers. It never forwards what the client sent: the
// question is read here, the proxy decides, and the answer is built here
// from the stub's own bytes. Only the ID, the RD flag and the question
// (already checked, echoed as received: resolvers that randomise the case
// of a name compare it) come back from the query.
//
// The client is the confined command: every field is checked, a query
// is exactly one question of labels without compression, with at most an
// EDNS0 OPT record beside it, and nothing else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "launcher/network/address_check.hpp"

namespace holdfast::network {

// A query longer than this is refused: one question and an OPT record fit
// in a few hundred bytes, and 4096 is the largest UDP payload EDNS clients
// commonly offer. Over TCP too (the length prefix is judged alone).
inline constexpr std::size_t kMaxDnsQueryBytes = 4096;
inline constexpr std::size_t kDnsHeaderBytes = 12;
// RFC 1035 (2.3.4): a name on the wire, length bytes and the root's 0
// included, and one label.
inline constexpr std::size_t kMaxDnsNameWireBytes = 255;
inline constexpr std::size_t kMaxDnsLabelBytes = 63;
// An answer over UDP to a query without EDNS (RFC 1035, 4.2.1).
inline constexpr std::size_t kDnsUdpBytesWithoutEdns = 512;
// An answer over UDP to a query with EDNS is at most the size the client
// offers, capped here (DNS Flag Day 2020: no IP fragmentation); the stub's
// own OPT record offers the same.
inline constexpr std::size_t kDnsUdpBytesWithEdns = 1232;
// Over TCP a message is as long as its 2-byte length prefix allows.
inline constexpr std::size_t kDnsTcpMessageBytes = 65535;
inline constexpr std::size_t kDnsTcpLengthBytes = 2;
// RFC 2181 (8): a TTL is 31 bits; larger ones are sent as this.
inline constexpr std::uint32_t kMaxDnsTtl = 0x7fffffff;

inline constexpr std::uint16_t kDnsTypeA = 1;
inline constexpr std::uint16_t kDnsTypeAaaa = 28;
inline constexpr std::uint16_t kDnsTypeOpt = 41;
inline constexpr std::uint16_t kDnsTypeIxfr = 251;
inline constexpr std::uint16_t kDnsTypeAxfr = 252;
inline constexpr std::uint16_t kDnsTypeAny = 255;
inline constexpr std::uint16_t kDnsClassIn = 1;

// RCODE values the stub answers with (RFC 1035, 4.1.1).
enum class DnsRcode : std::uint8_t {
  noerror = 0,
  formerr = 1,   // the query is malformed
  servfail = 2,  // the stub could not decide (the proxy is gone, say)
  nxdomain = 3,  // the name does not exist: not a hostname
  notimp = 4,    // an OPCODE other than QUERY
  refused = 5,   // not served: a name the allow-list does not cover, a class other than IN
};

enum class DnsTransport : std::uint8_t { udp, tcp };

enum class DnsStatus : std::uint8_t {
  need_more,  // TCP framing only: the message is not all in
  done,       // a query: parsed; a TCP frame: a whole message is in
  refused,
};

struct DnsQuery {
  DnsStatus status = DnsStatus::refused;  // done or refused
  std::string reason;                     // refused: why (fixed text, never the client's bytes)
  // refused: the code to answer with (dns_answer(query, query.rcode)):
  // notimp for an OPCODE other than QUERY, refused for a class other than
  // IN and for zone transfers, formerr for everything else.
  DnsRcode rcode = DnsRcode::formerr;
  // Whether any answer may be sent. Not when the message is shorter than
  // a header (there is no ID to answer to) or is itself a response (QR=1:
  // answering responses lets two servers bounce messages forever); the
  // stub then drops it silently.
  bool answerable = false;
  std::uint16_t id = 0;
  bool recursion_desired = false;  // RD, copied into the answer
  // The question as received (QNAME, QTYPE, QCLASS), once it is read and
  // its name is well formed; empty otherwise, and the answer then has no
  // question section.
  std::string question;
  // The QNAME as the allow-list compares it (labels joined with '.',
  // lower-cased, no trailing dot; normalize_host_name's form), or nothing
  // when it is no hostname: a byte outside letters, digits, '-' and '_'
  // (a '.' or a NUL inside a label, a byte above 0x7f), the root name, a
  // numeric form ("127.0.0.1" asked as a name). Such a name exists nowhere
  // the stub serves: answer it NXDOMAIN without asking the proxy.
  std::optional<std::string> name;
  std::uint16_t qtype = 0;
  std::uint16_t qclass = 0;
  // The UDP payload size of the query's EDNS0 OPT record as sent (when it
  // had a valid one); the answer then carries an OPT record too.
  std::optional<std::uint16_t> edns_udp_size;
  // The most bytes an answer may have: over UDP 512 without EDNS,
  // otherwise the client's size within 512..1232; over TCP 65535.
  std::size_t answer_limit = kDnsUdpBytesWithoutEdns;
};

// One DNS message: a UDP datagram's payload, or a TCP message without its
// length prefix. Header: QR = 0; OPCODE = 0 (NOTIMP otherwise); TC, AA, Z,
// AD, CD ignored; QDCOUNT = 1, ANCOUNT = NSCOUNT = 0, ARCOUNT = 0 or 1.
// The question: a name of labels of 1..63 bytes, 255 bytes in all, no
// compression pointer; QTYPE not OPT, AXFR or IXFR; QCLASS IN (REFUSED
// otherwise). The additional record, if any: an OPT record owned by the
// root, EDNS version 0, its options well framed (and ignored). Nothing
// after the records.
DnsQuery parse_dns_query(std::string_view message, DnsTransport transport);

// A message over TCP as received so far: its 2-byte length prefix and
// the message. Incremental: a verdict on a prefix (done or refused) is the
// verdict on anything that extends it.
struct DnsTcpFrame {
  DnsStatus status = DnsStatus::need_more;
  std::string reason;  // refused: why (fixed text); the stub closes the connection
  // done: the message is received.substr(kDnsTcpLengthBytes, length); the
  // next one starts at CONSUMED (= 2 + length). Clients may pipeline.
  std::size_t length = 0;
  std::size_t consumed = 0;
};

// The length is kDnsHeaderBytes..kMaxDnsQueryBytes, judged as soon as the
// prefix is in.
DnsTcpFrame read_dns_tcp_frame(std::string_view received);

// ANSWER with its 2-byte length prefix, as sent over TCP. Only for
// messages of at most kDnsTcpMessageBytes (every answer built here).
std::string dns_tcp_framed(std::string_view answer);

// An answer without records carrying RCODE: a refusal (RCODE as the
// query's rcode or the stub's decision), SERVFAIL, NXDOMAIN, or with
// noerror an empty answer. The question is echoed when it was read,
// otherwise the answer is the header alone. Empty when the query is not
// answerable.
std::string dns_answer(const DnsQuery& query, DnsRcode rcode);

// A NOERROR answer for a name that is allowed, with ADDRESSES as A records
// (QTYPE A: IPv6 ones are skipped), AAAA records (QTYPE AAAA: IPv4 ones
// skipped) or both (QTYPE ANY: RFC 8482 lets a server answer with a subset,
// and addresses are what the stub serves). Any other QTYPE (MX, TXT,
// HTTPS, ...) gets no records (NODATA): the name exists, but holdfast
// serves only its addresses. An address listed twice is sent once. TTL is
// capped at kMaxDnsTtl. When the records do not fit the query's
// answer_limit, they are all dropped and TC is set: the client asks again
// over TCP. A query that was refused gets dns_answer(query, query.rcode).
//
// Every answer: the query's ID and RD, QR = 1, OPCODE = 0 (NOTIMP too: only
// the ID, RD and the question come from the query), AA = 0, RA = 1; each
// record's name a compression pointer to the question's (0xc00c); an OPT
// record (payload size 1232, version 0, no options) when the query had one.
std::string dns_answer_addresses(const DnsQuery& query, std::span<const Address> addresses,
                                 std::uint32_t ttl);

}  // namespace holdfast::network
