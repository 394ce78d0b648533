#include "service/answers.hpp"

#include "launcher/gatekeeper/rule.hpp"
#include "launcher/sandbox/refusal.hpp"
#include "settings/file_lock.hpp"
#include "settings/jsonc.hpp"
#include "settings/strict_modes.hpp"

namespace holdfast::service {

using nlohmann::json;

namespace {

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

json refusals_json(const sandbox::Refused& refused) {
  json out = json::array();
  for (const auto& r : refused.refusals()) {
    out.push_back({{"rule", r.rule},
                   {"path", r.path},
                   {"entry", r.entry},
                   {"message", api_wording(r.message)},
                   {"remedy", api_wording(r.remedy)}});
  }
  return out;
}

}  // namespace

json diagnostics_json(const std::vector<settings::Diagnostic>& diagnostics) {
  json out = json::array();
  for (const auto& d : diagnostics) {
    out.push_back({{"severity", d.severity == settings::Severity::error ? "error" : "warning"},
                   {"file", d.file.string()},
                   {"line", d.location.line},
                   {"column", d.location.column},
                   {"key", d.key_path},
                   {"message", d.message}});
  }
  return out;
}

json scope_json(const settings::ScopeFile& file, bool with_document) {
  json out = {{"scope", std::string(settings::scope_name(file.scope))},
              {"path", file.path.string()},
              {"exists", file.exists},
              {"revision", file.revision},
              {"valid", file.valid()},
              {"diagnostics", diagnostics_json(file.diagnostics)}};
  if (with_document) out["document"] = file.document;
  return out;
}

json snapshot_json(const settings::Snapshot& snapshot) {
  json scopes = json::array();
  for (const auto& file : snapshot.scopes) scopes.push_back(scope_json(file, false));
  json origins = json::object();
  const bool complete = snapshot.complete();
  if (complete) {
    for (const auto& [key, scope] : snapshot.effective.origins) {
      origins[key] = std::string(settings::scope_name(scope));
    }
  }
  return {{"valid", complete},
          {"digest", complete ? json(snapshot.digest) : json()},
          {"effective", complete ? snapshot.effective.value : json()},
          {"origins", origins},
          {"warnings", diagnostics_json(snapshot.effective.warnings)},
          {"policyRequired", snapshot.policy_required},
          {"scopes", scopes}};
}

std::string json_text(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

Response json_response(int status, const json& body) {
  Response response;
  response.status = status;
  response.body = json_text(body);
  return response;
}

Response error_response(int status, const std::string& error, const std::string& message,
                        const json& extra) {
  json body = {{"error", error}, {"message", api_wording(message)}};
  if (extra.is_object()) body.update(extra);
  return json_response(status, body);
}

std::string api_wording(std::string message) {
  // The command line's options for the workspace are the query parameter
  // here. Longest phrasings first.
  replace_all(message, "pass --workspace with a directory that contains the current one",
              "name a workspace (?workspace=DIR) that contains the current directory");
  replace_all(message, "pass --workspace DIR", "add ?workspace=DIR (an absolute directory)");
  replace_all(message, "with --workspace DIR", "with ?workspace=DIR");
  replace_all(message, "--workspace DIR", "?workspace=DIR");
  replace_all(message, "--workspace", "?workspace=");
  return message;
}

MalformedBody::MalformedBody(std::vector<settings::Diagnostic> diagnostics)
    : std::runtime_error(diagnostics.empty() ? "the request body is not JSON"
                                             : diagnostics.front().to_string()),
      diagnostics_(std::move(diagnostics)) {}

json parse_body(const Request& request) {
  try {
    return settings::parse_settings_text(request.body, "request body").value;
  } catch (const settings::InvalidSettings& e) {
    throw MalformedBody(e.diagnostics());
  }
}

Response answer_exception(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const MalformedBody& e) {
    const auto& first = e.diagnostics().front();
    return error_response(
        400, "malformed_body",
        std::string("the request body is not a JSON document holdfast accepts: ") + e.what(),
        {{"line", first.location.line},
         {"column", first.location.column},
         {"diagnostics", diagnostics_json(e.diagnostics())}});
  } catch (const settings::InvalidSettings& e) {
    return error_response(422, "invalid_settings", e.what(),
                          {{"diagnostics", diagnostics_json(e.diagnostics())}});
  } catch (const settings::RevisionConflict& e) {
    return error_response(412, "revision_conflict", e.what(),
                          {{"expected", e.expected()}, {"revision", e.actual()}});
  } catch (const settings::UsageError& e) {
    return error_response(400, "bad_request", e.what());
  } catch (const gatekeeper::RuleError& e) {
    return error_response(422, "rule_error",
                          std::string(e.what()) +
                              "; nothing is decided with a rule that cannot be read: fix the "
                              "rule in the settings");
  } catch (const sandbox::Refused& e) {
    return error_response(409, "refused", e.what(), {{"refusals", refusals_json(e)}});
  } catch (const settings::UnsafeSettingsFile& e) {
    return error_response(503, "unsafe_settings_file", e.what());
  } catch (const settings::SnapshotError& e) {
    return error_response(503, "settings_unavailable", e.what());
  } catch (const settings::LockTimeout& e) {
    // Nothing was saved; the message names who holds the scope's lock.
    return error_response(503, "settings_locked", e.what());
  } catch (const std::exception& e) {
    return error_response(500, "internal", e.what());
  }
}

}  // namespace holdfast::service
