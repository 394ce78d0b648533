#include "launcher/network/socks5.hpp"

#include <algorithm>

#include "launcher/network/host_rule.hpp"

namespace holdfast::network {
// Named, not anonymous alone: a unity build compiles this file in one unit
// with the rest of holdfast::network.
namespace socks5_parse {
namespace {

constexpr std::uint8_t kVersion = 5;
constexpr std::uint8_t kNoAuthentication = 0x00;
constexpr std::uint8_t kNoAcceptableMethods = 0xff;

enum Command : std::uint8_t { kConnect = 1, kBind = 2, kUdpAssociate = 3 };
enum AddressType : std::uint8_t { kIpv4 = 1, kDomainName = 3, kIpv6 = 4 };

std::uint8_t byte_at(std::string_view in, std::size_t i) {
  return static_cast<std::uint8_t>(in[i]);
}

Socks5Request refused(Socks5Reply reply, std::string reason) {
  Socks5Request request;
  request.status = Socks5Status::refused;
  request.reply = reply;
  request.reason = std::move(reason);
  return request;
}

// A domain name as the allow-list compares it, an IP literal as an
// address, or nothing: a NUL, a blank, a byte outside ASCII (a name on the
// wire is in punycode already), an empty label, a numeric spelling a
// resolver would read as some other address ("2130706433").
bool read_domain_name(std::string_view name, Socks5Destination& out) {
  if ((out.address = parse_ip_literal(name))) {
    out.host = to_string(*out.address);
    return true;
  }
  std::optional<std::string> normalized = normalize_wire_host_name(name);
  if (!normalized) return false;
  out.host = std::move(*normalized);
  return true;
}

// Each field is judged as soon as its bytes are in, in wire order.
Socks5Request parse_request(std::string_view in) {
  Socks5Request request;
  if (in.size() < 1) return request;
  if (byte_at(in, 0) != kVersion) return refused(Socks5Reply::general_failure, "not SOCKS5");
  if (in.size() < 2) return request;
  switch (byte_at(in, 1)) {
    case kConnect:
      break;
    case kBind:
      return refused(Socks5Reply::command_not_supported, "BIND is not served, only CONNECT");
    case kUdpAssociate:
      return refused(Socks5Reply::command_not_supported,
                     "UDP ASSOCIATE is not served, only CONNECT");
    default:
      return refused(Socks5Reply::command_not_supported, "an unknown command");
  }
  if (in.size() < 3) return request;
  if (byte_at(in, 2) != 0) return refused(Socks5Reply::general_failure, "a reserved byte not 0");
  if (in.size() < 4) return request;
  std::size_t at = 4;  // where DST.PORT starts, once the address is read
  Socks5Destination& destination = request.destination;
  switch (byte_at(in, 3)) {
    case kIpv4:
    case kIpv6: {
      const bool v4 = byte_at(in, 3) == kIpv4;
      const std::size_t length = v4 ? 4 : 16;
      if (in.size() < at + length) return request;
      Address address;
      address.family = v4 ? Family::ipv4 : Family::ipv6;
      std::copy_n(in.begin() + static_cast<std::ptrdiff_t>(at), length, address.bytes.begin());
      destination.address = address;
      destination.host = to_string(address);
      at += length;
      break;
    }
    case kDomainName: {
      if (in.size() < 5) return request;
      const std::size_t length = byte_at(in, 4);
      if (length == 0) return refused(Socks5Reply::general_failure, "an empty domain name");
      if (in.size() < 5 + length) return request;
      if (!read_domain_name(in.substr(5, length), destination)) {
        return refused(Socks5Reply::general_failure,
                       "the domain name is not a hostname or an IP address");
      }
      at = 5 + length;
      break;
    }
    default:
      return refused(Socks5Reply::address_type_not_supported, "an unknown address type");
  }
  if (in.size() < at + 2) return request;
  destination.port = static_cast<std::uint16_t>(byte_at(in, at) << 8 | byte_at(in, at + 1));
  if (destination.port == 0) return refused(Socks5Reply::general_failure, "port 0");
  request.status = Socks5Status::done;
  request.consumed = at + 2;
  return request;
}

Socks5Greeting parse_greeting(std::string_view in) {
  Socks5Greeting greeting;
  const auto refuse = [](std::string reason) {
    Socks5Greeting result;
    result.status = Socks5Status::refused;
    result.reason = std::move(reason);
    return result;
  };
  if (in.size() < 1) return greeting;
  if (byte_at(in, 0) == 4) return refuse("SOCKS4 is not served, only SOCKS5");
  if (byte_at(in, 0) != kVersion) return refuse("not SOCKS5");
  if (in.size() < 2) return greeting;
  const std::size_t count = byte_at(in, 1);
  if (count == 0) return refuse("a greeting that offers no method");
  if (in.size() < 2 + count) return greeting;
  const std::string_view methods = in.substr(2, count);
  greeting.status = Socks5Status::done;
  greeting.consumed = 2 + count;
  greeting.no_auth_offered = methods.find(static_cast<char>(kNoAuthentication)) != methods.npos;
  return greeting;
}

}  // namespace
}  // namespace socks5_parse

Socks5Greeting parse_socks5_greeting(std::string_view received) {
  return socks5_parse::parse_greeting(received);
}

std::string socks5_method_reply(bool no_auth_offered) {
  return {static_cast<char>(socks5_parse::kVersion),
          static_cast<char>(no_auth_offered ? socks5_parse::kNoAuthentication
                                            : socks5_parse::kNoAcceptableMethods)};
}

Socks5Request parse_socks5_request(std::string_view received) {
  return socks5_parse::parse_request(received);
}

std::string socks5_request_reply(Socks5Reply reply, const Address& bound,
                                 std::uint16_t bound_port) {
  const bool v4 = bound.family == Family::ipv4;
  std::string bytes = {static_cast<char>(socks5_parse::kVersion), static_cast<char>(reply), 0,
                       static_cast<char>(v4 ? socks5_parse::kIpv4 : socks5_parse::kIpv6)};
  bytes.append(reinterpret_cast<const char*>(bound.bytes.data()), v4 ? 4 : 16);
  bytes += static_cast<char>(bound_port >> 8);
  bytes += static_cast<char>(bound_port & 0xff);
  return bytes;
}

}  // namespace holdfast::network
