#include "base/line_reader.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "base/system_error.hpp"

namespace holdfast::base {

std::optional<std::string> LineReader::next(std::chrono::milliseconds timeout) {
  using Clock = std::chrono::steady_clock;
  const bool forever = timeout.count() < 0;
  const auto deadline = Clock::now() + (forever ? std::chrono::milliseconds(0) : timeout);
  for (;;) {
    if (const auto newline = buffered_.find('\n'); newline != std::string::npos) {
      std::string line = buffered_.substr(0, newline);
      buffered_.erase(0, newline + 1);
      return line;
    }
    if (!fd_.valid()) {
      if (buffered_.empty()) return std::nullopt;
      return std::exchange(buffered_, {});
    }
    int wait_ms = -1;
    if (!forever) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return std::nullopt;
      wait_ms = static_cast<int>(left);
    }
    pollfd ready{fd_.get(), POLLIN, 0};
    const int polled = ::poll(&ready, 1, wait_ms);
    if (polled < 0) {
      if (errno == EINTR) continue;
      throw_errno("cannot wait for a line from", "a child's output pipe");
    }
    if (polled == 0) return std::nullopt;
    char buffer[4096];
    const ssize_t n = ::read(fd_.get(), buffer, sizeof buffer);
    if (n > 0) {
      buffered_.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0) {
      fd_.reset();
    } else if (errno != EINTR && errno != EAGAIN) {
      throw_errno("cannot read a line from", "a child's output pipe");
    }
  }
}

}  // namespace holdfast::base
