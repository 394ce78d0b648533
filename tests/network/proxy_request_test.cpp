// The HTTP request heads a confined command sends to the proxy: what a
// CONNECT and a plain-HTTP request yield, every refusal with its reason,
// the limits at and one past their bounds, and the incremental contract
// (a verdict on a prefix is the verdict on the whole).
#include "launcher/network/proxy_request.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace holdfast::network {
// Helpers and tests both in a named namespace: a unity build compiles this
// file in one unit with the suite's other files, which have helpers of the
// same names.
namespace proxy_request_test {

// Captured from curl 7.88.1 (Debian 12) against a python3 socket listener
// on 127.0.0.1 that recorded the first bytes it received:
//   curl -x http://127.0.0.1:18001 https://Example.COM./
const std::string kCurlConnect =
    "CONNECT Example.COM.:443 HTTP/1.1\r\n"
    "Host: Example.COM.:443\r\n"
    "User-Agent: curl/7.88.1\r\n"
    "Proxy-Connection: Keep-Alive\r\n"
    "\r\n";

// The same way: curl -x http://127.0.0.1:18002 'http://Example.COM:8080/a/b?c=d'
const std::string kCurlAbsolute =
    "GET http://Example.COM:8080/a/b?c=d HTTP/1.1\r\n"
    "Host: Example.COM:8080\r\n"
    "User-Agent: curl/7.88.1\r\n"
    "Accept: */*\r\n"
    "Proxy-Connection: Keep-Alive\r\n"
    "\r\n";

// A head from a request line and header lines, CRLF everywhere.
std::string head(std::string_view request_line, const std::vector<std::string>& headers = {}) {
  std::string text = std::string(request_line) + "\r\n";
  for (const std::string& header : headers) text += header + "\r\n";
  return text + "\r\n";
}

std::string connect_with(const std::vector<std::string>& headers) {
  return head("CONNECT example.com:443 HTTP/1.1", headers);
}

std::string get_with(const std::vector<std::string>& headers) {
  return head("GET http://example.com/ HTTP/1.1", headers);
}

// Everything a result says, so that two results compare in one line and a
// failure shows both.
std::string describe(const RequestHead& head) {
  const ProxyRequest& r = head.request;
  std::string text = std::to_string(static_cast<int>(head.status)) +
                     " consumed=" + std::to_string(head.consumed) + " reason=" + head.reason;
  text += " form=" + std::to_string(static_cast<int>(r.form)) + " method=" + r.method +
          " host=" + r.host + " address=" + (r.address ? to_string(*r.address) : "-") +
          " port=" + std::to_string(r.port) + " path=" + r.path +
          " minor=" + std::to_string(r.minor_version) + " host_header=" + r.host_header +
          " check=" + std::to_string(static_cast<int>(r.host_header_check)) +
          " length=" + (r.content_length ? std::to_string(*r.content_length) : "-") +
          " chunked=" + std::to_string(r.chunked) + " line=" + std::to_string(r.request_line_bytes);
  return text;
}

// Why INPUT is refused, or what else happened.
std::string refusal(std::string_view input) {
  const RequestHead result = parse_request_head(input);
  if (result.status == HeadStatus::refused) return result.reason;
  return result.status == HeadStatus::done ? "done" : "need more";
}

// The incremental contract on every prefix of INPUT: need_more, or the
// very verdict the whole input gets.
void expect_prefixes_agree(std::string_view input, bool later = false) {
  const auto parse = later ? parse_later_request_head : parse_request_head;
  const std::string whole = describe(parse(input));
  for (std::size_t size = 0; size < input.size(); ++size) {
    const RequestHead prefix = parse(input.substr(0, size));
    if (prefix.status != HeadStatus::need_more) {
      ASSERT_EQ(describe(prefix), whole) << "prefix of " << size << " bytes";
    }
  }
}

// Fed one byte more at a time, a complete head needs more until its last
// byte, which completes it: no truncation of it is ever done.
void expect_need_more_until_the_end(std::string_view input) {
  for (std::size_t size = 0; size < input.size(); ++size) {
    ASSERT_EQ(parse_request_head(input.substr(0, size)).status, HeadStatus::need_more)
        << "prefix of " << size << " bytes";
  }
  const RequestHead whole = parse_request_head(input);
  EXPECT_EQ(whole.status, HeadStatus::done) << whole.reason;
  EXPECT_EQ(whole.consumed, input.size());
}

// A head of exactly SIZE bytes (at least 100): two padding headers, each
// line within the line limit.
std::string head_of_size(std::size_t size) {
  const std::string start = "GET http://example.com/ HTTP/1.1\r\n";
  const std::size_t overhead = start.size() + 2 * std::string("X-Pad: \r\n").size() + 2;
  const std::size_t pad = size - overhead;
  return start + "X-Pad: " + std::string(pad / 2, 'a') +
         "\r\nX-Pad: " + std::string(pad - pad / 2, 'b') + "\r\n\r\n";
}

TEST(ProxyRequestHead, CurlsConnectNamesTheHostLowerCasedWithoutItsTrailingDot) {
  const RequestHead result = parse_request_head(kCurlConnect);
  ASSERT_EQ(result.status, HeadStatus::done) << result.reason;
  EXPECT_EQ(result.consumed, kCurlConnect.size());
  const ProxyRequest& r = result.request;
  EXPECT_EQ(r.form, RequestForm::connect);
  EXPECT_EQ(r.method, "CONNECT");
  EXPECT_EQ(r.host, "example.com");
  EXPECT_FALSE(r.address);
  EXPECT_EQ(r.port, 443);
  EXPECT_EQ(r.path, "");
  EXPECT_EQ(r.minor_version, 1);
  EXPECT_EQ(r.host_header, "Example.COM.:443");
  EXPECT_EQ(r.host_header_check, HostHeader::same);
  EXPECT_FALSE(r.content_length);
  EXPECT_FALSE(r.chunked);
  EXPECT_EQ(r.request_line_bytes, std::string("CONNECT Example.COM.:443 HTTP/1.1\r\n").size());
}

TEST(ProxyRequestHead, CurlsPlainHttpRequestGivesHostPortAndTheOriginFormPath) {
  const RequestHead result = parse_request_head(kCurlAbsolute);
  ASSERT_EQ(result.status, HeadStatus::done) << result.reason;
  EXPECT_EQ(result.consumed, kCurlAbsolute.size());
  const ProxyRequest& r = result.request;
  EXPECT_EQ(r.form, RequestForm::absolute);
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.host, "example.com");
  EXPECT_EQ(r.port, 8080);
  EXPECT_EQ(r.path, "/a/b?c=d");
  EXPECT_EQ(r.host_header, "Example.COM:8080");
  EXPECT_EQ(r.host_header_check, HostHeader::same);
  EXPECT_EQ(r.request_line_bytes,
            std::string("GET http://Example.COM:8080/a/b?c=d HTTP/1.1\r\n").size());
}

