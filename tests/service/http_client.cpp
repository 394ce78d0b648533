#include "tests/service/http_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/beast/http.hpp>
#include <cerrno>
#include <cstring>

namespace holdfast::testing {

namespace {

namespace http = boost::beast::http;

bool iequal(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

}  // namespace

std::string HttpAnswer::header(const std::string& name) const {
  for (const auto& [key, value] : headers) {
    if (iequal(key, name)) return value;
  }
  return "";
}

bool HttpAnswer::has_header(const std::string& name) const {
  for (const auto& [key, value] : headers) {
    if (iequal(key, name)) return true;
  }
  return false;
}

HttpConnection HttpConnection::unix_socket(std::filesystem::path path) {
  HttpConnection connection;
  connection.unix_path_ = std::move(path);
  connection.host_ = "localhost";
  return connection;
}

HttpConnection HttpConnection::tcp(std::string host, std::uint16_t port) {
  HttpConnection connection;
  connection.host_ = std::move(host);
  connection.port_ = port;
  return connection;
}

bool HttpConnection::connect() {
  if (fd_.valid()) return true;
  pending_.clear();
  if (unix_path_) {
    fd_ = base::UniqueFd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", unix_path_->c_str());
    if (::connect(fd_.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      fd_.reset();
      return false;
    }
    return true;
  }
  fd_ = base::UniqueFd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port_);
  inet_pton(AF_INET, host_.c_str(), &address.sin_addr);
  if (::connect(fd_.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    fd_.reset();
    return false;
  }
  const int on = 1;
  setsockopt(fd_.get(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  return true;
}

void HttpConnection::close() {
  fd_.reset();
  pending_.clear();
}

bool HttpConnection::write_all(const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::send(fd_.get(), bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

bool HttpConnection::read_more() {
  pollfd p{fd_.get(), POLLIN, 0};
  for (;;) {
    const int ready = poll(&p, 1, static_cast<int>(bound_.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    break;
  }
  char buffer[16384];
  ssize_t n;
  do n = ::recv(fd_.get(), buffer, sizeof buffer, 0);
  while (n < 0 && errno == EINTR);
  if (n <= 0) return false;
  pending_.append(buffer, static_cast<std::size_t>(n));
  return true;
}

namespace {

std::string request_text(const HttpRequest& request, const std::string& default_host) {
  std::string text = request.method + " " + request.target + " HTTP/1.1\r\n";
  bool has_host = false;
  for (const auto& [name, value] : request.headers) {
    if (iequal(name, "Host")) has_host = true;
  }
  if (!has_host) text += "Host: " + default_host + "\r\n";
  for (const auto& [name, value] : request.headers) text += name + ": " + value + "\r\n";
  if (!request.body.empty() || request.method == "PUT" || request.method == "PATCH" ||
      request.method == "POST") {
    if (!request.body.empty() && !request.content_type.empty()) {
      text += "Content-Type: " + request.content_type + "\r\n";
    }
    text += "Content-Length: " + std::to_string(request.body.size()) + "\r\n";
  }
  text += "\r\n";
  text += request.body;
  return text;
}

template <class Parser>
HttpAnswer answer_of(Parser& parser) {
  HttpAnswer answer;
  const auto& message = parser.get();
  answer.status = static_cast<int>(message.result_int());
  for (const auto& field : message) {
    answer.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  return answer;
}

}  // namespace

std::optional<HttpAnswer> HttpConnection::send(const HttpRequest& request) {
  if (!connect()) return std::nullopt;
  const std::string host = unix_path_ ? host_ : host_ + ":" + std::to_string(port_);
  if (!write_all(request_text(request, host)) && pending_.empty()) {
    // The server may have answered and closed already (a refusal that
    // reads nothing): that answer is read below. Or it closed a kept-alive
    // connection: then once more, anew.
    pollfd p{fd_.get(), POLLIN, 0};
    const bool answered = poll(&p, 1, 0) > 0 && read_more();
    if (!answered) {
      close();
      if (!connect() || !write_all(request_text(request, host))) return std::nullopt;
    }
  }
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 << 20);
  parser.skip(request.method == "HEAD");
  boost::system::error_code error;
  while (!parser.is_done()) {
    if (!pending_.empty()) {
      const std::size_t used = parser.put(boost::asio::buffer(pending_), error);
      pending_.erase(0, used);
      if (error == http::error::need_more) {
        error = {};
      } else if (error) {
        close();
        return std::nullopt;
      }
      if (parser.is_done()) break;
      if (used > 0) continue;
    }
    if (!read_more()) {
      if (parser.is_header_done()) {
        parser.put_eof(error);  // a body that ends with the connection
        if (!error && parser.is_done()) break;
      }
      close();
      return std::nullopt;
    }
  }
  HttpAnswer answer = answer_of(parser);
  answer.body = parser.get().body();
  if (!parser.get().keep_alive()) close();
  return answer;
}

std::optional<HttpAnswer> HttpConnection::get(const std::string& target, Headers headers) {
  return send({"GET", target, std::move(headers), "", ""});
}

std::optional<HttpAnswer> HttpConnection::put(const std::string& target, std::string body,
                                              Headers headers) {
  return send({"PUT", target, std::move(headers), std::move(body)});
}

std::optional<HttpAnswer> HttpConnection::patch(const std::string& target, std::string body,
                                                Headers headers) {
  return send({"PATCH", target, std::move(headers), std::move(body)});
}

std::optional<HttpAnswer> HttpConnection::post(const std::string& target, std::string body,
                                               Headers headers) {
  return send({"POST", target, std::move(headers), std::move(body)});
}

std::optional<HttpAnswer> HttpConnection::open_stream(const HttpRequest& request) {
  if (!connect()) return std::nullopt;
  const std::string host = unix_path_ ? host_ : host_ + ":" + std::to_string(port_);
  if (!write_all(request_text(request, host))) return std::nullopt;
  http::response_parser<http::empty_body> parser;
  parser.eager(false);
  boost::system::error_code error;
  while (!parser.is_header_done()) {
    if (!pending_.empty()) {
      const std::size_t used = parser.put(boost::asio::buffer(pending_), error);
      pending_.erase(0, used);
      if (error && error != http::error::need_more) return std::nullopt;
      if (parser.is_header_done()) break;
      if (used > 0) continue;
    }
    if (!read_more()) return std::nullopt;
  }
  HttpAnswer answer = answer_of(parser);
  if (answer.status != 200) {
    // An error answer has a body of its own: read it as such.
    const std::size_t length =
        std::stoul(answer.header("Content-Length").empty() ? "0" : answer.header("Content-Length"));
    while (pending_.size() < length && read_more()) {
    }
    answer.body = pending_.substr(0, length);
    close();
  }
  return answer;
}

std::optional<std::string> HttpConnection::next_event() {
  for (;;) {
    const std::size_t end = pending_.find("\n\n");
    if (end != std::string::npos) {
      std::string event = pending_.substr(0, end);
      pending_.erase(0, end + 2);
      if (event.starts_with(":")) continue;  // a comment (keep-alive)
      return event;
    }
    if (!read_more()) return std::nullopt;
  }
}

std::string event_data(const std::string& event) {
  const std::size_t at = event.find("data: ");
  return at == std::string::npos ? std::string() : event.substr(at + 6);
}

std::string event_name(const std::string& event) {
  if (!event.starts_with("event: ")) return "";
  return event.substr(7, event.find('\n') - 7);
}

}  // namespace holdfast::testing
