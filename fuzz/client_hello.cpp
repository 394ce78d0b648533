// Fuzz target: the TLS ClientHello a confined command sends through a
// CONNECT tunnel, read for its server name.
//
// Properties:
// * the incremental contract: the input fed in two pieces (split at a
//   point the first byte picks) ends in the verdict the whole input gets,
//   since a verdict on a prefix (parsed, not TLS or refused) is final;
// * a ClientHello that is parsed is the input's first CONSUMED bytes, at
//   most the limits allow, and reads the same on its own;
// * a server name is what the allow-list compares: 1 to 253 bytes of
//   lower-case letters, digits, '-', '_' and '.', no trailing dot.
#include "launcher/network/client_hello.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.hpp"

using holdfast::fuzz::check;
namespace network = holdfast::network;

namespace {

std::string describe(const network::ClientHello& hello) {
  return std::to_string(static_cast<int>(hello.status)) + "|" + hello.reason + "|" +
         hello.server_name.value_or("-") + "|" + std::to_string(hello.has_ech) + "|" +
         std::to_string(hello.consumed);
}

bool name_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = size == 0 ? 0 : data[0] * size / 255;
  const network::ClientHello whole = network::parse_client_hello(input);
  const network::ClientHello first = network::parse_client_hello(input.substr(0, split));
  if (first.status != network::HelloStatus::need_more) {
    check(describe(first) == describe(whole), "a verdict on a prefix is the verdict on the whole");
  }
  if (whole.status == network::HelloStatus::refused) check(!whole.reason.empty(), "says why");
  if (whole.status != network::HelloStatus::parsed) return 0;
  check(whole.consumed <= input.size(), "a ClientHello is within the input");
  check(whole.consumed <= network::kMaxClientHelloBytes + 5 * network::kMaxClientHelloRecords,
        "a ClientHello is within the limits");
  check(describe(network::parse_client_hello(input.substr(0, whole.consumed))) == describe(whole),
        "a ClientHello reads the same without what follows it");
  if (whole.server_name) {
    const std::string& name = *whole.server_name;
    check(!name.empty() && name.size() <= 253 && !name.ends_with('.') &&
              std::all_of(name.begin(), name.end(), name_byte),
          "a server name is a normalized hostname");
  }
  return 0;
}