TEST(ProxyRequestHead, FedOneByteAtATimeItNeedsMoreUntilTheLastByte) {
  expect_need_more_until_the_end(kCurlConnect);
  expect_need_more_until_the_end(kCurlAbsolute);
  expect_need_more_until_the_end(head("CONNECT [2001:db8::1]:443 HTTP/1.0"));
}

TEST(ProxyRequestHead, BytesAfterTheHeadAreNotPartOfIt) {
  // A client may send the TLS ClientHello right behind its CONNECT, and a
  // body follows a POST's head.
  const std::string tunnel = kCurlConnect + "\x16\x03\x01\x02\x00";
  const RequestHead result = parse_request_head(tunnel);
  ASSERT_EQ(result.status, HeadStatus::done);
  EXPECT_EQ(result.consumed, kCurlConnect.size());
  EXPECT_EQ(describe(result), describe(parse_request_head(kCurlConnect)));
  const std::string post = head("POST http://example.com/ HTTP/1.1", {"Content-Length: 5"});
  const RequestHead with_body = parse_request_head(post + "hello");
  ASSERT_EQ(with_body.status, HeadStatus::done);
  EXPECT_EQ(with_body.consumed, post.size());
  EXPECT_EQ(with_body.request.content_length, 5u);
}

TEST(ProxyRequestHead, ConnectTakesIpLiteralsAsAddresses) {
  const RequestHead v6 = parse_request_head(head("CONNECT [2001:DB8:0::1]:8443 HTTP/1.1"));
  ASSERT_EQ(v6.status, HeadStatus::done) << v6.reason;
  EXPECT_EQ(v6.request.host, "2001:db8::1");
  ASSERT_TRUE(v6.request.address);
  EXPECT_EQ(v6.request.address->family, Family::ipv6);
  EXPECT_EQ(v6.request.port, 8443);
  const RequestHead v4 = parse_request_head(head("CONNECT 127.0.0.1:22 HTTP/1.1"));
  ASSERT_EQ(v4.status, HeadStatus::done) << v4.reason;
  EXPECT_EQ(v4.request.host, "127.0.0.1");
  ASSERT_TRUE(v4.request.address);
  EXPECT_EQ(v4.request.address->family, Family::ipv4);
}

