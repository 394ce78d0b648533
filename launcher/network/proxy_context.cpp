#include "launcher/network/proxy_context.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <ctime>

namespace holdfast::network::proxy_detail {

std::string audit_time_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  std::array<char, 40> text{};
  const std::size_t length = std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%S", &utc);
  const std::string fraction = std::to_string(1000 + millis).substr(1);  // three digits
  return std::string(text.data(), length) + "." + fraction + "Z";
}

void ProxyContext::remember_answer(const std::string& name, std::span<const Address> addresses) {
  for (const Address& address : addresses) {
    std::string key = to_string(address);
    const auto [it, inserted] = names_by_address_.insert_or_assign(key, name);
    if (!inserted) continue;  // already in the order; the name is the latest answer's
    remembered_order_.push_back(std::move(key));
    if (remembered_order_.size() > kRememberedAddresses) {
      names_by_address_.erase(remembered_order_.front());
      remembered_order_.pop_front();
    }
  }
}

const std::string* ProxyContext::name_answered_for(const Address& address) const {
  const auto it = names_by_address_.find(to_string(address));
  return it == names_by_address_.end() ? nullptr : &it->second;
}

void ProxyContext::write_audit(const AuditRecord& record) const {
  if (config.audit_fd < 0) return;
  const std::string line = audit_line(record);
  // One write: a short write of a line this small to a file does not
  // happen short of a full disk, and a retry could interleave.
  [[maybe_unused]] const ssize_t written = ::write(config.audit_fd, line.data(), line.size());
}

AuditEntry::AuditEntry(const ProxyContext& context, std::string protocol)
    : context_(context), start_(Clock::now()) {
  record.protocol = std::move(protocol);
}

void AuditEntry::set_destination(const Destination& destination) {
  record.host = destination.host;
  record.port = destination.port;
}

void AuditEntry::set_rule(const HostRule* rule) {
  if (rule == nullptr) return;
  record.rule = rule->text;
  record.rule_origin = rule->origin;
}

void AuditEntry::refuse(std::string reason) {
  record.allowed = false;
  record.reason = std::move(reason);
}

void AuditEntry::finish() {
  if (written_) return;
  written_ = true;
  record.duration_ms = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count());
  try {
    if (record.time.empty()) {
      AuditRecord stamped = record;
      stamped.time = audit_time_now();
      context_.write_audit(stamped);
    } else {
      context_.write_audit(record);
    }
  } catch (...) {
    // Out of memory building the line: the connection is over either way.
  }
}

SocketDeadline::SocketDeadline(Tcp::socket& socket)
    : socket_(socket), timer_(socket.get_executor()), state_(std::make_shared<State>()) {}

SocketDeadline::~SocketDeadline() {
  state_->alive = false;
  try {
    timer_.cancel();
  } catch (const boost::system::system_error&) {
    // The timer's handler checks `alive` first either way.
  }
}

void SocketDeadline::arm(Clock::duration after) {
  const std::uint64_t generation = ++state_->generation;
  state_->expired = false;
  timer_.expires_after(after);
  timer_.async_wait([state = state_, generation, &socket = socket_](const error_code& error) {
    if (error || !state->alive || state->generation != generation) return;
    state->expired = true;
    error_code ignored;
    socket.cancel(ignored);
  });
}

void SocketDeadline::disarm() {
  ++state_->generation;
  state_->expired = false;
  timer_.cancel();
}

asio::awaitable<error_code> read_more(Tcp::socket& socket, std::string& buffer, std::size_t limit,
                                      const SocketDeadline& deadline) {
  if (deadline.expired()) co_return asio::error::timed_out;
  if (buffer.size() >= limit) co_return asio::error::no_buffer_space;
  const std::size_t old_size = buffer.size();
  buffer.resize(std::min(limit, old_size + 16384));
  error_code error;
  const std::size_t got = co_await socket.async_read_some(
      asio::buffer(buffer.data() + old_size, buffer.size() - old_size),
      asio::redirect_error(asio::use_awaitable, error));
  buffer.resize(old_size + got);
  if (deadline.expired()) co_return asio::error::timed_out;
  co_return error;
}

Event::Event(const asio::any_io_executor& executor) : timer_(executor) {
  timer_.expires_at(asio::steady_timer::time_point::max());
}

void Event::set() {
  set_ = true;
  timer_.cancel();
}

asio::awaitable<void> Event::wait() {
  // Single-threaded: nothing can set the event between this check and the
  // wait below starting.
  if (set_) co_return;
  error_code ignored;
  co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
}

namespace proxy_context_parts {

// What run_both's two coroutines share with it. At namespace scope, not
// local to run_both: a coroutine frame holding a local type trips GCC's
// -Wsubobject-linkage in a unity build.
struct Join {
  explicit Join(const asio::any_io_executor& executor) : done(executor) {}
  int pending = 2;
  Event done;
};

struct JoinEnded {
  std::shared_ptr<Join> join;
  void operator()(const std::exception_ptr&) const {
    if (--join->pending == 0) join->done.set();
  }
};

}  // namespace proxy_context_parts

