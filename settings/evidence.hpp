// Evidence of a writer at work, for the first reading of a file holdfast
// has never seen: the names writers use while saving, and directories that
// changed recently. (A file holdfast has seen needs no evidence:
// settings/presence.hpp.)
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace holdfast::settings {

// Whether `entry` is a name that `pattern` gives for `target_name`: "{}"
// stands for the target's name, a trailing "*" matches any suffix.
bool matches_writer_pattern(const std::string& pattern, const std::string& target_name,
                            const std::string& entry);

// Names in `directory` that show a writer of `target_name` at work: they
// match one of `patterns` and were created, renamed or written within `age`.
std::vector<std::string> fresh_evidence(const std::filesystem::path& directory,
                                        const std::string& target_name,
                                        const std::vector<std::string>& patterns,
                                        std::chrono::milliseconds age);

// Whether the place a missing file would be in changed within `age`: its
// directory, or — when the directory itself is missing — the nearest
// ancestor that exists (a directory renamed or removed there moves that
// ancestor's mtime).
bool recently_changed(const std::filesystem::path& directory, std::chrono::milliseconds age);

}  // namespace holdfast::settings
