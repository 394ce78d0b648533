// Fuzz target: the HTTP request head a confined command sends to the
// network proxy (CONNECT or plain HTTP), as the first request on a
// connection and as a later one.
//
// Properties:
// * the incremental contract: the input fed in two pieces (split at a
//   point the first byte picks) ends in the verdict the whole input gets,
//   since a verdict on a prefix (done or refused) is final;
// * a head that is done is the input's first CONSUMED bytes, at most the
//   limit, ending in a blank line, and reads the same on its own;
// * what it names can be connected to: a host, a port that is not 0, an
//   origin-form path for plain HTTP; a refusal says why.
#include "launcher/network/proxy_request.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.hpp"

using holdfast::fuzz::check;
namespace network = holdfast::network;

namespace {

std::string describe(const network::RequestHead& head) {
  const network::ProxyRequest& r = head.request;
  return std::to_string(static_cast<int>(head.status)) + "|" + std::to_string(head.consumed) + "|" +
         head.reason + "|" + std::to_string(static_cast<int>(r.form)) + "|" + r.method + "|" +
         r.host + "|" + (r.address ? network::to_string(*r.address) : "-") + "|" +
         std::to_string(r.port) + "|" + r.path + "|" + std::to_string(r.minor_version) + "|" +
         r.host_header + "|" + std::to_string(static_cast<int>(r.host_header_check)) + "|" +
         (r.content_length ? std::to_string(*r.content_length) : "-") + "|" +
         std::to_string(r.chunked) + "|" + std::to_string(r.request_line_bytes);
}

void check_parser(network::RequestHead (*parse)(std::string_view), std::string_view input,
                  std::size_t split) {
  const network::RequestHead whole = parse(input);
  const network::RequestHead first = parse(input.substr(0, split));
  if (first.status != network::HeadStatus::need_more) {
    check(describe(first) == describe(whole), "a verdict on a prefix is the verdict on the whole");
  }
  switch (whole.status) {
    case network::HeadStatus::need_more:
      check(input.size() < network::kMaxRequestHeadBytes + 1, "no head waits past the limit");
      break;
    case network::HeadStatus::refused:
      check(!whole.reason.empty(), "a refusal says why");
      break;
    case network::HeadStatus::done: {
      const network::ProxyRequest& r = whole.request;
      check(whole.consumed <= input.size() && whole.consumed <= network::kMaxRequestHeadBytes,
            "a head is within the input and the limit");
      check(input.substr(0, whole.consumed).ends_with("\r\n\r\n"), "a head ends in a blank line");
      check(r.request_line_bytes > 0 && r.request_line_bytes < whole.consumed,
            "the request line is inside the head");
      check(!r.host.empty() && r.port != 0, "a head names a host and a port");
      check(r.form == network::RequestForm::connect ? r.path.empty() : r.path.starts_with('/'),
            "plain HTTP gives an origin-form path, CONNECT none");
      check(!(r.chunked && r.content_length), "one framing at most");
      check(describe(parse(input.substr(0, whole.consumed))) == describe(whole),
            "a head reads the same without what follows it");
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = size == 0 ? 0 : data[0] * size / 255;
  check_parser(network::parse_request_head, input, split);
  check_parser(network::parse_later_request_head, input, split);
  return 0;
}
