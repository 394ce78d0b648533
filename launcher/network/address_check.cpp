#include "launcher/network/address_check.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace holdfast::network {
namespace {

Address ipv4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  Address address;
  address.bytes[0] = a;
  address.bytes[1] = b;
  address.bytes[2] = c;
  address.bytes[3] = d;
  return address;
}

std::uint32_t ipv4_value(const Address& address) {
  return (std::uint32_t{address.bytes[0]} << 24) | (std::uint32_t{address.bytes[1]} << 16) |
         (std::uint32_t{address.bytes[2]} << 8) | std::uint32_t{address.bytes[3]};
}

// Whether the first PREFIX_BITS of VALUE equal those of NETWORK.
bool in_ipv4(std::uint32_t value, std::uint32_t network, int prefix_bits) {
  const std::uint32_t mask = prefix_bits == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix_bits);
  return (value & mask) == (network & mask);
}

bool in_ipv6(const Address& address, std::initializer_list<std::uint8_t> prefix, int prefix_bits) {
  int bit = 0;
  for (const std::uint8_t byte : prefix) {
    const int index = bit / 8;
    const int take = std::min(8, prefix_bits - bit);
    if (take <= 0) break;
    const auto mask = static_cast<std::uint8_t>(0xff << (8 - take));
    if ((address.bytes[index] & mask) != (byte & mask)) return false;
    bit += 8;
  }
  return true;
}

// Platform endpoints a command inside a cloud VM must never reach: they
// hand out the machine's credentials.
bool metadata_ipv4(std::uint32_t value) {
  constexpr std::uint32_t endpoints[] = {
      0xa9fea9fe,  // 169.254.169.254: AWS, GCP, Azure, OCI, OpenStack, DigitalOcean
      0xa9fea97b,  // 169.254.169.123: AWS time service
      0xa9feaa02,  // 169.254.170.2: AWS ECS task credentials
      0x646464c8,  // 100.100.100.200: Alibaba Cloud
      0xa83f8110,  // 168.63.129.16: Azure's platform endpoint (a public address)
  };
  return std::find(std::begin(endpoints), std::end(endpoints), value) != std::end(endpoints);
}

AddressKind classify_ipv4(const Address& address) {
  const std::uint32_t v = ipv4_value(address);
  if (metadata_ipv4(v)) return AddressKind::metadata;
  if (in_ipv4(v, 0x00000000, 8)) return AddressKind::unspecified;
  if (in_ipv4(v, 0x7f000000, 8)) return AddressKind::loopback;
  if (in_ipv4(v, 0xa9fe0000, 16)) return AddressKind::link_local;
  if (in_ipv4(v, 0x0a000000, 8) || in_ipv4(v, 0xac100000, 12) || in_ipv4(v, 0xc0a80000, 16) ||
      in_ipv4(v, 0x64400000, 10)) {
    return AddressKind::private_use;
  }
  if (in_ipv4(v, 0xe0000000, 4)) return AddressKind::multicast;
  if (in_ipv4(v, 0xf0000000, 4) ||   // 240/4, broadcast included
      in_ipv4(v, 0xc0000000, 24) ||  // 192.0.0/24, IETF protocol assignments
      in_ipv4(v, 0xc0000200, 24) ||  // 192.0.2/24, documentation
      in_ipv4(v, 0xc6336400, 24) ||  // 198.51.100/24, documentation
      in_ipv4(v, 0xcb007100, 24) ||  // 203.0.113/24, documentation
      in_ipv4(v, 0xc6120000, 15) ||  // 198.18/15, benchmarking
      in_ipv4(v, 0xc0586300, 24)) {  // 192.88.99/24, the old 6to4 relays
    return AddressKind::reserved;
  }
  return AddressKind::global;
}

