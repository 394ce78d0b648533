#include "launcher/network/host_rule.hpp"

#include <idn2.h>

#include <algorithm>
#include <charconv>
#include <memory>

namespace holdfast::network {
namespace {

constexpr std::size_t max_name_length = 253;  // RFC 1035, without the root's dot
constexpr std::size_t max_label_length = 63;
// A U-label form may be longer than its ASCII form; nothing this long is a
// hostname in any form.
constexpr std::size_t max_input_length = 1024;

char name_byte_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool label_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

// The ASCII form of HOST, or why there is none.
struct NameOrReason {
  std::string name;
  std::string reason;  // empty when NAME is set
};

NameOrReason no_name(std::string reason) { return {{}, std::move(reason)}; }

// Internationalised names through libidn2 (IDNA2008 with UTS #46's
// non-transitional mapping, as browsers do): "ｅｖｉｌ.com" is evil.com,
// "bücher.example" is xn--bcher-kva.example.
NameOrReason to_ascii(std::string_view host) {
  const std::string input(host);
  char* output = nullptr;
  const int rc = idn2_to_ascii_8z(input.c_str(), &output, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT);
  const std::unique_ptr<char, decltype(&idn2_free)> owned(output, &idn2_free);
  if (rc != IDN2_OK)
    return no_name(std::string("not a valid internationalised name: ") + idn2_strerror(rc));
  return {owned.get(), {}};
}

NameOrReason normalize(std::string_view host) {
  if (host.size() > max_input_length) return no_name("longer than any hostname");
  if (host.ends_with('.')) host.remove_suffix(1);
  if (host.empty()) return no_name("empty");
  std::string name;
  if (!is_ascii(host)) {
    NameOrReason ascii = to_ascii(host);
    if (!ascii.reason.empty()) return ascii;
    name = std::move(ascii.name);
  } else {
    name.assign(host);
  }
  std::transform(name.begin(), name.end(), name.begin(), name_byte_lower);
  if (name.size() > max_name_length) return no_name("longer than 253 bytes");
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('.', start), name.size());
    const std::string_view label = std::string_view(name).substr(start, end - start);
    if (label.empty()) return no_name("an empty label");
    if (label.size() > max_label_length) return no_name("a label longer than 63 bytes");
    if (!std::all_of(label.begin(), label.end(), label_byte)) {
      return no_name("a byte no hostname has (letters, digits, '-' and '_' only)");
    }
    if (label.front() == '-' || label.back() == '-') {
      return no_name("a label that starts or ends with '-'");
    }
    start = end + 1;
  }
  if (numeric_host_form(name)) return no_name("an IP address or a numeric form of one");
  return {std::move(name), {}};
}

std::uint16_t parse_port(std::string_view text, std::string_view entry) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || text.size() > 5 || ec != std::errc{} || end != text.data() + text.size() ||
      value == 0 || value > 65535) {
    throw InvalidHostRule("\"" + std::string(entry) + "\": the port \"" + std::string(text) +
                          "\" is not a number from 1 to 65535");
  }
  return static_cast<std::uint16_t>(value);
}

// "ip:203.0.113.7", "ip:203.0.113.7:8443", "ip:2001:db8::7",
// "ip:[2001:db8::7]:8443".
HostRule parse_address_rule(std::string_view rest, std::string_view entry, RuleList list) {
  HostRule rule;
  rule.text = entry;
  if (list == RuleList::deny) rule.port.reset();
  rule.match = HostMatch::address;
  std::string_view literal = rest;
  if (rest.starts_with('[')) {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos) {
      throw InvalidHostRule("\"" + std::string(entry) + "\": '[' without ']'");
    }
    literal = rest.substr(1, close - 1);
    const std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (!after.starts_with(':')) {
        throw InvalidHostRule("\"" + std::string(entry) + "\": only \":PORT\" may follow ']'");
      }
      rule.port = parse_port(after.substr(1), entry);
    }
  } else if (std::count(rest.begin(), rest.end(), ':') == 1) {
    const std::size_t colon = rest.find(':');
    literal = rest.substr(0, colon);
    rule.port = parse_port(rest.substr(colon + 1), entry);
  }
  rule.address = parse_ip_literal(literal);
  if (!rule.address || (rest.starts_with('[') && rule.address->family == Family::ipv4)) {
    throw InvalidHostRule("\"" + std::string(entry) + "\": \"" + std::string(literal) +
                          "\" is not an IP address (dotted-quad IPv4, or IPv6 in brackets "
                          "when a port follows)");
  }
  return rule;
}

}  // namespace

std::optional<std::string> normalize_host_name(std::string_view host) {
  NameOrReason result = normalize(host);
  if (!result.reason.empty()) return std::nullopt;
  return std::move(result.name);
}

