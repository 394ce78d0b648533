// The JSON the API answers with: settings values as documents, and every
// failure as {error, message, diagnostics?} with the status that fits it.
#pragma once

#include <httplib.h>

#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

// Sets `response` to a JSON body.
void answer(httplib::Response& response, int status, const nlohmann::json& body);
void answer_error(httplib::Response& response, int status, const std::string& error,
                  const std::string& message, const nlohmann::json& extra = {});

// Answers the exception in flight: a usage error 400, invalid settings 422
// with diagnostics, a conflict 412, a settings file that cannot be trusted
// or read now 503, anything else 500. The message is the exception's own.
void answer_exception(httplib::Response& response, std::exception_ptr error);

// Wraps a route handler so that every exception it throws becomes a JSON
// error answer (answer_exception).
httplib::Server::Handler guarded(httplib::Server::Handler body);

// Parses a request body, or answers 400 saying at which byte it broke.
std::optional<nlohmann::json> parse_body(const httplib::Request& request,
                                         httplib::Response& response);

}  // namespace holdfast::service
