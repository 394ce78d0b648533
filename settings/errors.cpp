#include "settings/errors.hpp"

namespace holdfast::settings {

std::string Diagnostic::to_string() const {
  std::string out = file.string();
  if (location.line > 0) {
    out += ":" + std::to_string(location.line) + ":" + std::to_string(location.column);
  }
  out += severity == Severity::error ? ": error: " : ": warning: ";
  if (!key_path.empty()) out += "at " + key_path + ": ";
  out += message;
  return out;
}

bool has_errors(const std::vector<Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics) {
    if (d.severity == Severity::error) return true;
  }
  return false;
}

static std::string join_diagnostics(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) {
    if (d.severity != Severity::error) continue;
    if (!out.empty()) out += "\n";
    out += d.to_string();
  }
  return out.empty() ? "invalid settings" : out;
}

InvalidSettings::InvalidSettings(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join_diagnostics(diagnostics)), diagnostics_(std::move(diagnostics)) {}

RevisionConflict::RevisionConflict(std::filesystem::path path, std::uint64_t expected,
                                   std::uint64_t actual)
    : std::runtime_error(path.string() + ": revision conflict: expected revision " +
                         std::to_string(expected) + " but the file is at revision " +
                         std::to_string(actual) +
                         "; someone else saved in between. Read it again and retry."),
      expected_(expected),
      actual_(actual) {}

}  // namespace holdfast::settings
