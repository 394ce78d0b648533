#include "base/write_target.hpp"

#include "base/system_error.hpp"

namespace holdfast::base {

namespace fs = std::filesystem;

fs::path resolve_write_target(const fs::path& target) {
  std::error_code ec;
  const auto status = fs::symlink_status(target, ec);
  if (ec || !fs::is_symlink(status)) return target;
  // Follow the whole chain; a dangling link is written at its target path.
  fs::path resolved = target;
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(resolved, ec)); ++hops) {
    const fs::path link = fs::read_symlink(resolved, ec);
    if (ec) throw SystemError("cannot read symlink", resolved, ec.value());
    resolved = link.is_absolute() ? link : resolved.parent_path() / link;
  }
  return resolved.lexically_normal();
}

fs::path current_write_target(const fs::path& path) noexcept {
  try {
    return resolve_write_target(path);
  } catch (...) {
    return path;
  }
}

}  // namespace holdfast::base
