#include "service/settings_routes.hpp"

#include <algorithm>

#include "service/answers.hpp"
#include "settings/key_path.hpp"
#include "settings/schema.hpp"
#include "settings/store.hpp"

namespace holdfast::service {

namespace {

using nlohmann::json;
using settings::Scope;

Scope scope_from(const httplib::Request& request) {
  const std::string name = request.matches[1];
  if (auto scope = settings::parse_scope(name)) return *scope;
  throw settings::UsageError("unknown scope \"" + name +
                             "\"; use one of system-defaults, user, workspace, system");
}

std::string etag(std::uint64_t revision) { return "\"" + std::to_string(revision) + "\""; }

// Answers a GET of one scope: its document, revision and diagnostics.
void answer_scope(httplib::Response& response, int status, const settings::ScopeFile& file,
                  json extra = json::object()) {
  json body = scope_json(file, true);
  body.update(extra);
  response.set_header("ETag", etag(file.revision));
  answer(response, status, body);
}

// Runs a save with the If-Match revision; answers 200 with the new
// revision, 412 with the current document when the file moved on, 428
// without If-Match. Errors go to answer_exception.
void save(const httplib::Request& request, httplib::Response& response,
          const std::function<void(json&)>& mutate) {
  const Scope scope = scope_from(request);
  const std::string if_match = request.get_header_value("If-Match");
  const std::optional<std::uint64_t> revision = parse_if_match(if_match);
  if (!revision) {
    answer_error(response, 428, "if_match_required",
                 "send If-Match with the revision you read (the ETag of GET /api/v1/scopes/" +
                     std::string(settings::scope_name(scope)) +
                     "), so that a save made in between is not overwritten");
    return;
  }
  settings::Store store(paths_for_request(request));
  try {
    const settings::SaveResult saved =
        store.update(scope, mutate, settings::Expectation{revision, std::nullopt});
    response.set_header("ETag", etag(saved.revision));
    answer(response, 200, {{"path", saved.path.string()}, {"revision", saved.revision}});
  } catch (const settings::RevisionConflict& e) {
    // What is there now, so the caller can show what changed in between.
    answer_scope(response, 412, store.load(scope),
                 {{"error", "revision_conflict"}, {"message", e.what()}});
  }
}

// PATCH {"set": {KEY: VALUE}, "unset": [KEY]} as one edit of the document.
std::function<void(json&)> patch_edit(const json& body) {
  if (!body.is_object() || std::any_of(body.items().begin(), body.items().end(), [](auto item) {
        return item.key() != "set" && item.key() != "unset";
      })) {
    throw settings::UsageError(
        "a PATCH body is {\"set\": {\"dotted.key\": value}, \"unset\": [\"dotted.key\"]}");
  }
  std::vector<std::pair<settings::KeyPath, json>> sets;
  std::vector<settings::KeyPath> unsets;
  const auto key = [](const std::string& text) {
    settings::KeyPath path = settings::parse_key_path(text);
    if (!path.empty() && path.front() == settings::kRevisionKey) {
      throw settings::UsageError("$revision is maintained by holdfast and cannot be set");
    }
    return path;
  };
  if (body.contains("set")) {
    if (!body["set"].is_object()) throw settings::UsageError("\"set\" must be an object");
    for (const auto& [text, value] : body["set"].items()) sets.emplace_back(key(text), value);
  }
  if (body.contains("unset")) {
    if (!body["unset"].is_array()) throw settings::UsageError("\"unset\" must be a list of keys");
    for (const auto& text : body["unset"]) {
      if (!text.is_string()) throw settings::UsageError("\"unset\" must be a list of keys");
      unsets.push_back(key(text.get<std::string>()));
    }
  }
  return [sets, unsets](json& document) {
    for (const auto& [path, value] : sets) settings::set_value(document, path, value);
    for (const auto& path : unsets) {
      if (!settings::unset_value(document, path)) {
        throw settings::UsageError(settings::to_dotted(path) + " is not set in this scope");
      }
    }
  };
}

}  // namespace

settings::ScopePaths paths_for_request(const httplib::Request& request) {
  if (!request.has_param("workspace")) return settings::scope_paths_from_environment(std::nullopt);
  const std::filesystem::path workspace = request.get_param_value("workspace");
  if (!workspace.is_absolute()) {
    throw settings::UsageError("workspace must be an absolute directory, not \"" +
                               workspace.string() + "\"");
  }
  return settings::scope_paths_from_environment(workspace);
}

std::optional<std::uint64_t> parse_if_match(const std::string& header) {
  if (header.empty()) return std::nullopt;
  std::string text = header;
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
    text = text.substr(1, text.size() - 2);
  }
  if (text.empty() || text.size() > 16 ||
      text.find_first_not_of("0123456789") != std::string::npos ||
      std::stoull(text) > settings::kMaxRevision) {
    throw settings::UsageError("If-Match must be a revision (the ETag this service sent), not " +
                               header);
  }
  return std::stoull(text);
}

void add_settings_routes(httplib::Server& server) {
  server.Get("/api/v1/schema", guarded([](const auto&, auto& response) {
               answer(response, 200, settings::settings_schema());
             }));

  server.Get("/api/v1/settings", guarded([](const auto& request, auto& response) {
               settings::StoreOptions options;
               options.read.keep_invalid = true;  // show what is wrong instead of failing
               const settings::Store store(paths_for_request(request), options);
               answer(response, 200, snapshot_json(store.snapshot()));
             }));

  server.Get(R"(/api/v1/scopes/([a-z-]+))", guarded([](const auto& request, auto& response) {
               const Scope scope = scope_from(request);
               const settings::Store store(paths_for_request(request));
               answer_scope(response, 200, store.load(scope));
             }));

  server.Put(R"(/api/v1/scopes/([a-z-]+))", guarded([](const auto& request, auto& response) {
               const auto body = parse_body(request, response);
               if (!body) return;
               if (!body->is_object()) {
                 answer_error(response, 400, "bad_request",
                              "a PUT body is the whole settings document, a JSON object");
                 return;
               }
               save(request, response, [&](json& document) {
                 document = *body;
                 document.erase(settings::kRevisionKey);  // the store keeps the counter
               });
             }));

  server.Patch(R"(/api/v1/scopes/([a-z-]+))", guarded([](const auto& request, auto& response) {
                 const auto body = parse_body(request, response);
                 if (!body) return;
                 save(request, response, patch_edit(*body));
               }));
}

}  // namespace holdfast::service
