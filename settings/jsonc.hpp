// Reading settings text: JSON with comments and trailing commas tolerated.
//
// nlohmann/json 3.11 skips comments but not trailing commas, and reports
// errors as byte offsets only. So the text is first normalised — comments
// and trailing commas are overwritten with spaces, which keeps every byte
// offset (and so every line and column) unchanged — then parsed, and a
// small structural scan maps each value's key path to its line and column
// so that schema errors can point into the file.
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "settings/errors.hpp"

namespace holdfast::settings {

// Bounds on settings text. The workspace scope is project content and may be
// hostile, so what reading one file can cost is fixed in advance, and a file
// past a bound is an error at the place where it crossed it.
//
// Size, 1 MiB: settings are written by hand or saved by a GUI and run to a
// few KiB; a megabyte is hundreds of times more than a real one needs. The
// cost of a file grows with its number of values, at most one per two
// bytes: the worst 1 MiB file (half a million values) takes about 55 MiB
// to read and check, 80 MiB to merge and show, and more in the watcher,
// which compares two readings key by key.
inline constexpr std::size_t kMaxSettingsFileBytes = std::size_t{1} << 20;
// Nesting, 64 levels (objects and arrays alike; the top-level object is
// level 1): the deepest key holdfast knows is 4 levels down
// (tools.executionSandbox.filesystem.PATH), and 64 leaves room for what
// other programs keep, while every walk over a document that recurses (the
// location scan, merging, serialising, comparing) stays a few KiB deep on
// any thread's stack, under sanitizers too. Checked before the JSON parser
// runs.
inline constexpr int kMaxNestingDepth = 64;
// Key paths, 16 MiB in all: every value is named by its whole key path (to
// locate an error, to say which scope a value came from, to report which
// keys changed), so one long key above many values would cost its length
// once per value: quadratic in the file's size. The total length of the key
// paths of all values is bounded instead. A real file's key paths add up
// to about its own size; 16 MiB still admits, say, a thousand values 62
// levels under 250-byte keys.
inline constexpr std::size_t kMaxKeyPathBytes = std::size_t{16} << 20;

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
// line and column) when the text is empty, not a JSON document, has a number
// out of range, a key twice in one object, or is past one of the bounds
// above. Time and memory are linear in the text's size.
ParsedText parse_settings_text(std::string_view text, const std::filesystem::path& file);

}  // namespace holdfast::settings
