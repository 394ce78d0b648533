// A failed system call as an exception: the operation, the path and errno,
// so that every message says what was tried, on what, and why it failed.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace holdfast::base {

// A system call failed. Names the operation, the path and errno:
// "OPERATION PATH: strerror(errno)[; CONSEQUENCE]". `consequence` says what
// the failure means for the person (what state things are in, what to do).
// A failure with no system error behind it (a FIFO where a file should be)
// has error_number() 0 and says what was wrong in `reason` instead.
class SystemError : public std::runtime_error {
 public:
  SystemError(std::string operation, std::filesystem::path path, int error_number,
              const std::string& consequence = {});
  SystemError(std::string operation, std::filesystem::path path, const std::string& reason);
  const std::string& operation() const { return operation_; }
  const std::filesystem::path& path() const { return path_; }
  int error_number() const { return error_number_; }

 private:
  std::string operation_;
  std::filesystem::path path_;
  int error_number_;
};

// Throws SystemError for the current errno.
[[noreturn]] void throw_errno(const std::string& operation, const std::filesystem::path& path);

}  // namespace holdfast::base