TEST(ProxyRequestHead, ConnectNeedsADecimalPortFrom1To65535) {
  const std::string bad_port = "the port is not a number from 1 to 65535";
  EXPECT_EQ(refusal(head("CONNECT example.com HTTP/1.1")), "CONNECT without a port");
  EXPECT_EQ(refusal(head("CONNECT example.com: HTTP/1.1")), bad_port);
  EXPECT_EQ(refusal(head("CONNECT example.com:0 HTTP/1.1")), bad_port);
  EXPECT_EQ(refusal(head("CONNECT example.com:65536 HTTP/1.1")), bad_port);
  EXPECT_EQ(refusal(head("CONNECT example.com:+443 HTTP/1.1")), bad_port);
  EXPECT_EQ(refusal(head("CONNECT example.com:44a HTTP/1.1")), bad_port);
  EXPECT_EQ(refusal(head("CONNECT example.com:0x1bb HTTP/1.1")), bad_port);
  EXPECT_EQ(refusal(head("CONNECT example.com:000443 HTTP/1.1")), bad_port);
  EXPECT_EQ(refusal(head("CONNECT [::1] HTTP/1.1")), "CONNECT without a port");
  EXPECT_EQ(parse_request_head(head("CONNECT example.com:65535 HTTP/1.1")).request.port, 65535);
  EXPECT_EQ(parse_request_head(head("CONNECT example.com:1 HTTP/1.1")).request.port, 1);
}

TEST(ProxyRequestHead, AbsoluteFormDefaultsToPort80AndAPathOfSlash) {
  const RequestHead bare = parse_request_head(head("GET http://example.com HTTP/1.1"));
  ASSERT_EQ(bare.status, HeadStatus::done) << bare.reason;
  EXPECT_EQ(bare.request.port, 80);
  EXPECT_EQ(bare.request.path, "/");
  const RequestHead query = parse_request_head(head("HEAD HTTP://EXAMPLE.com?x=1 HTTP/1.0"));
  ASSERT_EQ(query.status, HeadStatus::done) << query.reason;
  EXPECT_EQ(query.request.method, "HEAD");
  EXPECT_EQ(query.request.host, "example.com");
  EXPECT_EQ(query.request.path, "/?x=1");
  EXPECT_EQ(query.request.minor_version, 0);
  const RequestHead v6 = parse_request_head(head("GET http://[::1]:8080/x HTTP/1.1"));
  ASSERT_EQ(v6.status, HeadStatus::done) << v6.reason;
  EXPECT_EQ(v6.request.host, "::1");
  EXPECT_EQ(v6.request.port, 8080);
  EXPECT_EQ(v6.request.path, "/x");
}

