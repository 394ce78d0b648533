// Whole-file reads and writes for tests, and listing a directory by prefix.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace holdfast::testing {

// The file's bytes; empty when it cannot be read.
std::string read_file(const std::filesystem::path& path);

// Replaces the file's content with `bytes` (creates it if missing).
void write_file(const std::filesystem::path& path, const std::string& bytes);

// Names in `dir` that start with `prefix` (leftover temps, backups, ...).
std::vector<std::string> names_starting_with(const std::filesystem::path& dir,
                                             const std::string& prefix);

}  // namespace holdfast::testing
