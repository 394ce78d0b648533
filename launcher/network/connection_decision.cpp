#include "launcher/network/connection_decision.hpp"

#include "launcher/network/client_hello.hpp"

namespace holdfast::network {
namespace connection_decision_parts {
namespace {

std::string destination_text(const Destination& destination) {
  const bool ipv6 = destination.address && destination.address->family == Family::ipv6;
  return (ipv6 ? "[" + destination.host + "]" : destination.host) + ":" +
         std::to_string(destination.port);
}

// An SSH identification string starts "SSH-2.0-" (or "SSH-1.99-", a
// server's offer of both; RFC 4253 4.2).
constexpr std::string_view ssh_prefixes[] = {"SSH-2.0-", "SSH-1.99-"};

enum class SshStart : std::uint8_t { need_more, yes, no };

SshStart ssh_start(std::string_view bytes) {
  bool could_be = false;
  for (const std::string_view prefix : ssh_prefixes) {
    if (bytes.starts_with(prefix)) return SshStart::yes;
    if (bytes.size() < prefix.size() && prefix.starts_with(bytes)) could_be = true;
  }
  return could_be ? SshStart::need_more : SshStart::no;
}

TunnelVerdict refused(std::string reason, std::string kind) {
  TunnelVerdict verdict;
  verdict.status = TunnelStatus::refused;
  verdict.reason = std::move(reason);
  verdict.kind = std::move(kind);
  return verdict;
}

TunnelVerdict judge_tls(const Destination& destination, std::string_view bytes) {
  const ClientHello hello = parse_client_hello(bytes);
  switch (hello.status) {
    case HelloStatus::need_more:
      return {};
    case HelloStatus::not_tls:
    case HelloStatus::refused:
      return refused("the TLS ClientHello was refused: " + hello.reason, "tls");
    case HelloStatus::parsed:
      break;
  }
  if (hello.has_ech) {
    return refused("the ClientHello is encrypted (ECH): its real server name cannot be checked",
                   "tls");
  }
  TunnelVerdict verdict;
  verdict.kind = "tls";
  verdict.server_name = hello.server_name;
  if (destination.address) {
    // RFC 6066 forbids an address as a server name: a client reaching an
    // ip: entry sends none; one that sends a name is reaching that name.
    if (hello.server_name) {
      return refused("the ClientHello names " + *hello.server_name + ", not the address " +
                         destination.host + " the tunnel was opened to",
                     "tls");
    }
  } else if (!hello.server_name) {
    return refused("the ClientHello names no server (no SNI): the tunnel to " + destination.host +
                       " must name it",
                   "tls");
  } else if (*hello.server_name != destination.host) {
    return refused("the ClientHello names " + *hello.server_name + ", not " + destination.host +
                       ", the host the tunnel was opened to",
                   "tls");
  }
  verdict.status = TunnelStatus::allowed;
  return verdict;
}

}  // namespace
}  // namespace connection_decision_parts

Verdict judge_destination(const NetworkRules& rules, const Destination& destination) {
  const HostDecision decision =
      destination.address
          ? decide_address(rules.allow, rules.deny, *destination.address, destination.port)
          : decide_name(rules.allow, rules.deny, destination.host, destination.port);
  switch (decision.verdict) {
    case HostVerdict::allowed:
      return {true, {}, decision.rule};
    case HostVerdict::denied:
      return {false,
              connection_decision_parts::destination_text(destination) + " is denied by \"" +
                  decision.rule->text + "\"",
              decision.rule};
    case HostVerdict::not_listed:
      break;
  }
  if (destination.address) {
    return {false,
            connection_decision_parts::destination_text(destination) +
                " is an IP address no entry lists (addresses are allowed only as ip:ADDRESS)",
            nullptr};
  }
  return {false,
          connection_decision_parts::destination_text(destination) +
              " is not on the network allow-list",
          nullptr};
}

AddressChoice choose_address(std::span<const Address> resolved, const HostRule& rule,
                             std::span<const Address> host_addresses) {
  AddressChoice choice;
  if (resolved.empty()) {
    choice.reason = "the name resolved to no address";
    return choice;
  }
  for (const Address& address : resolved) {
    // An ip: entry names its own address, which says as much as "private:".
    const bool named = rule.match == HostMatch::address && rule.address &&
                       same_host_address(*rule.address, address);
    const AddressPolicy policy{rule.private_allowed || named, host_addresses};
    const std::optional<std::string> why = refuse_address(address, policy);
    if (!why) {
      choice.address = address;
      choice.reason.clear();
      return choice;
    }
    choice.reason += (choice.reason.empty() ? "" : "; ") + *why;
  }
  return choice;
}

TunnelVerdict judge_tunnel_start(const Destination& destination, std::string_view first_bytes) {
  if (first_bytes.empty()) return {};
  if (static_cast<unsigned char>(first_bytes.front()) == 22) {  // a TLS handshake record
    return connection_decision_parts::judge_tls(destination, first_bytes);
  }
  switch (connection_decision_parts::ssh_start(first_bytes)) {
    case connection_decision_parts::SshStart::need_more:
      return {};
    case connection_decision_parts::SshStart::yes: {
      TunnelVerdict verdict;
      verdict.status = TunnelStatus::allowed;
      verdict.kind = "ssh";
      return verdict;
    }
    case connection_decision_parts::SshStart::no:
      break;
  }
  return connection_decision_parts::refused(
      "a tunnel carries TLS or SSH only (plain HTTP goes to the proxy as a forwarding "
      "request, so that every request's Host is checked)",
      "");
}

}  // namespace holdfast::network
