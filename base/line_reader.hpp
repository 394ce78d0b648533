// Lines from a pipe a child writes, each as soon as it is complete: the
// bytes read past a newline wait for the next call, so a child that prints
// two lines in one write loses neither.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "base/fd.hpp"

namespace holdfast::base {

class LineReader {
 public:
  LineReader() = default;
  explicit LineReader(UniqueFd fd) : fd_(std::move(fd)) {}

  // The next line, without its newline. nullopt at end of file (a last
  // line without a newline is returned first) or when `timeout` passes
  // before a line is complete; a negative timeout waits as long as it
  // takes. Throws SystemError when the pipe cannot be read or polled.
  std::optional<std::string> next(std::chrono::milliseconds timeout);

  // True once the writer closed its end and every line was returned.
  bool at_end() const { return !fd_.valid() && buffered_.empty(); }

 private:
  UniqueFd fd_;
  std::string buffered_;
};

}  // namespace holdfast::base
