// The host a fetch of a URL would reach, for domain rules.
#pragma once

#include <string>
#include <string_view>

namespace holdfast::gatekeeper {

// The host that a fetcher following the WHATWG URL standard (browsers,
// Node's fetch, curl for http and https) would connect to, lowercased and
// without a trailing dot: "https://user@Example.COM:8080/x" -> "example.com".
// The forms such parsers forgive count as well: "https:evil.com",
// "http:/evil.com", "https:\\evil.com\x", tabs and newlines inside, a
// backslash ending the authority ("https://evil.com\@good.com" is
// evil.com), a percent-encoded host ("ev%69l.com"), a URL without a scheme
// ("evil.com/x"). Empty when there is no host, or when the host is one a
// domain rule cannot judge: a byte outside ASCII letters, digits, '-', '.'
// and '_' (an internationalised name maps to another host through IDNA:
// "ｅｖｉｌ.com" is evil.com) or an IP literal with junk in it. Callers treat
// empty as "no host": never allowed by a domain rule.
std::string url_host(std::string_view url);

}  // namespace holdfast::gatekeeper
