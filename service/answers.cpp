#include "service/answers.hpp"

#include "launcher/gatekeeper/rule.hpp"
#include "launcher/sandbox/refusal.hpp"
#include "settings/file_lock.hpp"
#include "settings/strict_modes.hpp"

namespace holdfast::service {

using nlohmann::json;

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

void answer(httplib::Response& response, int status, const json& body) {
  response.status = status;
  response.set_content(body.dump(), "application/json");
}

void answer_error(httplib::Response& response, int status, const std::string& error,
                  const std::string& message, const json& extra) {
  json body = {{"error", error}, {"message", message}};
  if (extra.is_object()) body.update(extra);
  answer(response, status, body);
}

void answer_exception(httplib::Response& response, std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const settings::InvalidSettings& e) {
    answer_error(response, 422, "invalid_settings", e.what(),
                 {{"diagnostics", diagnostics_json(e.diagnostics())}});
  } catch (const settings::RevisionConflict& e) {
    answer_error(response, 412, "revision_conflict", e.what(),
                 {{"expected", e.expected()}, {"revision", e.actual()}});
  } catch (const settings::UsageError& e) {
    answer_error(response, 400, "bad_request", e.what());
  } catch (const gatekeeper::RuleError& e) {
    answer_error(response, 422, "rule_error",
                 std::string(e.what()) +
                     "; nothing is decided with a rule that cannot be read: fix the rule in "
                     "the settings");
  } catch (const sandbox::Refused& e) {
    answer_error(response, 409, "refused", e.what());
  } catch (const settings::UnsafeSettingsFile& e) {
    answer_error(response, 503, "unsafe_settings_file", e.what());
  } catch (const settings::SnapshotError& e) {
    answer_error(response, 503, "settings_unavailable", e.what());
  } catch (const settings::LockTimeout& e) {
    // Nothing was saved; the message names who holds the scope's lock.
    answer_error(response, 503, "settings_locked", e.what());
  } catch (const std::exception& e) {
    answer_error(response, 500, "internal", e.what());
  }
}

httplib::Server::Handler guarded(httplib::Server::Handler body) {
  return [body = std::move(body)](const httplib::Request& request, httplib::Response& response) {
    try {
      body(request, response);
    } catch (...) {
      answer_exception(response, std::current_exception());
    }
  };
}

std::optional<json> parse_body(const httplib::Request& request, httplib::Response& response) {
  try {
    return json::parse(request.body);
  } catch (const json::parse_error& e) {
    answer_error(response, 400, "malformed_body",
                 "the request body is not JSON: " + std::string(e.what()), {{"byte", e.byte}});
    return std::nullopt;
  }
}

}  // namespace holdfast::service
