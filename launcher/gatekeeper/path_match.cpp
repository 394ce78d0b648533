#include "launcher/gatekeeper/path_match.hpp"

#include <fnmatch.h>

namespace holdfast::gatekeeper {

namespace {

bool has_glob_chars(std::string_view s) {
  return s.find_first_of("*?[\\") != std::string_view::npos;
}

bool segment_matches(const PathPattern& pattern, std::size_t i, std::string_view name) {
  if (pattern.literal[i]) return pattern.segments[i] == name;
  // fnmatch without FNM_PERIOD: `*` matches a leading dot, as in .gitignore.
  const std::string subject(name);
  return fnmatch(pattern.segments[i].c_str(), subject.c_str(), 0) == 0;
}

// Pattern segments from `p` against path segments from `s`. Consuming the
// whole pattern at any segment boundary is a match: the path is then the
// matched entry or lies below it.
bool match_from(const PathPattern& pattern, std::size_t p,
                const std::vector<std::string_view>& path, std::size_t s) {
  while (true) {
    if (p == pattern.segments.size()) return true;
    if (pattern.segments[p] == "**") {
      for (std::size_t k = s; k <= path.size(); ++k) {
        if (match_from(pattern, p + 1, path, k)) return true;
      }
      return false;
    }
    if (s == path.size() || !segment_matches(pattern, p, path[s])) return false;
    ++p;
    ++s;
  }
}

// As match_from, but a path that runs out first matches too: some entry
// below it may complete the pattern.
bool may_match_from(const PathPattern& pattern, std::size_t p,
                    const std::vector<std::string_view>& path, std::size_t s) {
  while (true) {
    if (p == pattern.segments.size() || s == path.size()) return true;
    if (pattern.segments[p] == "**") {
      for (std::size_t k = s; k <= path.size(); ++k) {
        if (may_match_from(pattern, p + 1, path, k)) return true;
      }
      return false;
    }
    if (!segment_matches(pattern, p, path[s])) return false;
    ++p;
    ++s;
  }
}

}  // namespace

std::string normalize_path(std::string_view path, std::string_view base) {
  std::vector<std::string_view> parts;
  auto push_all = [&parts](std::string_view text) {
    std::size_t i = 0;
    while (i <= text.size()) {
      std::size_t j = text.find('/', i);
      if (j == std::string_view::npos) j = text.size();
      const std::string_view part = text.substr(i, j - i);
      if (part == "..") {
        if (!parts.empty()) parts.pop_back();
      } else if (!part.empty() && part != ".") {
        parts.push_back(part);
      }
      i = j + 1;
    }
  };
  if (path.empty() || path[0] != '/') push_all(base);
  push_all(path);
  std::string out;
  for (std::string_view part : parts) {
    out += '/';
    out += part;
  }
  return out.empty() ? "/" : out;
}

bool is_within(std::string_view path, std::string_view dir) {
  if (dir == "/") return true;
  return path == dir ||
         (path.starts_with(dir) && path.size() > dir.size() && path[dir.size()] == '/');
}

std::string specifier_to_glob(std::string_view spec, const PathBases& bases) {
  if (spec.starts_with("//")) return normalize_path(spec.substr(1));
  if (spec == "~") return bases.home;
  if (spec.starts_with("~/")) return normalize_path(spec.substr(2), bases.home);
  if (spec.starts_with("/")) return normalize_path(spec.substr(1), bases.workspace);
  if (spec.starts_with("./")) return normalize_path(spec.substr(2), bases.cwd);
  std::string_view trimmed = spec;
  while (trimmed.ends_with('/')) trimmed.remove_suffix(1);
  if (trimmed.find('/') == std::string_view::npos && trimmed != ".." && trimmed != ".") {
    // A bare name matches at any depth, like a .gitignore line.
    return normalize_path(std::string("**/") + std::string(trimmed), bases.cwd);
  }
  return normalize_path(spec, bases.cwd);
}

PathPattern compile_glob(std::string_view absolute_glob) {
  PathPattern pattern;
  pattern.text = std::string(absolute_glob);
  for (std::string_view part : split_path(absolute_glob)) {
    // Consecutive `**` are one `**`.
    if (part == "**" && !pattern.segments.empty() && pattern.segments.back() == "**") continue;
    pattern.segments.emplace_back(part);
    pattern.literal.push_back(!has_glob_chars(part));
  }
  return pattern;
}

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t i = 0;
  while (i < path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) parts.push_back(path.substr(i, j - i));
    i = j + 1;
  }
  return parts;
}

bool glob_matches(const PathPattern& pattern, const std::vector<std::string_view>& path) {
  return match_from(pattern, 0, path, 0);
}

bool glob_may_match_below(const PathPattern& pattern, std::string_view normalized_path) {
  return may_match_from(pattern, 0, split_path(normalized_path), 0);
}

bool glob_may_match_below(const PathPattern& pattern, const std::vector<std::string_view>& path) {
  return may_match_from(pattern, 0, path, 0);
}

bool glob_matches(const PathPattern& pattern, std::string_view normalized_path) {
  return glob_matches(pattern, split_path(normalized_path));
}

}  // namespace holdfast::gatekeeper
