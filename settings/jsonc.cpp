#include "settings/jsonc.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <vector>

#include "settings/key_path.hpp"

namespace holdfast::settings {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Index of the end of the string literal that starts at `open` (the quote),
// or text.size() when it is unterminated.
std::size_t skip_string(std::string_view text, std::size_t open) {
  std::size_t i = open + 1;
  while (i < text.size()) {
    if (text[i] == '\\') {
      i += 2;
      continue;
    }
    if (text[i] == '"') return i + 1;
    ++i;
  }
  return text.size();
}

// The key paths of a document's values add up to more than kMaxKeyPathBytes;
// `offset` is where the value that crossed the bound starts.
struct KeyPathsTooLong {
  std::size_t offset;
};

// Walks normalised, already-valid JSON and records where each value starts.
// Recursive: the nesting was bounded before the text was parsed.
class LocationScanner {
 public:
  LocationScanner(std::string_view text, LocationIndex& index) : text_(text), index_(index) {}

  // A key given twice in one object. The parser keeps the last value
  // silently; another reader may keep the first, so the meaning is unclear.
  struct Duplicate {
    std::string pointer;
    std::string key;
    Location first;
    Location again;
  };
  const std::vector<Duplicate>& duplicates() const { return duplicates_; }

  void scan() {
    // nlohmann skips a UTF-8 byte order mark; so must the locations.
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
    skip_ws();
    value("");
  }

 private:
  void skip_ws() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  }

  void value(const std::string& pointer) {
    skip_ws();
    if (pos_ >= text_.size()) return;
    key_path_bytes_ += pointer.size();
    if (key_path_bytes_ > kMaxKeyPathBytes) throw KeyPathsTooLong{pos_};
    index_.emplace(pointer, location_at(pos_));
    const char c = text_[pos_];
    if (c == '{') {
      object(pointer);
    } else if (c == '[') {
      array(pointer);
    } else if (c == '"') {
      pos_ = skip_string(text_, pos_);
    } else {
      while (pos_ < text_.size() && !is_space(text_[pos_]) && text_[pos_] != ',' &&
             text_[pos_] != '}' && text_[pos_] != ']') {
        ++pos_;
      }
    }
  }

  void object(const std::string& pointer) {
    ++pos_;                                // '{'
    std::map<std::string, Location> keys;  // where each key was first seen
    for (;;) {
      skip_ws();
      if (pos_ >= text_.size() || text_[pos_] == '}') break;
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      const std::size_t end = skip_string(text_, pos_);
      const std::string_view quoted = text_.substr(pos_, end - pos_);
      // Most keys have no escapes: take them as they are, and leave the
      // rest to the JSON parser.
      const std::string key = quoted.find('\\') == std::string_view::npos
                                  ? std::string(quoted.substr(1, quoted.size() - 2))
                                  : nlohmann::json::parse(quoted).get<std::string>();
      const Location key_location = location_at(pos_);
      if (const auto [it, fresh] = keys.emplace(key, key_location); !fresh) {
        duplicates_.push_back(
            Duplicate{pointer + "/" + pointer_escape(key), key, it->second, key_location});
      }
      pos_ = end;
      skip_ws();
      if (pos_ < text_.size() && text_[pos_] == ':') ++pos_;
      value(pointer + "/" + pointer_escape(key));
    }
    ++pos_;  // '}'
  }

  void array(const std::string& pointer) {
    ++pos_;  // '['
    for (std::size_t i = 0;; ++i) {
      skip_ws();
      if (pos_ >= text_.size() || text_[pos_] == ']') break;
      if (text_[pos_] == ',') ++pos_;
      skip_ws();
      if (pos_ >= text_.size() || text_[pos_] == ']') break;
      value(pointer + "/" + std::to_string(i));
    }
    ++pos_;  // ']'
  }

  // Line and column of `offset`. The offsets asked for only grow, so the
  // count goes on from the previous one; counting from the start of the text
  // for every value made reading a file quadratic in its size.
  Location location_at(std::size_t offset) {
    for (; counted_ < offset && counted_ < text_.size(); ++counted_) {
      if (text_[counted_] == '\n') {
        ++counted_location_.line;
        counted_location_.column = 1;
      } else {
        ++counted_location_.column;
      }
    }
    return counted_location_;
  }

  std::string_view text_;
  LocationIndex& index_;
  std::size_t pos_ = 0;
  std::size_t counted_ = 0;
  Location counted_location_{1, 1};
  std::size_t key_path_bytes_ = 0;
  std::vector<Duplicate> duplicates_;
};

// Offset of the bracket that opens a container deeper than
// kMaxNestingDepth. Strings are skipped as the parser reads them, so on any
// prefix the parser accepts, this depth is the parser's. The scan stops at
// a '/' outside a string: comments are blanked by then, so the parser
// rejects the text there anyway.
std::optional<std::size_t> first_too_deep(std::string_view text) {
  int depth = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      i = skip_string(text, i);
      continue;
    }
    if (c == '/') return std::nullopt;
    if (c == '{' || c == '[') {
      if (++depth > kMaxNestingDepth) return i;
    } else if (c == '}' || c == ']') {
      --depth;
    }
    ++i;
  }
  return std::nullopt;
}

