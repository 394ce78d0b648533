#include "launcher/gatekeeper/symlinks.hpp"

#include <filesystem>
#include <system_error>

#include "launcher/gatekeeper/path_match.hpp"

namespace holdfast::gatekeeper {

std::string resolve_symlinks(const std::string& path) {
  std::error_code error;
  const std::filesystem::path resolved = std::filesystem::weakly_canonical(path, error);
  if (error) return normalize_path(path);  // e.g. EACCES: the written path is all we know
  std::string text = resolved.string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

}  // namespace holdfast::gatekeeper