TEST(ProxyRequestHead, OnlyHttpUrlsAreForwarded) {
  EXPECT_EQ(refusal(head("GET https://example.com/ HTTP/1.1")),
            "an https:// URL: HTTPS goes through CONNECT");
  EXPECT_EQ(refusal(head("GET / HTTP/1.1", {"Host: example.com"})),
            "a path without a host: a proxy is sent URLs");
  EXPECT_EQ(refusal(head("GET ftp://example.com/ HTTP/1.1")), "the target is not an http:// URL");
  EXPECT_EQ(refusal(head("OPTIONS * HTTP/1.1")), "the target is not an http:// URL");
  EXPECT_EQ(refusal(head("GET example.com:80 HTTP/1.1")), "the target is not an http:// URL");
  // Methods are case-sensitive: "connect" is some other method, whose
  // target is not a URL.
  EXPECT_EQ(refusal(head("connect example.com:443 HTTP/1.1")), "the target is not an http:// URL");
  // And CONNECT takes no URL.
  EXPECT_EQ(refusal(head("CONNECT http://example.com/ HTTP/1.1")),
            "the port is not a number from 1 to 65535");
}

TEST(ProxyRequestHead, UserInformationAndFragmentsInTheUrlAreRefused) {
  EXPECT_EQ(refusal(head("GET http://user@example.com/ HTTP/1.1")), "user information in the URL");
  EXPECT_EQ(refusal(head("GET http://u:p@example.com/ HTTP/1.1")), "user information in the URL");
  EXPECT_EQ(refusal(head("GET http://allowed.example@evil.example/ HTTP/1.1")),
            "user information in the URL");
  EXPECT_EQ(refusal(head("GET http://evil.example\\@allowed.example/ HTTP/1.1")),
            "user information in the URL");
  EXPECT_EQ(refusal(head("GET http://example.com/#top HTTP/1.1")), "a fragment in the target");
}

TEST(ProxyRequestHead, AHostIsANameOrAnIpLiteralAndNothingAResolverReadsTwoWays) {
  const std::string not_host = "the host is not a hostname or an IP address";
  EXPECT_EQ(refusal(head("GET http:///x HTTP/1.1")), not_host);
  EXPECT_EQ(refusal(head("GET http://2130706433/ HTTP/1.1")), not_host);
  EXPECT_EQ(refusal(head("GET http://0x7f.1/ HTTP/1.1")), not_host);
  EXPECT_EQ(refusal(head("CONNECT 127.1:443 HTTP/1.1")), not_host);
  EXPECT_EQ(refusal(head("GET http://ex%61mple.com/ HTTP/1.1")), not_host);
  EXPECT_EQ(refusal(head("GET http://a..b/ HTTP/1.1")), not_host);
  EXPECT_EQ(refusal(head("GET http://example.com../ HTTP/1.1")), not_host);
  EXPECT_EQ(refusal(head("GET http://exa_mple.com:80:80/ HTTP/1.1")),
            "the port is not a number from 1 to 65535");
  EXPECT_EQ(refusal(head("CONNECT ::1:443 HTTP/1.1")), not_host);
  EXPECT_EQ(refusal(head("CONNECT [::1:443 HTTP/1.1")), "'[' without ']' in the host");
  EXPECT_EQ(refusal(head("CONNECT [::1]x:443 HTTP/1.1")),
            "something other than \":port\" after ']'");
  EXPECT_EQ(refusal(head("CONNECT [127.0.0.1]:443 HTTP/1.1")),
            "not an IPv6 address between '[' and ']'");
  EXPECT_EQ(refusal(head("CONNECT [fe80::1%25eth0]:443 HTTP/1.1")),
            "not an IPv6 address between '[' and ']'");
  EXPECT_EQ(refusal(head("CONNECT example.com.:443 HTTP/1.1")), "done");
}