// Offset of the first number outside strings that is too large for a
// double, and its text, as the parser (strtod) reads numbers.
std::optional<std::pair<std::size_t, std::string>> first_overflowing_number(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      i = skip_string(text, i);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      const std::size_t end = text.find_first_not_of("0123456789+-.eE", i);
      std::string number(text.substr(i, end == std::string_view::npos ? end : end - i));
      if (std::isinf(std::strtod(number.c_str(), nullptr))) return std::pair{i, std::move(number)};
      i += number.size();
    } else {
      ++i;
    }
  }
  return std::nullopt;
}

[[noreturn]] void fail_at(const std::filesystem::path& file, std::string_view text,
                          std::size_t offset, std::string message) {
  throw InvalidSettings(
      {Diagnostic{Severity::error, file, location_of(text, offset), "", std::move(message)}});
}

std::string mebibytes(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

std::string blank_comments_and_trailing_commas(std::string_view text) {
  std::string out(text);
  // Offset of the last comma seen outside strings and comments, if no
  // significant character has followed it yet.
  std::size_t pending_comma = std::string::npos;
  // The last significant character outside comments: a comma right after
  // '{', '[' or another comma is not a trailing comma but an error, and is
  // left for the parser to report ("{,}" must not read as "{}").
  char previous = '\0';
  std::size_t i = 0;
  while (i < out.size()) {
    const char c = out[i];
    if (c == '"') {
      i = skip_string(out, i);
      pending_comma = std::string::npos;
      previous = '"';
    } else if (c == '/' && i + 1 < out.size() && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (c == '/' && i + 1 < out.size() && out[i + 1] == '*') {
      const std::size_t close = out.find("*/", i + 2);
      if (close == std::string::npos) return out;  // the parser reports it
      for (; i < close + 2; ++i) {
        if (out[i] != '\n') out[i] = ' ';
      }
    } else if (c == ',') {
      const bool follows_value = previous != '{' && previous != '[' && previous != ',';
      pending_comma = follows_value ? i : std::string::npos;
      previous = c;
      ++i;
    } else if ((c == '}' || c == ']') && pending_comma != std::string::npos) {
      out[pending_comma] = ' ';
      pending_comma = std::string::npos;
      previous = c;
      ++i;
    } else {
      if (!is_space(c)) {
        pending_comma = std::string::npos;
        previous = c;
      }
      ++i;
    }
  }
  return out;
}

Location location_of(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  Location loc{1, 1};
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  return loc;
}

ParsedText parse_settings_text(std::string_view text, const std::filesystem::path& file) {
  if (text.size() > kMaxSettingsFileBytes) {
    fail_at(file, text, kMaxSettingsFileBytes,
            "the file is larger than " + mebibytes(kMaxSettingsFileBytes) +
                ", the limit for a settings file (it goes on past here); settings need a few "
                "KiB. Remove what does not belong in it");
  }
  const std::string normalised = blank_comments_and_trailing_commas(text);
  if (std::all_of(normalised.begin(), normalised.end(), is_space)) {
    fail_at(file, text, text.size(),
            "the file is empty; expected a JSON object. An empty settings file is an error, not "
            "\"no settings\": write {} to mean no settings");
  }
  if (const auto offset = first_too_deep(normalised)) {
    fail_at(file, text, *offset,
            "objects and arrays are nested more than " + std::to_string(kMaxNestingDepth) +
                " levels deep here, the limit for a settings file; settings need a few levels. "
                "Flatten the document");
  }
  ParsedText parsed;
  try {
    parsed.value = nlohmann::json::parse(normalised);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    std::string what = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] parse error at line
    // 1, column 2: " prefix; we print our own location.
    if (const auto colon = what.find(": "); colon != std::string::npos) {
      what = what.substr(colon + 2);
    }
    if (offset >= text.size()) {
      what = "the document ends early (truncated?): " + what;
    }
    fail_at(file, text, offset, "not valid JSON: " + what);
  } catch (const nlohmann::json::out_of_range&) {
    // A number too large for a double (1e999). The parser's exception
    // carries no position, so the number is looked for again.
    const auto number = first_overflowing_number(normalised);
    fail_at(file, text, number ? number->first : 0,
            "the number " + (number ? number->second + " " : std::string()) +
                "is out of range: larger than a double can hold (about 1.8e308). Write a "
                "smaller number");
  }
  LocationScanner scanner(normalised, parsed.locations);
  try {
    scanner.scan();
  } catch (const KeyPathsTooLong& e) {
    fail_at(file, text, e.offset,
            "the key paths of the values up to here add up to more than " +
                mebibytes(kMaxKeyPathBytes) +
                ", the limit for a settings file (each value is named by its whole key path, "
                "so long keys above many values cost their length once per value). Shorten "
                "the keys");
  }
  if (!scanner.duplicates().empty()) {
    std::vector<Diagnostic> diagnostics;
    for (const auto& d : scanner.duplicates()) {
      diagnostics.push_back(Diagnostic{
          Severity::error, file, d.again, pointer_to_dotted(d.pointer),
          "duplicate key \"" + d.key + "\" (first at line " + std::to_string(d.first.line) +
              ", column " + std::to_string(d.first.column) +
              "); a key may appear only once in an object, otherwise which value counts is "
              "unclear. Remove one of them"});
    }
    throw InvalidSettings(std::move(diagnostics));
  }
  return parsed;
}

}  // namespace holdfast::settings
