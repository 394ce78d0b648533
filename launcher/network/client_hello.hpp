// The TLS ClientHello a confined command sends through a CONNECT tunnel,
// read for its server name (SNI) so the proxy can hold it against the
// allow-list and the CONNECT's host. The proxy forwards the bytes it read
// unchanged; it never terminates TLS.
//
// Incremental like the other parsers here: call with every byte received
// so far (a string_view of bytes); a verdict given on a prefix (parsed,
// not_tls or refused) is the verdict on anything that extends it. Every
// length field is checked against the one that contains it before any byte
// it counts is read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace holdfast::network {

// A ClientHello may span several records (a large one: many key shares,
// post-quantum ones); its handshake message, header included, may not be
// longer than this.
inline constexpr std::size_t kMaxClientHelloBytes = 64 * 1024;
// A record's length field (TLSCiphertext's bound; a plaintext record is
// 16384 at most, and the proxy reads no further than it must).
inline constexpr std::size_t kMaxTlsRecordBytes = 16384 + 2048;
// Records carrying one ClientHello. Real clients fill records (four of
// them hold the largest ClientHello above); the bound keeps what the proxy
// buffers near kMaxClientHelloBytes whoever splits the message into tiny
// records (a trick against inspecting middleboxes: it is reassembled here).
inline constexpr std::size_t kMaxClientHelloRecords = 64;

enum class HelloStatus : std::uint8_t {
  need_more,
  not_tls,  // the first byte is not a handshake record (22): plain HTTP in a tunnel, say
  refused,  // malformed, or a form the proxy will not pass (see reason)
  parsed,
};

struct ClientHello {
  HelloStatus status = HelloStatus::need_more;
  std::string reason;  // refused: why (fixed text, never the client's bytes)
  // The host_name of the server_name extension, lower-cased with one
  // trailing dot dropped (the allow-list's form). Nothing when the client
  // sent no server_name extension.
  std::optional<std::string> server_name;
  // An Encrypted ClientHello extension (0xfe0d): the name above is then the
  // public outer name, not the one the client is reaching. The proxy
  // refuses such a ClientHello.
  bool has_ech = false;
  // parsed: the bytes of the records that carried the ClientHello, record
  // headers included. The last of them ends where the ClientHello ends
  // (refused otherwise); whatever follows (a ChangeCipherSpec, early data)
  // belongs to the tunnel.
  std::size_t consumed = 0;
};

// Records: type 22, version 0x0301 to 0x0304, length 1 to kMaxTlsRecordBytes.
// The handshake message: type 1 (ClientHello), then legacy_version (0x0301
// to 0x0304), random, session_id (up to 32 bytes), cipher_suites (even,
// not empty), compression_methods (not empty), and extensions (optional;
// filling the rest exactly; no type twice). server_name: exactly one
// host_name of 1 to 255 bytes that is a hostname, not an IP address.
ClientHello parse_client_hello(std::string_view received);

}  // namespace holdfast::network