asio::awaitable<void> run_both(asio::awaitable<void> first, asio::awaitable<void> second) {
  const asio::any_io_executor executor = co_await asio::this_coro::executor;
  const auto join = std::make_shared<proxy_context_parts::Join>(executor);
  asio::co_spawn(executor, std::move(first), proxy_context_parts::JoinEnded{join});
  asio::co_spawn(executor, std::move(second), proxy_context_parts::JoinEnded{join});
  co_await join->done.wait();
}

Tcp::endpoint endpoint_of(const Address& address, std::uint16_t port) {
  if (address.family == Family::ipv4) {
    asio::ip::address_v4::bytes_type bytes{};
    std::copy_n(address.bytes.begin(), bytes.size(), bytes.begin());
    return {asio::ip::address_v4(bytes), port};
  }
  asio::ip::address_v6::bytes_type bytes{};
  std::copy_n(address.bytes.begin(), bytes.size(), bytes.begin());
  return {asio::ip::address_v6(bytes), port};
}

Address address_of(const asio::ip::address& address) {
  Address result;
  if (address.is_v4()) {
    const auto bytes = address.to_v4().to_bytes();
    std::copy(bytes.begin(), bytes.end(), result.bytes.begin());
  } else {
    result.family = Family::ipv6;
    const auto bytes = address.to_v6().to_bytes();
    std::copy(bytes.begin(), bytes.end(), result.bytes.begin());
  }
  return result;
}

asio::awaitable<Resolution> resolve_once(const std::string& name) {
  Tcp::resolver resolver(co_await asio::this_coro::executor);
  error_code error;
  // No flags: not address_configured, which would drop a family the host
  // has no route for yet; the address checks decide, not the host's setup.
  const auto results = co_await resolver.async_resolve(
      name, "", Tcp::resolver::flags(), asio::redirect_error(asio::use_awaitable, error));
  Resolution resolution;
  if (error) {
    resolution.not_found = error == asio::error::host_not_found || error == asio::error::no_data;
    resolution.error = "cannot resolve " + name + ": " + error.message();
    co_return resolution;
  }
  for (const auto& entry : results) {
    const Address address = address_of(entry.endpoint().address());
    if (std::find(resolution.addresses.begin(), resolution.addresses.end(), address) ==
        resolution.addresses.end()) {
      resolution.addresses.push_back(address);
    }
  }
  if (resolution.addresses.empty()) {
    resolution.not_found = true;
    resolution.error = name + " resolved to no address";
  }
  co_return resolution;
}

asio::awaitable<Route> find_route(ProxyContext& context, const Destination& asked) {
  Route route;
  route.judged = asked;
  std::optional<Address> pinned;
  if (asked.address) {
    if (const std::string* name = context.name_answered_for(*asked.address)) {
      route.judged.host = *name;
      route.judged.address.reset();
      pinned = asked.address;
    }
  }
  const Verdict verdict = judge_destination(context.config.rules, route.judged);
  route.rule = verdict.rule;
  if (!verdict.allowed) {
    route.reason = verdict.reason;
    co_return route;
  }
  std::vector<Address> candidates;
  if (route.judged.address) {
    candidates.push_back(*route.judged.address);  // an ip: entry
  } else if (pinned) {
    // The very address the stub handed out, checked again (the rule that
    // allows the port may differ from the one the stub answered under).
    candidates.push_back(*pinned);
  } else {
    Resolution resolution = co_await resolve_once(route.judged.host);
    if (resolution.addresses.empty()) {
      route.outcome = Route::Outcome::unresolved;
      route.reason = resolution.error;
      co_return route;
    }
    candidates = std::move(resolution.addresses);
  }
  const AddressChoice choice =
      choose_address(candidates, *verdict.rule, context.config.host_addresses);
  if (!choice.address) {
    route.reason = route.judged.host + ": " + choice.reason;
    co_return route;
  }
  route.outcome = Route::Outcome::allowed;
  route.address = choice.address;
  co_return route;
}

asio::awaitable<error_code> connect_within(Tcp::socket& socket, const Address& address,
                                           std::uint16_t port, Clock::duration deadline) {
  const Tcp::endpoint endpoint = endpoint_of(address, port);
  error_code error;
  socket.open(endpoint.protocol(), error);
  if (error) co_return error;
  SocketDeadline timer(socket);
  timer.arm(deadline);
  co_await socket.async_connect(endpoint, asio::redirect_error(asio::use_awaitable, error));
  if (timer.expired()) co_return asio::error::timed_out;
  co_return error;
}

std::string http_refusal(int status, std::string_view reason) {
  std::string_view text = "Forbidden";
  switch (status) {
    case 400:
      text = "Bad Request";
      break;
    case 411:
      text = "Length Required";
      break;
    case 502:
      text = "Bad Gateway";
      break;
    case 503:
      text = "Service Unavailable";
      break;
    case 504:
      text = "Gateway Timeout";
      break;
    default:
      break;
  }
  const std::string body = "holdfast: " + std::string(reason) + "\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(text) +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

}  // namespace holdfast::network::proxy_detail
