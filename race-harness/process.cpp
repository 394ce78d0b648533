#include "race-harness/process.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "base/fd.hpp"
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
  base::Pipe output = base::make_pipe(argv.at(0));
  out_ = base::LineReader(std::move(output.read_end));
  std::vector<base::FdMapping> mappings = {{output.write_end.get(), 1}};
  base::Pipe input;
  if (with_input) {
    input = base::make_pipe(argv.at(0));
    in_ = std::move(input.write_end);
    mappings.push_back({input.read_end.get(), 0});
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
  return out_.next(timeout).value_or("");
}

int ReportingChild::stop(std::chrono::milliseconds grace) {
  if (!child_.running()) return 0;
  return child_.stop(grace);
}

}  // namespace holdfast::race