TEST(ProxyRequestHead, TheHostHeaderIsComparedWithTheTarget) {
  const auto check = [](const std::string& text) {
    const RequestHead result = parse_request_head(text);
    EXPECT_EQ(result.status, HeadStatus::done) << result.reason;
    return result.request.host_header_check;
  };
  EXPECT_EQ(check(get_with({})), HostHeader::absent);
  EXPECT_EQ(check(get_with({"Host: example.com"})), HostHeader::same);
  EXPECT_EQ(check(get_with({"host:EXAMPLE.com.  "})), HostHeader::same);
  EXPECT_EQ(check(get_with({"Host: example.com:80"})), HostHeader::same);
  EXPECT_EQ(check(get_with({"Host: example.com:8080"})), HostHeader::different);
  EXPECT_EQ(check(get_with({"Host: example.org"})), HostHeader::different);
  EXPECT_EQ(check(get_with({"Host: 93.184.216.34"})), HostHeader::different);
  EXPECT_EQ(check(head("GET http://example.com:8080/ HTTP/1.1", {"Host: example.com"})),
            HostHeader::different);
  // A CONNECT's Host may leave the port out (RFC 9110's own example does).
  EXPECT_EQ(check(connect_with({"Host: example.com"})), HostHeader::same);
  EXPECT_EQ(check(connect_with({"Host: example.com:80"})), HostHeader::different);
  EXPECT_EQ(check(head("CONNECT [2001:db8:0::1]:443 HTTP/1.1", {"Host: [2001:DB8::1]:443"})),
            HostHeader::same);
  const RequestHead kept = parse_request_head(get_with({"Host: \t Example.com:80 \t"}));
  EXPECT_EQ(kept.request.host_header, "Example.com:80");
}

TEST(ProxyRequestHead, OneHostHeaderThatNamesAHost) {
  const std::string invalid = "the Host header is not host[:port]";
  EXPECT_EQ(refusal(get_with({"Host: example.com", "Host: example.com"})),
            "more than one Host header");
  EXPECT_EQ(refusal(get_with({"Host: example.com", "HOST: evil.example"})),
            "more than one Host header");
  EXPECT_EQ(refusal(get_with({"Host:"})), invalid);
  EXPECT_EQ(refusal(get_with({"Host: user@example.com"})), invalid);
  EXPECT_EQ(refusal(get_with({"Host: example.com/x"})), invalid);
  EXPECT_EQ(refusal(get_with({"Host: example.com:0"})), invalid);
  EXPECT_EQ(refusal(get_with({"Host: example.com, evil.example"})), invalid);
}

TEST(ProxyRequestHead, TheBodysFramingCannotBeReadTwoWays) {
  const std::string both = "both Transfer-Encoding and Content-Length";
  EXPECT_EQ(refusal(get_with({"Transfer-Encoding: chunked", "Content-Length: 5"})), both);
  EXPECT_EQ(refusal(get_with({"Content-Length: 5", "transfer-encoding: chunked"})), both);
  EXPECT_EQ(refusal(get_with({"Content-Length: 5", "Content-Length: 6"})),
            "two Content-Length headers that differ");
  EXPECT_EQ(refusal(get_with({"Transfer-Encoding: chunked", "Transfer-Encoding: chunked"})),
            "more than one Transfer-Encoding header");
  EXPECT_EQ(refusal(get_with({"Transfer-Encoding: gzip, chunked"})),
            "a Transfer-Encoding other than \"chunked\"");
  EXPECT_EQ(refusal(get_with({"Transfer-Encoding: chunked, identity"})),
            "a Transfer-Encoding other than \"chunked\"");
  EXPECT_EQ(refusal(get_with({"Content-Length: 5", "Transfer_Encoding: chunked"})),
            "a framing header spelled with '_'");
  EXPECT_EQ(refusal(get_with({"content_length: 5"})), "a framing header spelled with '_'");
  EXPECT_EQ(refusal(head("POST http://example.com/ HTTP/1.0", {"Transfer-Encoding: chunked"})),
            "Transfer-Encoding in an HTTP/1.0 request");
  for (const char* value : {"5a", "-1", "+5", "5, 5", "", " ", "0x5", "1000000000000000000"}) {
    EXPECT_EQ(refusal(get_with({std::string("Content-Length: ") + value})),
              "a Content-Length that is not a decimal number")
        << value;
  }
}

