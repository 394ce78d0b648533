// The JSON the API answers with: settings values as documents, and every
// failure as {error, message, diagnostics?} with the status that fits it.
#pragma once

#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "service/http_message.hpp"
#include "settings/errors.hpp"
#include "settings/scope_file.hpp"
#include "settings/snapshot.hpp"

namespace holdfast::service {

// {severity, file, line, column, key, message}; the message says what was
// expected and what was found.
nlohmann::json diagnostics_json(const std::vector<settings::Diagnostic>& diagnostics);

// One scope as read: {scope, path, exists, revision, valid, diagnostics}
// and, with `with_document`, its document.
nlohmann::json scope_json(const settings::ScopeFile& file, bool with_document);

// The whole reading: effective settings, the origin of every value, each
// scope, the digest (null while a scope is invalid).
nlohmann::json snapshot_json(const settings::Snapshot& snapshot);

// JSON as text that never throws: bytes that are not UTF-8 (a message
// quoting a malformed request) become U+FFFD.
std::string json_text(const nlohmann::json& value);

Response json_response(int status, const nlohmann::json& body);
Response error_response(int status, const std::string& error, const std::string& message,
                        const nlohmann::json& extra = {});

// A message for API callers: the library's words for the command line
// ("pass --workspace DIR") become the API's (?workspace=DIR).
std::string api_wording(std::string message);

// Answers the exception in flight: a usage error 400, a request body that
// is not JSON 400 with its line and column, invalid settings 422 with
// diagnostics, a conflict 412, a refused launch 409, a settings file that
// cannot be trusted or read now 503, anything else 500. The message is the
// exception's own.
Response answer_exception(std::exception_ptr error);

// Thrown by parse_body: the body is not a JSON document (or has a key
// twice, a number out of range, ...); carries the reader's diagnostic.
class MalformedBody : public std::runtime_error {
 public:
  explicit MalformedBody(std::vector<settings::Diagnostic> diagnostics);
  const std::vector<settings::Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<settings::Diagnostic> diagnostics_;
};

// The request body read with the settings file reader (the same bounds,
// duplicate keys refused, numbers in range, UTF-8). Throws MalformedBody.
nlohmann::json parse_body(const Request& request);

}  // namespace holdfast::service
