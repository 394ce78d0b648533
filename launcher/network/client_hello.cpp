#include "launcher/network/client_hello.hpp"

#include <algorithm>
#include <bitset>

#include "launcher/network/address_check.hpp"
#include "launcher/network/host_rule.hpp"

namespace holdfast::network {
// Named, not anonymous alone: a unity build compiles this file in one unit
// with the rest of holdfast::network.
namespace client_hello_parse {
namespace {

constexpr std::uint8_t kHandshakeRecord = 22;
constexpr std::size_t kRecordHeaderBytes = 5;
constexpr std::size_t kClientHelloType = 1;
constexpr std::size_t kServerName = 0x0000;
constexpr std::size_t kEncryptedClientHello = 0xfe0d;
constexpr std::size_t kHostNameType = 0;
constexpr std::size_t kMaxSessionId = 32;
constexpr std::size_t kMaxServerName = 255;

// The handshake bytes of consecutive handshake records, read as one
// stream. A read stops at the first byte it lacks (need_more) or at the
// first record header it refuses.
struct Stream {
  std::string_view in;
  std::size_t at = 0;           // the next byte of IN to look at
  std::size_t record_left = 0;  // bytes of the current record not read yet
  std::size_t records = 0;
  HelloStatus status = HelloStatus::need_more;  // why a read stopped
  std::string reason;
};

bool fail(Stream& s, std::string_view reason) {
  s.status = HelloStatus::refused;
  s.reason = reason;
  return false;
}

bool open_record(Stream& s) {
  if (s.in.size() - s.at < kRecordHeaderBytes) return false;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(s.in[s.at + i]); };
  if (byte(0) != kHandshakeRecord) {
    return fail(s, "a record other than a handshake before the ClientHello ended");
  }
  if (byte(1) != 3 || byte(2) < 1 || byte(2) > 4) {
    return fail(s, "a record version other than TLS 1.0 to 1.3");
  }
  const std::size_t length = (std::size_t{byte(3)} << 8) | byte(4);
  // RFC 8446 (5.1) forbids empty handshake records.
  if (length == 0) return fail(s, "an empty handshake record");
  if (length > kMaxTlsRecordBytes) return fail(s, "a record longer than 18432 bytes");
  if (++s.records > kMaxClientHelloRecords) return fail(s, "a ClientHello in more than 64 records");
  s.at += kRecordHeaderBytes;
  s.record_left = length;
  return true;
}

// Reads N handshake bytes, appending them to OUT unless it is null.
bool read(Stream& s, std::size_t n, std::string* out) {
  while (n > 0) {
    if (s.record_left == 0 && !open_record(s)) return false;
    const std::size_t take = std::min({n, s.record_left, s.in.size() - s.at});
    if (take == 0) return false;
    if (out != nullptr) out->append(s.in.substr(s.at, take));
    s.at += take;
    s.record_left -= take;
    n -= take;
  }
  return true;
}

bool skip(Stream& s, std::size_t n) { return read(s, n, nullptr); }

// Takes N bytes out of a container with LEFT bytes, refusing with REASON
// when it holds fewer: checked before the bytes are read, so a length
// field that lies is refused without waiting for what it promises.
bool within(Stream& s, std::size_t& left, std::size_t n, std::string_view reason) {
  if (n > left) return fail(s, reason);
  left -= n;
  return true;
}

// A big-endian number of BYTES bytes.
bool read_number(Stream& s, std::size_t bytes, std::size_t& value) {
  value = 0;
  for (std::size_t i = 0; i < bytes; ++i) {
    if (s.record_left == 0 && !open_record(s)) return false;
    if (s.at == s.in.size()) return false;
    value = (value << 8) | static_cast<std::uint8_t>(s.in[s.at]);
    ++s.at;
    --s.record_left;
  }
  return true;
}

// The same, taken out of a container.
bool number(Stream& s, std::size_t& left, std::size_t bytes, std::size_t& value,
            std::string_view reason) {
  return within(s, left, bytes, reason) && read_number(s, bytes, value);
}

// A variable-length field: its length (PREFIX bytes) and its content, both
// inside the container; the content is skipped. LENGTH tells what it was.
bool skip_field(Stream& s, std::size_t& left, std::size_t prefix, std::size_t& length,
                std::string_view reason) {
  return number(s, left, prefix, length, reason) && within(s, left, length, reason) &&
         skip(s, length);
}

// server_name (RFC 6066): a list that fills the extension, holding one
// host_name. A second entry, another name type or bytes after the name are
// places where two readers could find two names.
bool read_server_name(Stream& s, std::size_t size, ClientHello& out) {
  constexpr std::string_view kPast = "a server_name field past the end of its extension";
  std::size_t left = size;
  std::size_t list = 0;
  std::size_t type = 0;
  std::size_t length = 0;
  if (!number(s, left, 2, list, kPast)) return false;
  if (list != left) return fail(s, "a server name list that does not fill its extension");
  if (!number(s, left, 1, type, kPast) || !number(s, left, 2, length, kPast)) return false;
  if (type != kHostNameType) return fail(s, "a server name that is not a host_name");
  if (length == 0) return fail(s, "an empty server name");
  if (length > kMaxServerName) return fail(s, "a server name longer than 255 bytes");
  if (length > left) return fail(s, "a server name longer than its list");
  if (length < left) return fail(s, "more than one server name");
  std::string name;
  if (!read(s, length, &name)) return false;
  if (!is_ascii(name)) return fail(s, "a server name that is not ASCII");
  if (parse_ip_literal(name)) return fail(s, "an IP address as the server name");
  out.server_name = normalize_wire_host_name(name);
  if (!out.server_name) return fail(s, "a server name that is not a hostname");
  return true;
}

bool read_extensions(Stream& s, std::size_t& left, ClientHello& out) {
  std::size_t block = 0;
  if (!number(s, left, 2, block, "an extensions length past the end of the ClientHello")) {
    return false;
  }
  if (block != left) return fail(s, "an extensions block that does not end with the ClientHello");
  std::bitset<65536> seen;  // TLS forbids an extension type twice
  while (left > 0) {
    std::size_t type = 0;
    std::size_t size = 0;
    constexpr std::string_view kHeaderPast = "an extension header past the end of the block";
    if (!number(s, left, 2, type, kHeaderPast) || !number(s, left, 2, size, kHeaderPast)) {
      return false;
    }
    if (seen.test(type)) return fail(s, "an extension type that appears twice");
    seen.set(type);
    if (!within(s, left, size, "an extension longer than the extensions block")) return false;
    if (type == kEncryptedClientHello) out.has_ech = true;
    const bool read_it = type == kServerName ? read_server_name(s, size, out) : skip(s, size);
    if (!read_it) return false;
  }
  return true;
}

bool read_client_hello(Stream& s, ClientHello& out) {
  std::size_t type = 0;
  std::size_t left = 0;  // of the ClientHello's body, once its length is read
  if (!read_number(s, 1, type)) return false;
  if (type != kClientHelloType) return fail(s, "a handshake message other than ClientHello");
  if (!read_number(s, 3, left)) return false;
  if (left + 4 > kMaxClientHelloBytes) return fail(s, "a ClientHello longer than 65536 bytes");
  constexpr std::string_view kPast = "a field past the end of the ClientHello";
  std::size_t version = 0;
  std::size_t length = 0;
  if (!number(s, left, 2, version, kPast)) return false;
  if (version < 0x0301 || version > 0x0304) {
    return fail(s, "a ClientHello version other than TLS 1.0 to 1.3");
  }
  if (!within(s, left, 32, kPast) || !skip(s, 32)) return false;  // random
  if (!number(s, left, 1, length, kPast)) return false;
  if (length > kMaxSessionId) return fail(s, "a session id longer than 32 bytes");
  if (!within(s, left, length, kPast) || !skip(s, length)) return false;
  if (!number(s, left, 2, length, kPast)) return false;
  if (length == 0 || length % 2 != 0) return fail(s, "a cipher suite list empty or of odd length");
  if (!within(s, left, length, kPast) || !skip(s, length)) return false;
  if (!skip_field(s, left, 1, length, kPast)) return false;
  if (length == 0) return fail(s, "no compression method");
  // TLS 1.2 and older may end the ClientHello here: no extensions, no name.
  return left == 0 || read_extensions(s, left, out);
}

}  // namespace
}  // namespace client_hello_parse

ClientHello parse_client_hello(std::string_view received) {
  namespace parse = client_hello_parse;
  ClientHello hello;
  if (received.empty()) return hello;
  if (static_cast<std::uint8_t>(received.front()) != parse::kHandshakeRecord) {
    hello.status = HelloStatus::not_tls;
    return hello;
  }
  parse::Stream stream;
  stream.in = received;
  if (!parse::read_client_hello(stream, hello)) {
    ClientHello stopped;
    stopped.status = stream.status;
    stopped.reason = std::move(stream.reason);
    return stopped;
  }
  // The record holds nothing after the ClientHello: a client sends nothing
  // else before the server answers, and the proxy forwards whole records.
  if (stream.record_left != 0) {
    ClientHello refused;
    refused.status = HelloStatus::refused;
    refused.reason = "bytes after the ClientHello in its record";
    return refused;
  }
  hello.status = HelloStatus::parsed;
  hello.consumed = stream.at;
  return hello;
}

}  // namespace holdfast::network