TEST(ProxyRequestHead, FramingThatReadsOneWayIsReported) {
  const RequestHead repeated =
      parse_request_head(get_with({"Content-Length: 5", "content-length: 005"}));
  ASSERT_EQ(repeated.status, HeadStatus::done) << repeated.reason;
  EXPECT_EQ(repeated.request.content_length, 5u);
  const RequestHead largest = parse_request_head(get_with({"Content-Length: 999999999999999999"}));
  ASSERT_EQ(largest.status, HeadStatus::done) << largest.reason;
  EXPECT_EQ(largest.request.content_length, 999999999999999999u);
  const RequestHead chunked = parse_request_head(get_with({"Transfer-Encoding: Chunked"}));
  ASSERT_EQ(chunked.status, HeadStatus::done) << chunked.reason;
  EXPECT_TRUE(chunked.request.chunked);
  EXPECT_FALSE(chunked.request.content_length);
}

TEST(ProxyRequestHead, AConnectHasNoBody) {
  EXPECT_EQ(refusal(connect_with({"Content-Length: 5"})), "a CONNECT request with a body");
  EXPECT_EQ(refusal(connect_with({"Transfer-Encoding: chunked"})), "a CONNECT request with a body");
  EXPECT_EQ(refusal(connect_with({"Content-Length: 0"})), "done");
}

TEST(ProxyRequestHead, LinesEndInCrlfOnly) {
  // Some servers end a line at a lone LF or CR and others do not: what the
  // proxy judged and what the server acts on would differ.
  EXPECT_EQ(refusal("GET http://example.com/ HTTP/1.1\n\r\n"), "a line that ends in LF without CR");
  EXPECT_EQ(refusal("GET http://example.com/ HTTP/1.1\r\nHost: example.com\n\r\n"),
            "a line that ends in LF without CR");
  EXPECT_EQ(refusal("GET http://example.com/ HTTP/1.1\r\n\n"), "a line that ends in LF without CR");
  EXPECT_EQ(refusal("\n"), "a line that ends in LF without CR");
  EXPECT_EQ(refusal("GET http://example.com/ HTTP/1.1\r\nX: a\rTransfer-Encoding: chunked\r\n\r\n"),
            "a CR not followed by LF");
  EXPECT_EQ(refusal("GET http://example.com/ HTTP/1.1\r\r\n\r\n"), "a CR not followed by LF");
  // A CR at the end of what has arrived may yet be followed by LF.
  EXPECT_EQ(refusal("GET http://example.com/ HTTP/1.1\r"), "need more");
}

TEST(ProxyRequestHead, FoldedHeaderLinesAreRefused) {
  const std::string folded = "a header line that starts with a blank (line folding)";
  EXPECT_EQ(refusal(get_with({"X-A: 1", " Transfer-Encoding: chunked"})), folded);
  EXPECT_EQ(refusal(get_with({"X-A: 1", "\tcontinued"})), folded);
  EXPECT_EQ(refusal(get_with({" Host: example.com"})), folded);
}

