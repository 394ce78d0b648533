// A request and its answer as the routes see them: plain data, no HTTP
// library in sight. The server (http_server.cpp) fills a Request from what
// it parsed and writes the Response back; the routes, the access rules and
// the body rules are functions of these values, testable without a socket.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace holdfast::service {

// Who is connected, as the kernel says (SO_PEERCRED on the Unix socket).
struct Peer {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

struct Request {
  std::string method;                             // "GET", "PUT", ...
  std::string path;                               // the target before '?', as sent
  std::multimap<std::string, std::string> query;  // decoded name → value
  // Header names as sent; looked up without regard to case.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::optional<Peer> peer;          // set on the Unix socket
  std::vector<std::string> matches;  // the route pattern's groups

  // The value of header `name`, nullopt when absent. A header sent twice
  // is read as absent by no one: see repeated_header().
  std::optional<std::string> header(std::string_view name) const;
  // The first of the headers that matter to access (Host, Origin,
  // Authorization, Content-Type, If-Match) that was sent more than once.
  std::optional<std::string> repeated_header() const;
  bool has_param(std::string_view name) const { return query.count(std::string(name)) > 0; }
  std::string param(std::string_view name) const;  // "" when absent
};

// An event stream: the connection stays open and carries server-sent
// events. `subscribe` is called once the answer's head is sent, with a
// function that queues one event's text for the connection (from any
// thread); what it returns is kept while the connection lives and dropped
// when it closes (ending the subscription).
struct EventStream {
  std::function<std::shared_ptr<void>(std::function<void(std::string)> send)> subscribe;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  bool close = false;  // close the connection after this answer
  std::optional<EventStream> stream;

  void set_header(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
  }
};

// Splits "a=1&b=%2Fx+y" into decoded pairs ("+" is a space, as browsers
// encode forms and URLSearchParams). Nullopt when a %-escape is malformed.
std::optional<std::multimap<std::string, std::string>> parse_query(std::string_view query);

bool iequals(std::string_view a, std::string_view b);

}  // namespace holdfast::service
