#include "launcher/gatekeeper/symlinks.hpp"

#include <filesystem>
#include <system_error>

namespace holdfast::gatekeeper {

std::string resolve_symlinks(const std::string& normalized_path) {
  std::error_code error;
  const std::filesystem::path resolved = std::filesystem::weakly_canonical(normalized_path, error);
  if (error) return normalized_path;  // e.g. EACCES: the written path is all we know
  std::string text = resolved.string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

}  // namespace holdfast::gatekeeper
