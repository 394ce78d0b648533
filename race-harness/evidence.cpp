#include "race-harness/evidence.hpp"

#include <algorithm>
#include <cstdio>

#include "base/files.hpp"

namespace holdfast::race {

nlohmann::json to_json(const Evidence& evidence) {
  return {{"kind", evidence.kind}, {"note", evidence.note}, {"file", evidence.file}};
}

Evidence evidence_from(const nlohmann::json& json) {
  return {json.at("kind").get<std::string>(), json.at("note").get<std::string>(),
          json.value("file", std::string())};
}

namespace {

void append_printable(std::string& out, std::string_view bytes) {
  for (const char byte : bytes) {
    const auto c = static_cast<unsigned char>(byte);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c > 0x7e) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
}

}  // namespace

std::string printable(std::string_view bytes, std::size_t limit) {
  std::string out;
  if (bytes.size() <= limit) {
    append_printable(out, bytes);
    return out;
  }
  // The start and the end: where a torn file stops is at its end.
  const std::size_t tail = std::min<std::size_t>(40, limit / 4);
  append_printable(out, bytes.substr(0, limit - tail));
  out += " ... (" + std::to_string(bytes.size()) + " bytes) ... ";
  append_printable(out, bytes.substr(bytes.size() - tail));
  return out;
}

std::string slug(std::string_view name) {
  std::string out;
  for (const char c : name) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_';
    if (word) {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "phase" : out;
}

std::string keep_evidence(const std::filesystem::path& dir, const std::string& name,
                          std::string_view contents) {
  if (dir.empty()) return {};
  try {
    std::filesystem::create_directories(dir);
    base::write_file(dir / name, contents, 0644);
    return (dir / name).string();
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace holdfast::race
