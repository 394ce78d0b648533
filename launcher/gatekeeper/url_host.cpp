#include "launcher/gatekeeper/url_host.hpp"

#include <algorithm>
#include <array>

namespace holdfast::gatekeeper {

namespace {

bool is_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// The standard removes every tab and newline anywhere in the input, and
// C0 controls and spaces at either end, before it parses.
std::string cleaned(std::string_view input) {
  while (!input.empty() && static_cast<unsigned char>(input.front()) <= 0x20) {
    input.remove_prefix(1);
  }
  while (!input.empty() && static_cast<unsigned char>(input.back()) <= 0x20) input.remove_suffix(1);
  std::string out;
  for (const char c : input) {
    if (c != '\t' && c != '\n' && c != '\r') out += c;
  }
  return out;
}

// "http:" and the like: letters first, then letters, digits, '+', '-',
// '.'. "example.com:8443/x" has the form too; what follows its colon (a
// port) tells it apart below.
std::size_t scheme_length(std::string_view url) {
  if (url.empty() || !is_ascii_alpha(url.front())) return 0;
  for (std::size_t i = 1; i < url.size(); ++i) {
    const char c = url[i];
    if (c == ':') return i;
    if (!is_ascii_alpha(c) && !is_ascii_digit(c) && c != '+' && c != '-' && c != '.') return 0;
  }
  return 0;
}

// Schemes whose URLs always have a host, and for which the standard treats
// '\' as '/' and forgives missing or extra slashes after the colon.
bool is_special(std::string_view scheme) {
  constexpr std::array<std::string_view, 6> kSpecial = {"http", "https", "ws",
                                                        "wss",  "ftp",   "file"};
  return std::find(kSpecial.begin(), kSpecial.end(), scheme) != kSpecial.end();
}

int hex_value(char c) {
  if (is_ascii_digit(c)) return c - '0';
  c = lower(c);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
        hex_value(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

bool judgeable_name(std::string_view host) {
  return std::all_of(host.begin(), host.end(), [](char c) {
    return is_ascii_alpha(c) || is_ascii_digit(c) || c == '-' || c == '.' || c == '_';
  });
}

bool judgeable_ipv6(std::string_view host) {
  return std::all_of(host.begin(), host.end(), [](char c) {
    return is_ascii_digit(c) || (lower(c) >= 'a' && lower(c) <= 'f') || c == ':' || c == '.';
  });
}

}  // namespace

std::string url_host(std::string_view input) {
  const std::string url = cleaned(input);
  std::string_view rest = url;
  bool special = true;  // no scheme: a fetch tool takes it for http(s)
  if (const std::size_t length = scheme_length(rest); length > 0) {
    const std::string_view after = rest.substr(length + 1);
    const bool is_port = !after.empty() && is_ascii_digit(after.front());
    if (!is_port) {
      std::string scheme;
      for (const char c : rest.substr(0, length)) scheme += lower(c);
      special = is_special(scheme);
      rest = after;
      if (!special) {
        // "mailto:x@y", "data:...": no host; "git://host/x": the host.
        if (!rest.starts_with("//")) return "";
        rest.remove_prefix(2);
      }
    }
  }
  const std::string_view separators = special ? "/\\" : "/";
  if (special) {
    while (!rest.empty() && separators.find(rest.front()) != std::string_view::npos) {
      rest.remove_prefix(1);
    }
  }
  // The authority ends at the path, the query or the fragment; with a
  // special scheme a backslash starts the path too.
  rest = rest.substr(0, rest.find_first_of(special ? "/\\?#" : "/?#"));
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
  if (rest.starts_with('[')) {
    const auto close = rest.find(']');
    if (close == std::string_view::npos) return "";
    const std::string_view literal = rest.substr(1, close - 1);
    if (!judgeable_ipv6(literal)) return "";
    std::string host;
    for (const char c : literal) host += lower(c);
    return host;
  }
  rest = rest.substr(0, rest.find(':'));
  std::string host = percent_decoded(rest);
  while (host.ends_with('.')) host.pop_back();  // example.com. is example.com
  if (!judgeable_name(host)) return "";
  std::transform(host.begin(), host.end(), host.begin(), lower);
  return host;
}

}  // namespace holdfast::gatekeeper
