// Key paths name a value inside a settings document.
//
// Two spellings are accepted: dotted ("tools.executionSandbox.network", with
// "\." for a dot inside a key, so "tools.executionSandbox.filesystem./code/\.git",
// "\\" for a backslash before a dot or a backslash, and "\/" for a slash
// that starts the path; any other backslash stands for itself) and JSON
// pointer
// ("/tools/executionSandbox/filesystem/~1code~1.git").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace holdfast::settings {

using KeyPath = std::vector<std::string>;

// Throws UsageError for an empty path or an empty segment.
KeyPath parse_key_path(std::string_view text);

// Dotted spelling, escaping dots inside keys (and backslashes where they
// would escape what follows); parse_key_path reads it back.
std::string to_dotted(const KeyPath& path);
std::string to_pointer(const KeyPath& path);
// One key escaped for a JSON pointer (RFC 6901: "~" → "~0", "/" → "~1").
std::string pointer_escape(std::string_view key);
// Converts a JSON pointer as produced by nlohmann (flatten, diff) to dotted.
std::string pointer_to_dotted(std::string_view pointer);

// Returns the value at `path`, or nullptr when any segment is missing.
const nlohmann::json* find_value(const nlohmann::json& document, const KeyPath& path);

// Sets `value` at `path`, creating intermediate objects. Throws UsageError
// when an intermediate value exists and is not an object.
void set_value(nlohmann::json& document, const KeyPath& path, nlohmann::json value);

// Removes the value at `path`; returns false when it was not there. Empty
// parent objects are left in place (the caller asked for one key only).
bool unset_value(nlohmann::json& document, const KeyPath& path);

}  // namespace holdfast::settings
