// Whole files by path: read one into memory, or create (or truncate) one
// with given bytes. Not atomic and not durable; for that, settings'
// atomic writer.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace holdfast::base {

// The file's bytes. Throws SystemError naming `path` when it cannot be
// opened or read.
std::string read_file(const std::filesystem::path& path);

// Creates or truncates the file (with `mode`, less the umask, when it is
// new) and writes every byte. Throws SystemError naming `path`.
void write_file(const std::filesystem::path& path, std::string_view bytes, mode_t mode = 0666);

// Creates `dir` and every missing directory above it with `mode` (less the
// umask); those that exist are left as they are. Throws SystemError naming
// the directory that could not be made.
void make_directories(const std::filesystem::path& dir, mode_t mode);

}  // namespace holdfast::base
