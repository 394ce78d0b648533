// Lexical helpers for absolute paths as plain strings. Pure: nothing here
// touches the filesystem. A normal path is "/" or "/a/b" (no empty, "." or
// ".." components, no trailing slash), which makes prefix tests exact.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace holdfast::sandbox {

// Splits "/a/b" into {"a", "b"}; empty and "." components are dropped.
std::vector<std::string> split_path(std::string_view path);

// The normal form of an absolute path; nullopt when `path` is relative or
// has a ".." component (we never resolve ".." lexically: with symlinks that
// would name a different file than the kernel does).
std::optional<std::string> normalize_absolute(std::string_view path);

// "/a" + "b/c" → "/a/b/c"; "/" + "x" → "/x". `rest` is relative.
std::string join_path(std::string_view base, std::string_view rest);

// "/a/b" → "/a"; "/a" → "/"; "/" → "/".
std::string parent_path(std::string_view path);

// Number of components: "/" is 0, "/a/b" is 2.
std::size_t path_depth(std::string_view path);

// True when `path` is `root` or lies below it (both normal).
bool is_within(std::string_view path, std::string_view root);

// True when one of the two is within the other.
bool overlaps(std::string_view a, std::string_view b);

// True when `paths` holds `path` exactly (no normalisation).
bool has_path(const std::vector<std::string>& paths, std::string_view path);

}  // namespace holdfast::sandbox
