#include "race-harness/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "base/system_error.hpp"

namespace holdfast::race {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

Captured run_captured(const std::vector<std::string>& argv,
                      const std::map<std::string, std::string>& environment) {
  const auto started = Clock::now();
  base::Captured captured = base::run_captured({argv, base::environment_with(environment), {}, {}});
  Captured result;
  result.status = captured.status;
  result.out = std::move(captured.out);
  result.err = std::move(captured.err);
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

ReportingChild::ReportingChild(const std::vector<std::string>& argv,
                               const std::map<std::string, std::string>& environment,
                               bool with_input) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) base::throw_errno("cannot make a pipe for", argv.at(0));
  out_.reset(fds[0]);
  const base::UniqueFd write_end(fds[1]);
  std::vector<base::FdMapping> mappings = {{write_end.get(), 1}};
  base::UniqueFd read_end;
  if (with_input) {
    if (::pipe2(fds, O_CLOEXEC) != 0) base::throw_errno("cannot make a pipe for", argv.at(0));
    read_end.reset(fds[0]);
    in_.reset(fds[1]);
    mappings.push_back({read_end.get(), 0});
  }
  child_ = base::spawn(
      {argv,
       environment.empty() ? std::nullopt : std::optional(base::environment_with(environment)),
       {},
       mappings});
}

bool ReportingChild::write_line(const std::string& line) {
  if (!in_.valid()) return false;
  try {
    base::write_all(in_.get(), line + "\n", "the child's input");
    return true;
  } catch (const base::SystemError&) {
    return false;  // EPIPE: it closed its input or ended
  }
}

std::string ReportingChild::read_line(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (const auto newline = buffered_.find('\n'); newline != std::string::npos) {
      std::string line = buffered_.substr(0, newline);
      buffered_.erase(0, newline + 1);
      return line;
    }
    if (!out_.valid()) return {};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return {};
    pollfd fd{out_.get(), POLLIN, 0};
    const int ready = ::poll(&fd, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return {};
    char buffer[4096];
    const ssize_t n = ::read(out_.get(), buffer, sizeof buffer);
    if (n > 0) {
      buffered_.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      out_.reset();
    }
  }
}

int ReportingChild::stop(std::chrono::milliseconds grace) {
  if (!child_.running()) return 0;
  return child_.stop(grace);
}

}  // namespace holdfast::race
