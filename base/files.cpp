#include "base/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>

#include "base/fd.hpp"
#include "base/system_error.hpp"

namespace holdfast::base {

std::string read_file(const std::filesystem::path& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) throw_errno("cannot open", path);
  return read_all(fd.get(), path);
}

void write_file(const std::filesystem::path& path, std::string_view bytes, mode_t mode) {
  const UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
  if (!fd.valid()) throw_errno("cannot create", path);
  write_all(fd.get(), bytes, path);
}

void make_directories(const std::filesystem::path& dir, mode_t mode) {
  std::filesystem::path at;
  for (const auto& part : dir) {
    at /= part;
    if (::mkdir(at.c_str(), mode) != 0 && errno != EEXIST) throw_errno("cannot create", at);
  }
}

}  // namespace holdfast::base
