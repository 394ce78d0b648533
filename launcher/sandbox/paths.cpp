#include "launcher/sandbox/paths.hpp"

#include <algorithm>

namespace holdfast::sandbox {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(start, end - start);
    if (!part.empty() && part != ".") parts.emplace_back(part);
    start = end + 1;
  }
  return parts;
}

std::optional<std::string> normalize_absolute(std::string_view path) {
  if (path.empty() || path.front() != '/') return std::nullopt;
  std::string out;
  for (const auto& part : split_path(path)) {
    if (part == "..") return std::nullopt;
    out += '/';
    out += part;
  }
  return out.empty() ? std::string("/") : out;
}

std::string join_path(std::string_view base, std::string_view rest) {
  std::string out(base);
  for (const auto& part : split_path(rest)) {
    if (out.empty() || out.back() != '/') out += '/';
    out += part;
  }
  return out.empty() ? std::string("/") : out;
}

std::string parent_path(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::size_t path_depth(std::string_view path) { return split_path(path).size(); }

bool is_within(std::string_view path, std::string_view root) {
  if (root == "/") return !path.empty() && path.front() == '/';
  return path == root ||
         (path.size() > root.size() && path.starts_with(root) && path[root.size()] == '/');
}

bool overlaps(std::string_view a, std::string_view b) { return is_within(a, b) || is_within(b, a); }

bool has_path(const std::vector<std::string>& paths, std::string_view path) {
  return std::find(paths.begin(), paths.end(), path) != paths.end();
}

}  // namespace holdfast::sandbox