TEST(ProxyRequestHead, HeaderNamesAreTokensFollowedByAColon) {
  const std::string not_token = "a header name that is not a token";
  EXPECT_EQ(refusal(get_with({"Host : example.com"})), not_token);
  EXPECT_EQ(refusal(get_with({"Transfer-Encoding\t: chunked"})), not_token);
  EXPECT_EQ(refusal(get_with({": value"})), not_token);
  EXPECT_EQ(refusal(get_with({"X(y): z"})), not_token);
  EXPECT_EQ(refusal(get_with({std::string("X\xc3\xa9: z")})), not_token);
  EXPECT_EQ(refusal(get_with({"No colon here"})), "a header line without ':'");
}

TEST(ProxyRequestHead, HeaderValuesHoldNoControlCharacters) {
  const std::string control = "a control character in a header value";
  EXPECT_EQ(refusal(get_with({std::string("X: a\0b", 6)})), control);
  EXPECT_EQ(refusal(get_with({"X: a\x01"
                              "b"})),
            control);
  EXPECT_EQ(refusal(get_with({"X: a\x7f"})), control);
  EXPECT_EQ(refusal(get_with({"X: a\tb"})), "done");
  EXPECT_EQ(refusal(get_with({"X: caf\xc3\xa9"})), "done");  // obs-text stays opaque
}

TEST(ProxyRequestHead, TheRequestLineIsMethodTargetVersion) {
  const std::string shape = "the request line is not METHOD TARGET VERSION";
  EXPECT_EQ(refusal(head("GET http://example.com/  HTTP/1.1")), shape);
  EXPECT_EQ(refusal(head("GET http://example.com/")), shape);
  EXPECT_EQ(refusal(head("GET http://example.com/ HTTP/1.1 extra")), shape);
  EXPECT_EQ(refusal(head("GET  http://example.com/ HTTP/1.1")), shape);
  EXPECT_EQ(refusal(head(" GET http://example.com/ HTTP/1.1")), shape);
  EXPECT_EQ(refusal(head(" http://example.com/ HTTP/1.1")), "the method is not a token");
  EXPECT_EQ(refusal(head("GE(T http://example.com/ HTTP/1.1")), "the method is not a token");
  EXPECT_EQ(refusal(head("G\x01T http://example.com/ HTTP/1.1")), "the method is not a token");
  for (const char* version : {"HTTP/1.2", "HTTP/2.0", "http/1.1", "HTTP/1.1 ", "HTTP/1"}) {
    EXPECT_EQ(
        refusal(head(std::string("GET http://example.com/ ") + version)),
        version == std::string("HTTP/1.1 ") ? shape : "the version is not HTTP/1.0 or HTTP/1.1")
        << version;
  }
  EXPECT_EQ(refusal(head("PURGE http://example.com/ HTTP/1.1")), "done");
}

TEST(ProxyRequestHead, TheTargetHoldsNoControlBlankOrNonAsciiByte) {
  const std::string control = "a control, blank or non-ASCII byte in the target";
  for (const std::string& byte : {std::string(1, '\0'), std::string("\t"), std::string("\x7f"),
                                  std::string("\x80"), std::string("\xff"), std::string("\x0b")}) {
    EXPECT_EQ(refusal(head("GET http://example.com/a" + byte + "b HTTP/1.1")), control)
        << static_cast<int>(static_cast<unsigned char>(byte[0]));
  }
  EXPECT_EQ(refusal(head("CONNECT exam\tple.com:443 HTTP/1.1")), control);
}

TEST(ProxyRequestHead, NoEmptyLineBeforeTheRequestLine) {
  EXPECT_EQ(refusal("\r\n" + kCurlConnect), "an empty line before the request line");
}

