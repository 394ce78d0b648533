// Where a write to a path really lands: a symlinked file keeps its link and
// the file it points at is replaced, as editors do, so a writer must work in
// the link target's directory.
#pragma once

#include <filesystem>

namespace holdfast::base {

// `target` with its chain of symlinks followed (at most 40 hops, as the
// kernel allows) and lexically normalised; `target` itself when it is not
// a symlink or cannot be examined. A dangling link resolves to the path it
// names. Throws SystemError when a link in the chain cannot be read.
std::filesystem::path resolve_write_target(const std::filesystem::path& target);

// Where `path` leads now, or `path` itself when a link in its chain cannot
// be read (a link another program replaces as we look): for watching and
// for naming the files beside a target, where a best guess is enough.
std::filesystem::path current_write_target(const std::filesystem::path& path) noexcept;

}  // namespace holdfast::base
