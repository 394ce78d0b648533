// Reading settings text: JSON with comments and trailing commas tolerated.
//
// nlohmann/json 3.11 skips comments but not trailing commas, and reports
// errors as byte offsets only. So the text is first normalised — comments
// and trailing commas are overwritten with spaces, which keeps every byte
// offset (and so every line and column) unchanged — then parsed, and a
// small structural scan maps each value's key path to its line and column
// so that schema errors can point into the file.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "settings/errors.hpp"

namespace holdfast::settings {

// Maps a JSON pointer ("/tools/executionSandbox") to where its value starts.
using LocationIndex = std::map<std::string, Location, std::less<>>;

struct ParsedText {
  nlohmann::json value;
  LocationIndex locations;
};

// Overwrites comments and trailing commas with spaces. Unterminated block
// comments and strings are left for the parser to report.
std::string blank_comments_and_trailing_commas(std::string_view text);

// Line and column (1-based) of a byte offset.
Location location_of(std::string_view text, std::size_t offset);

// Parses settings text. Throws InvalidSettings (one diagnostic naming `file`,
// line and column) when the text is empty or not a JSON document.
ParsedText parse_settings_text(std::string_view text, const std::filesystem::path& file);

}  // namespace holdfast::settings
