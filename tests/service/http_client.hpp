// A small HTTP/1.1 client for the service's tests and its benchmark: one
// connection (Unix socket or TCP) kept alive across requests, a request
// written by hand, the answer parsed with Boost.Beast's parser. Event
// streams are read event by event. Every wait has a bound, which only a
// failing test reaches (then the call returns nullopt).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/fd.hpp"

namespace holdfast::testing {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "GET";
  std::string target = "/";
  Headers headers;  // a Host here replaces the default one
  std::string body;
  std::string content_type = "application/json";  // sent with a body; "" for none
};

struct HttpAnswer {
  int status = 0;
  Headers headers;
  std::string body;

  // "" when absent; names without regard to case.
  std::string header(const std::string& name) const;
  bool has_header(const std::string& name) const;
};

class HttpConnection {
 public:
  static HttpConnection unix_socket(std::filesystem::path path);
  static HttpConnection tcp(std::string host, std::uint16_t port);

  // The bound on each wait (default 60 s).
  void set_bound(std::chrono::milliseconds bound) { bound_ = bound; }

  // Sends `request` and reads the whole answer, connecting first when the
  // last answer closed the connection. Nullopt when the connection failed,
  // was closed before an answer, or the bound passed.
  std::optional<HttpAnswer> send(const HttpRequest& request);

  std::optional<HttpAnswer> get(const std::string& target, Headers headers = {});
  std::optional<HttpAnswer> put(const std::string& target, std::string body, Headers headers = {});
  std::optional<HttpAnswer> patch(const std::string& target, std::string body,
                                  Headers headers = {});
  std::optional<HttpAnswer> post(const std::string& target, std::string body, Headers headers = {});

  // Sends `request` and reads the answer's head only: for an event stream,
  // whose body then comes event by event through next_event().
  std::optional<HttpAnswer> open_stream(const HttpRequest& request);
  // The next event's text ("event: change\ndata: {...}"; comments are
  // skipped), or nullopt at the end of the stream or when the bound passed.
  std::optional<std::string> next_event();

  // Connects (if not connected) without sending anything.
  bool connect();
  void close();
  int fd() const { return fd_.get(); }

 private:
  HttpConnection() = default;
  bool write_all(const std::string& bytes);
  // Reads more bytes into pending_; false at end of file, error or bound.
  bool read_more();

  std::optional<std::filesystem::path> unix_path_;
  std::string host_;
  std::uint16_t port_ = 0;
  std::chrono::milliseconds bound_{std::chrono::seconds(60)};
  base::UniqueFd fd_;
  std::string pending_;  // bytes read and not yet parsed
};

// The parsed "data:" of an event's text (the JSON after "data: ").
std::string event_data(const std::string& event);
// The "event:" name of an event's text.
std::string event_name(const std::string& event);

}  // namespace holdfast::testing
