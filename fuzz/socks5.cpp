// Fuzz target: SOCKS5 as a confined command speaks it to the network
// proxy: the greeting, then (from the bytes after it) the request.
//
// Properties:
// * the incremental contract: each message fed in two pieces (split at a
//   point the first byte picks) ends in the verdict the whole gets, since
//   a verdict on a prefix (done or refused) is final;
// * a message that is done is the input's first CONSUMED bytes and reads
//   the same on its own; a request names a host and a port that is not 0,
//   and its reply is 10 or 22 bytes; a refused request says why and has a
//   failure code to answer with.
#include "launcher/network/socks5.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.hpp"

using holdfast::fuzz::check;
namespace network = holdfast::network;

namespace {

std::string describe(const network::Socks5Greeting& greeting) {
  return std::to_string(static_cast<int>(greeting.status)) + "|" +
         std::to_string(greeting.consumed) + "|" + greeting.reason + "|" +
         std::to_string(greeting.no_auth_offered);
}

std::string describe(const network::Socks5Request& request) {
  const network::Socks5Destination& d = request.destination;
  return std::to_string(static_cast<int>(request.status)) + "|" + std::to_string(request.consumed) +
         "|" + request.reason + "|" + std::to_string(static_cast<int>(request.reply)) + "|" +
         d.host + "|" + (d.address ? network::to_string(*d.address) : "-") + "|" +
         std::to_string(d.port);
}

template <typename Result>
Result check_incremental(Result (*parse)(std::string_view), std::string_view input,
                         std::size_t split) {
  const Result whole = parse(input);
  const Result first = parse(input.substr(0, split));
  if (first.status != network::Socks5Status::need_more) {
    check(describe(first) == describe(whole), "a verdict on a prefix is the verdict on the whole");
  }
  if (whole.status == network::Socks5Status::done) {
    check(whole.consumed <= input.size(), "a message is within the input");
    check(describe(parse(input.substr(0, whole.consumed))) == describe(whole),
          "a message reads the same without what follows it");
  }
  if (whole.status == network::Socks5Status::refused) check(!whole.reason.empty(), "says why");
  return whole;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = size == 0 ? 0 : data[0] * size / 255;
  const network::Socks5Greeting greeting =
      check_incremental(network::parse_socks5_greeting, input, split);
  // The request as if it were the whole input too: the fuzzer then need
  // not find a valid greeting first.
  const std::string_view rest =
      greeting.status == network::Socks5Status::done ? input.substr(greeting.consumed) : input;
  const network::Socks5Request request =
      check_incremental(network::parse_socks5_request, rest, split % (rest.size() + 1));
  if (request.status == network::Socks5Status::done) {
    const network::Socks5Destination& d = request.destination;
    check(!d.host.empty() && d.port != 0, "a request names a host and a port");
    const std::size_t reply =
        network::socks5_request_reply(network::Socks5Reply::succeeded,
                                      d.address.value_or(network::Address{}), d.port)
            .size();
    check(reply == 10 || reply == 22, "a reply is 10 or 22 bytes");
  }
  if (request.status == network::Socks5Status::refused) {
    check(request.reply != network::Socks5Reply::succeeded, "a refusal answers with a failure");
  }
  return 0;
}
