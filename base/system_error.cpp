#include "base/system_error.hpp"

#include <cerrno>
#include <cstring>

namespace holdfast::base {

SystemError::SystemError(std::string operation, std::filesystem::path path, int error_number,
                         const std::string& consequence)
    : std::runtime_error(operation + " " + path.string() + ": " + std::strerror(error_number) +
                         (consequence.empty() ? "" : "; " + consequence)),
      operation_(std::move(operation)),
      path_(std::move(path)),
      error_number_(error_number) {}

SystemError::SystemError(std::string operation, std::filesystem::path path,
                         const std::string& reason)
    : std::runtime_error(operation + " " + path.string() + ": " + reason),
      operation_(std::move(operation)),
      path_(std::move(path)),
      error_number_(0) {}

void throw_errno(const std::string& operation, const std::filesystem::path& path) {
  throw SystemError(operation, path, errno);
}

}  // namespace holdfast::base