bool is_ascii(std::string_view text) {
  return std::none_of(text.begin(), text.end(), [](char c) { return (c & 0x80) != 0; });
}

std::optional<std::string> normalize_wire_host_name(std::string_view host) {
  if (!is_ascii(host)) return std::nullopt;
  return normalize_host_name(host);
}

HostRule parse_host_rule(std::string_view entry, RuleList list) {
  const auto fail = [&](std::string_view why) {
    return InvalidHostRule("\"" + std::string(entry) + "\": " + std::string(why));
  };
  if (entry.empty()) throw fail("an empty entry");
  if (entry.starts_with("ip:")) return parse_address_rule(entry.substr(3), entry, list);

  HostRule rule;
  rule.text = entry;
  if (list == RuleList::deny) rule.port.reset();
  std::string_view rest = entry;
  if (rest.starts_with("private:")) {
    rule.private_allowed = true;
    rest.remove_prefix(std::string_view("private:").size());
  }
  if (rest.starts_with('[')) throw fail("an IP address: write it as ip:[ADDRESS]:PORT");
  if (const std::size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    rule.port = parse_port(rest.substr(colon + 1), entry);
    rest = rest.substr(0, colon);
    if (rest.find(':') != std::string_view::npos) {
      throw fail("more than one ':' (an IPv6 address is written ip:[ADDRESS]:PORT)");
    }
  }
  if (rest.starts_with("**.")) {
    rule.match = HostMatch::name_and_subdomains;
    rest.remove_prefix(3);
  } else if (rest.starts_with("*.")) {
    rule.match = HostMatch::subdomains;
    rest.remove_prefix(2);
  }
  if (rest == "*" || rest == "**") throw fail("\"*\" would allow every host; list the hosts");
  if (rest.find('*') != std::string_view::npos) {
    throw fail("'*' is allowed only as the whole first label (\"*.d\" or \"**.d\")");
  }
  NameOrReason name = normalize(rest);
  if (!name.reason.empty()) {
    if (numeric_host_form(rest)) throw fail("an IP address: write it as ip:ADDRESS");
    throw fail("not a hostname: " + name.reason);
  }
  if (rule.match != HostMatch::exact && name.name.find('.') == std::string::npos) {
    throw fail("a wildcard over a single label (\"" + name.name +
               "\") would allow a whole top-level domain");
  }
  rule.name = std::move(name.name);
  return rule;
}

bool rule_matches_name(const HostRule& rule, std::string_view host, std::uint16_t port) {
  if (rule.port && *rule.port != port) return false;
  const bool subdomain = host.size() > rule.name.size() + 1 && host.ends_with(rule.name) &&
                         host[host.size() - rule.name.size() - 1] == '.';
  switch (rule.match) {
    case HostMatch::exact:
      return host == rule.name;
    case HostMatch::subdomains:
      return subdomain;
    case HostMatch::name_and_subdomains:
      return host == rule.name || subdomain;
    case HostMatch::address:
      return false;
  }
  return false;
}

bool rule_matches_address(const HostRule& rule, const Address& address, std::uint16_t port) {
  if (rule.match != HostMatch::address || !rule.address || (rule.port && *rule.port != port)) {
    return false;
  }
  return same_host_address(*rule.address, address);
}

namespace {

template <typename Matches>
HostDecision decide(std::span<const HostRule> allow, std::span<const HostRule> deny,
                    Matches matches) {
  for (const HostRule& rule : deny) {
    if (matches(rule)) return {HostVerdict::denied, &rule};
  }
  for (const HostRule& rule : allow) {
    if (matches(rule)) return {HostVerdict::allowed, &rule};
  }
  return {};
}

}  // namespace

HostDecision decide_name(std::span<const HostRule> allow, std::span<const HostRule> deny,
                         std::string_view host, std::uint16_t port) {
  return decide(allow, deny,
                [&](const HostRule& rule) { return rule_matches_name(rule, host, port); });
}

HostDecision decide_address(std::span<const HostRule> allow, std::span<const HostRule> deny,
                            const Address& address, std::uint16_t port) {
  return decide(allow, deny,
                [&](const HostRule& rule) { return rule_matches_address(rule, address, port); });
}

HostDecision decide_name_any_port(std::span<const HostRule> allow, std::span<const HostRule> deny,
                                  std::string_view host) {
  for (const HostRule& rule : deny) {
    if (!rule.port && rule_matches_name(rule, host, 0)) return {HostVerdict::denied, &rule};
  }
  for (const HostRule& rule : allow) {
    if (rule_matches_name(rule, host, rule.port.value_or(0))) return {HostVerdict::allowed, &rule};
  }
  return {};
}

}  // namespace holdfast::network