AddressKind classify_ipv6(const Address& address) {
  static const Address unspecified{Family::ipv6, {}};
  Address loopback{Family::ipv6, {}};
  loopback.bytes[15] = 1;
  if (address == unspecified) return AddressKind::unspecified;
  if (address == loopback) return AddressKind::loopback;
  // fd00:ec2::254, AWS's instance metadata over IPv6.
  Address aws_metadata{Family::ipv6, {0xfd, 0x00, 0x0e, 0xc2}};
  aws_metadata.bytes[14] = 0x02;
  aws_metadata.bytes[15] = 0x54;
  if (address == aws_metadata) return AddressKind::metadata;
  if (in_ipv6(address, {0xfe, 0x80}, 10)) return AddressKind::link_local;
  if (in_ipv6(address, {0xfe, 0xc0}, 10) || in_ipv6(address, {0xfc}, 7) ||
      in_ipv6(address, {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48)) {
    return AddressKind::private_use;
  }
  if (in_ipv6(address, {0xff}, 8)) return AddressKind::multicast;
  if (in_ipv6(address, {0x20, 0x01, 0x0d, 0xb8}, 32) ||              // documentation
      in_ipv6(address, {0x20, 0x01, 0x00, 0x00}, 32) ||              // Teredo: a tunnel to anywhere
      in_ipv6(address, {0x20, 0x01, 0x00, 0x02, 0x00, 0x00}, 48) ||  // benchmarking
      !in_ipv6(address, {0x20}, 3)) {  // outside global unicast 2000::/3
    return AddressKind::reserved;
  }
  return AddressKind::global;
}

std::string_view describe(AddressKind kind) {
  switch (kind) {
    case AddressKind::global:
      return "a public address";
    case AddressKind::private_use:
      return "a private address (allow it with a \"private:\" entry for the name)";
    case AddressKind::loopback:
      return "a loopback address";
    case AddressKind::link_local:
      return "a link-local address";
    case AddressKind::metadata:
      return "a cloud metadata or platform endpoint";
    case AddressKind::multicast:
      return "a multicast address";
    case AddressKind::unspecified:
      return "the unspecified address";
    case AddressKind::reserved:
      return "a reserved address";
  }
  return "an unknown kind of address";
}

}  // namespace

std::optional<Address> parse_ip_literal(std::string_view text) {
  if (text.empty() || text.size() > INET6_ADDRSTRLEN) return std::nullopt;
  const std::string copy(text);
  Address address;
  // glibc's inet_pton is the strict form: four decimal parts, no leading
  // zeros, for IPv4; no zone index for IPv6.
  if (inet_pton(AF_INET, copy.c_str(), address.bytes.data()) == 1) return address;
  address.family = Family::ipv6;
  if (inet_pton(AF_INET6, copy.c_str(), address.bytes.data()) == 1) return address;
  return std::nullopt;
}

std::string to_string(const Address& address) {
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(address.family == Family::ipv4 ? AF_INET : AF_INET6, address.bytes.data(), text,
            sizeof text);
  return text;
}

bool numeric_host_form(std::string_view host) {
  if (host.find(':') != std::string_view::npos) return true;  // an IPv6 literal
  if (host.ends_with('.')) host.remove_suffix(1);
  const std::size_t dot = host.rfind('.');
  std::string_view last = dot == std::string_view::npos ? host : host.substr(dot + 1);
  if (last.empty()) return false;
  if (last.size() >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X')) {
    last.remove_prefix(2);
    return std::all_of(last.begin(), last.end(),
                       [](unsigned char c) { return std::isxdigit(c) != 0; });
  }
  return std::all_of(last.begin(), last.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::optional<Address> embedded_ipv4(const Address& address) {
  if (address.family != Family::ipv6) return std::nullopt;
  const auto& b = address.bytes;
  const auto tail = [&] { return ipv4(b[12], b[13], b[14], b[15]); };
  const bool zero_first_ten = std::all_of(b.begin(), b.begin() + 10, [](auto x) { return x == 0; });
  if (zero_first_ten && b[10] == 0xff && b[11] == 0xff) return tail();  // ::ffff:a.b.c.d
  if (zero_first_ten && b[10] == 0 && b[11] == 0) {                     // ::a.b.c.d
    const Address inner = tail();
    const std::uint32_t v = ipv4_value(inner);
    if (v > 1) return inner;  // :: and ::1 are themselves
    return std::nullopt;
  }
  if (in_ipv6(address, {0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0}, 96)) return tail();
  if (in_ipv6(address, {0x20, 0x02}, 16)) return ipv4(b[2], b[3], b[4], b[5]);  // 6to4
  return std::nullopt;
}

AddressKind classify(const Address& address) {
  if (address.family == Family::ipv4) return classify_ipv4(address);
  if (const auto inner = embedded_ipv4(address)) return classify_ipv4(*inner);
  return classify_ipv6(address);
}

bool same_host_address(const Address& a, const Address& b) {
  return embedded_ipv4(a).value_or(a) == embedded_ipv4(b).value_or(b);
}

std::optional<std::string> refuse_address(const Address& address, const AddressPolicy& policy) {
  const AddressKind kind = classify(address);
  const bool allowed_kind =
      kind == AddressKind::global || (kind == AddressKind::private_use && policy.private_allowed);
  if (!allowed_kind) return to_string(address) + " is " + std::string(describe(kind));
  for (const Address& own : policy.host_addresses) {
    if (same_host_address(own, address)) {
      return to_string(address) + " is one of this host's own addresses";
    }
  }
  return std::nullopt;
}

}  // namespace holdfast::network
