// Path specifiers and gitignore-style glob matching, on strings only (no
// filesystem access: symlinks are resolved elsewhere and passed in).
//
// Specifier forms (the base each is relative to):
//   //abs/x   absolute path /abs/x
//   ~/x       the home directory
//   /x        the workspace root
//   ./x, a/b  the current directory, anchored there
//   x         no slash inside: a name matched at any depth below the
//             current directory, as in .gitignore
// Globs: `*` and `?` and [classes] within one segment, `**` for any number
// of segments. Dotfiles are matched like any other name. Matching is
// case-sensitive. A pattern that matches a directory also matches
// everything below it (denying ~/.ssh denies ~/.ssh/id_rsa).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace holdfast::gatekeeper {

struct PathBases {
  std::string workspace;  // absolute, normalized
  std::string cwd;        // absolute, normalized
  std::string home;       // absolute, normalized
};

// Lexically normal absolute form of `path` ("." and ".." folded, repeated
// and trailing slashes removed); a relative path is taken relative to
// `base`.
std::string normalize_path(std::string_view path, std::string_view base = "/");

// True when `path` is `dir` or lies below it (both normalized).
bool is_within(std::string_view path, std::string_view dir);

// A compiled glob over absolute paths.
struct PathPattern {
  std::string text;                   // absolute glob, for messages
  std::vector<std::string> segments;  // split on '/'
  std::vector<bool> literal;          // segment has no glob characters
};

// The absolute glob a specifier denotes.
std::string specifier_to_glob(std::string_view specifier, const PathBases& bases);
PathPattern compile_glob(std::string_view absolute_glob);

// Split a normalized absolute path into its segments (views into `path`).
std::vector<std::string_view> split_path(std::string_view path);

// Does `pattern` match the path (or one of its ancestors)?
bool glob_matches(const PathPattern& pattern, const std::vector<std::string_view>& path);
bool glob_matches(const PathPattern& pattern, std::string_view normalized_path);

// Does `pattern` match the path, one of its ancestors, or anything below it?
bool glob_may_match_below(const PathPattern& pattern, std::string_view normalized_path);
bool glob_may_match_below(const PathPattern& pattern, const std::vector<std::string_view>& path);

}  // namespace holdfast::gatekeeper