TEST(ProxyRequestHead, AHeadOf16KiBIsReadAndOneByteMoreIsRefused) {
  const std::string at_limit = head_of_size(kMaxRequestHeadBytes);
  ASSERT_EQ(at_limit.size(), kMaxRequestHeadBytes);
  const RequestHead read = parse_request_head(at_limit);
  ASSERT_EQ(read.status, HeadStatus::done) << read.reason;
  EXPECT_EQ(read.consumed, kMaxRequestHeadBytes);
  const std::string over = head_of_size(kMaxRequestHeadBytes + 1);
  EXPECT_EQ(refusal(over), "a request head longer than 16384 bytes");
  // Refused as soon as the byte past the limit arrives, not at the end.
  EXPECT_EQ(refusal(over.substr(0, kMaxRequestHeadBytes)), "need more");
  EXPECT_EQ(refusal(over.substr(0, kMaxRequestHeadBytes + 1)),
            "a request head longer than 16384 bytes");
}

TEST(ProxyRequestHead, ALineOf8KiBIsReadAndOneByteMoreIsRefused) {
  const std::string value_at_limit(kMaxRequestLineBytes - 3, 'v');  // "X: " and the value
  EXPECT_EQ(refusal(get_with({"X: " + value_at_limit})), "done");
  EXPECT_EQ(refusal(get_with({"X: " + value_at_limit + "v"})), "a line longer than 8192 bytes");
  const std::string prefix = "GET http://example.com/ HTTP/1.1\r\nX: " + value_at_limit;
  EXPECT_EQ(refusal(prefix), "need more");
  EXPECT_EQ(refusal(prefix + "v"), "a line longer than 8192 bytes");
  // The request line too.
  const std::string start = "GET http://example.com/";
  const std::string path(kMaxRequestLineBytes - start.size() - std::string(" HTTP/1.1").size(),
                         'p');
  EXPECT_EQ(refusal(head(start + path + " HTTP/1.1")), "done");
  EXPECT_EQ(refusal(head(start + path + "p HTTP/1.1")), "a line longer than 8192 bytes");
}

TEST(ProxyRequestHead, AHundredHeaderLinesAreReadAndOneMoreIsRefused) {
  std::vector<std::string> headers(kMaxRequestHeaderLines, "X: 1");
  EXPECT_EQ(refusal(get_with(headers)), "done");
  headers.emplace_back("X: 1");
  EXPECT_EQ(refusal(get_with(headers)), "more than 100 header lines");
}

TEST(ProxyRequestHead, ALaterHeadIsCheckedLikeTheFirstButMayNotConnect) {
  const RequestHead later = parse_later_request_head(kCurlAbsolute);
  EXPECT_EQ(describe(later), describe(parse_request_head(kCurlAbsolute)));
  const RequestHead tunnel = parse_later_request_head(kCurlConnect);
  EXPECT_EQ(tunnel.status, HeadStatus::refused);
  EXPECT_EQ(tunnel.reason, "CONNECT after another request on the connection");
  const RequestHead smuggled = parse_later_request_head(get_with({"Host: a.example", "Host: b"}));
  EXPECT_EQ(smuggled.reason, "more than one Host header");
}

TEST(ProxyRequestHead, AVerdictOnAPrefixIsTheVerdictOnTheWhole) {
  // The head limit's prefixes are in AHeadOf16KiBIsReadAndOneByteMoreIsRefused
  // (every prefix of 16 KiB here would take seconds at -O0).
  const std::vector<std::string> inputs = {
      kCurlConnect,
      kCurlAbsolute,
      kCurlConnect + "trailing tunnel bytes",
      get_with({"Host: example.com", "Host: example.com"}),
      get_with({"Content-Length: 5", "Transfer-Encoding: chunked"}),
      get_with({"X: a\x01"}),
      "GET http://example.com/ HTTP/1.1\r\nX: 1\n\r\n",
      "GET http://example.com/ HTTP/1.1\r\r\n",
      get_with({"X: " + std::string(kMaxRequestLineBytes, 'v')}),
      get_with(std::vector<std::string>(kMaxRequestHeaderLines + 1, "X: 1")),
  };
  for (const std::string& input : inputs) {
    expect_prefixes_agree(input);
    expect_prefixes_agree(input, true);
  }
}

}  // namespace proxy_request_test
}  // namespace holdfast::network
