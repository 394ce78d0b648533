#include "launcher/network/dns_stub.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <vector>

#include "launcher/network/host_rule.hpp"

namespace holdfast::network::proxy_detail {
namespace dns_stub_parts {

using Udp = asio::ip::udp;

bool answered_family(std::uint16_t qtype, const Address& address) {
  if (qtype == kDnsTypeA) return address.family == Family::ipv4;
  if (qtype == kDnsTypeAaaa) return address.family == Family::ipv6;
  return true;  // ANY
}

// Counts a UDP question while it is being answered.
class InFlight {
 public:
  explicit InFlight(ProxyContext& context) : context_(context) { ++context_.dns_in_flight; }
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;
  ~InFlight() { --context_.dns_in_flight; }

 private:
  ProxyContext& context_;
};

asio::awaitable<void> answer_datagram(ProxyContext& context, Udp::socket& socket,
                                      Udp::endpoint peer, std::string message) {
  const InFlight in_flight(context);
  const std::string answer =
      co_await answer_dns_message(context, std::move(message), DnsTransport::udp);
  if (answer.empty()) co_return;
  error_code ignored;
  co_await socket.async_send_to(asio::buffer(answer), peer,
                                asio::redirect_error(asio::use_awaitable, ignored));
}

}  // namespace dns_stub_parts

asio::awaitable<std::string> answer_dns_message(ProxyContext& context, std::string message,
                                                DnsTransport transport) {
  AuditEntry audit(context, "dns");
  const DnsQuery query = parse_dns_query(message, transport);
  if (!query.answerable) {
    audit.refuse("unanswerable DNS message dropped: " + query.reason);
    co_return std::string();
  }
  if (query.status == DnsStatus::refused) {
    audit.refuse("DNS query refused: " + query.reason);
    co_return dns_answer(query, query.rcode);
  }
  if (!query.name) {
    audit.refuse("the question names no hostname");
    co_return dns_answer(query, DnsRcode::nxdomain);
  }
  audit.record.host = *query.name;
  const NetworkRules& rules = context.config.rules;
  const HostDecision decision = decide_name_any_port(rules.allow, rules.deny, *query.name);
  audit.set_rule(decision.rule);
  if (decision.verdict != HostVerdict::allowed) {
    audit.refuse(decision.verdict == HostVerdict::denied
                     ? *query.name + " is denied by \"" + decision.rule->text + "\""
                     : *query.name + " is not on the network allow-list");
    co_return dns_answer(query, DnsRcode::refused);
  }
  if (query.qtype != kDnsTypeA && query.qtype != kDnsTypeAaaa && query.qtype != kDnsTypeAny) {
    audit.record.allowed = true;  // the name exists; only its addresses are served
    co_return dns_answer_addresses(query, {}, kDnsAnswerTtl);
  }
  const Resolution resolution = co_await resolve_once(*query.name);
  if (resolution.addresses.empty()) {
    audit.refuse(resolution.error);
    co_return dns_answer(query, resolution.not_found ? DnsRcode::nxdomain : DnsRcode::servfail);
  }
  const AddressPolicy policy{decision.rule->private_allowed, context.config.host_addresses};
  std::vector<Address> kept;
  std::string dropped;
  for (const Address& address : resolution.addresses) {
    if (const std::optional<std::string> why = refuse_address(address, policy)) {
      dropped += (dropped.empty() ? "" : "; ") + *why;
    } else if (dns_stub_parts::answered_family(query.qtype, address)) {
      kept.push_back(address);
    }
  }
  context.remember_answer(*query.name, kept);
  std::string listed;
  for (const Address& address : kept) listed += (listed.empty() ? "" : ",") + to_string(address);
  if (!listed.empty()) audit.record.address = listed;
  if (kept.empty() && !dropped.empty()) {
    audit.refuse("every address was refused: " + dropped);
  } else {
    audit.record.allowed = true;
    if (!dropped.empty()) audit.record.reason = "some addresses were left out: " + dropped;
  }
  co_return dns_answer_addresses(query, kept, kDnsAnswerTtl);
}

asio::awaitable<void> serve_dns_udp(ProxyContext& context, asio::ip::udp::socket& socket) {
  const auto executor = co_await asio::this_coro::executor;
  // One byte over the limit, so that a longer datagram shows as too long
  // rather than cut to a valid-looking prefix.
  std::vector<char> buffer(kMaxDnsQueryBytes + 1);
  for (;;) {
    dns_stub_parts::Udp::endpoint peer;
    error_code error;
    const std::size_t got = co_await socket.async_receive_from(
        asio::buffer(buffer), peer, asio::redirect_error(asio::use_awaitable, error));
    if (error == asio::error::operation_aborted || !socket.is_open()) co_return;
    if (error) continue;  // an ICMP error from an earlier answer's peer, say
    std::string message(buffer.data(), got);
    if (context.dns_in_flight >= kMaxDnsInFlight) {
      AuditEntry audit(context, "dns");
      audit.refuse("too many DNS questions at once");
      const std::string answer =
          dns_answer(parse_dns_query(message, DnsTransport::udp), DnsRcode::servfail);
      if (!answer.empty()) socket.send_to(asio::buffer(answer), peer, 0, error);
      continue;
    }
    asio::co_spawn(executor,
                   dns_stub_parts::answer_datagram(context, socket, peer, std::move(message)),
                   [](const std::exception_ptr&) {});
  }
}

asio::awaitable<void> serve_dns_tcp_client(ProxyContext& context, Tcp::socket client) {
  SocketDeadline deadline(client);
  std::string received;
  bool answered_one = false;
  for (;;) {
    deadline.arm(context.config.first_bytes_deadline);
    DnsTcpFrame frame = read_dns_tcp_frame(received);
    while (frame.status == DnsStatus::need_more) {
      const error_code error =
          co_await read_more(client, received, kDnsTcpLengthBytes + kMaxDnsQueryBytes, deadline);
      if (error) {
        if (!answered_one || !received.empty()) {
          AuditEntry audit(context, "dns");
          audit.refuse(error == asio::error::timed_out
                           ? "the DNS client sent no complete message in time"
                           : "the DNS client closed before a complete message");
        }
        co_return;
      }
      frame = read_dns_tcp_frame(received);
    }
    deadline.disarm();
    if (frame.status == DnsStatus::refused) {
      AuditEntry audit(context, "dns");
      audit.refuse("DNS over TCP refused: " + frame.reason);
      co_return;
    }
    const std::string answer = co_await answer_dns_message(
        context, received.substr(kDnsTcpLengthBytes, frame.length), DnsTransport::tcp);
    received.erase(0, frame.consumed);
    answered_one = true;
    if (answer.empty()) continue;
    const std::string framed = dns_tcp_framed(answer);
    error_code error;
    co_await asio::async_write(client, asio::buffer(framed),
                               asio::redirect_error(asio::use_awaitable, error));
    if (error) co_return;
  }
}

}  // namespace holdfast::network::proxy_detail
