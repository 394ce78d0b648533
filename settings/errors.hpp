// Structured errors for the settings library. Every error carries what a
// person needs to act on it: the file, the location. A failed system call
// is a base::SystemError (base/system_error.hpp).
#pragma once

#include <cerrno>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace holdfast::settings {

// A position in a settings file; lines and columns count from 1.
struct Location {
  int line = 0;
  int column = 0;
};

enum class Severity { warning, error };

// One finding about a settings document: a parse error, a schema violation,
// an ignored workspace key.
struct Diagnostic {
  Severity severity = Severity::error;
  std::filesystem::path file;
  Location location;
  std::string key_path;  // dotted, empty for the document itself
  std::string message;   // "expected ..., found ..."

  // "FILE:LINE:COL: error: at KEY: MESSAGE"
  std::string to_string() const;
};

bool has_errors(const std::vector<Diagnostic>& diagnostics);

// A settings file is malformed, truncated, empty or of the wrong shape. The
// file is never rewritten or reset; the person has to fix it.
class InvalidSettings : public std::runtime_error {
 public:
  explicit InvalidSettings(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// A save was made against a revision the file has moved on from.
class RevisionConflict : public std::runtime_error {
 public:
  RevisionConflict(std::filesystem::path path, std::uint64_t expected, std::uint64_t actual);
  std::uint64_t expected() const { return expected_; }
  std::uint64_t actual() const { return actual_; }

 private:
  std::uint64_t expected_;
  std::uint64_t actual_;
};

// Bad input from the caller (an unknown scope, a malformed key path, ...).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace holdfast::settings
