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

Scope scope_from(const Request& request) {
  const std::string& name = request.matches.at(0);
  const auto scope = settings::parse_scope(name);
  if (!scope) {
    throw settings::UsageError("unknown scope \"" + name +
                               "\"; use one of system-defaults, user, workspace, system");
  }
  if (*scope == Scope::workspace && !request.has_param("workspace")) {
    throw settings::UsageError(
        "the workspace scope needs a workspace: add ?workspace=DIR (an absolute directory)");
  }
  return *scope;
}

std::string etag(std::uint64_t revision) { return "\"" + std::to_string(revision) + "\""; }

// One scope as read: its document, revision and diagnostics.
Response scope_response(int status, const settings::ScopeFile& file,
                        const json& extra = json::object()) {
  json body = scope_json(file, true);
  body.update(extra);
  Response response = json_response(status, body);
  response.set_header("ETag", etag(file.revision));
  return response;
}

// Runs a save with the If-Match revision; answers 200 with the new
// revision, 412 with the current document when the file moved on, 428
// without If-Match. Other errors go to answer_exception.
Response save(const Request& request, const std::function<void(json&)>& mutate) {
  const Scope scope = scope_from(request);
  const std::optional<std::uint64_t> revision =
      parse_if_match(request.header("If-Match").value_or(""));
  if (!revision) {
    return error_response(428, "if_match_required",
                          "send If-Match with the revision you read (the ETag of GET "
                          "/api/v1/scopes/" +
                              std::string(settings::scope_name(scope)) +
                              "), so that a save made in between is not overwritten");
  }
  settings::Store store(paths_for_request(request));
  try {
    const settings::SaveResult saved =
        store.update(scope, mutate, settings::Expectation{revision, std::nullopt});
    Response response =
        json_response(200, {{"path", saved.path.string()}, {"revision", saved.revision}});
    response.set_header("ETag", etag(saved.revision));
    return response;
  } catch (const settings::RevisionConflict& e) {
    // What is there now, so the caller can show what changed in between.
    return scope_response(412, store.load(scope),
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

// The file of the scope a request names.
std::filesystem::path scope_file(const Request& request) {
  const Scope scope = scope_from(request);
  return *paths_for_request(request).file(scope);
}

std::uint64_t history_id(const std::string& text) {
  if (text.empty() || text.size() > 16) throw settings::UsageError("no such history entry");
  return std::stoull(text);
}

}  // namespace

settings::ScopePaths paths_for_request(const Request& request) {
  if (!request.has_param("workspace")) return settings::scope_paths_from_environment(std::nullopt);
  const std::filesystem::path workspace = request.param("workspace");
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

void add_settings_routes(Router& router, ChangeHub& hub) {
  router.add("GET", "/api/v1/schema",
             [](Request&) { return json_response(200, settings::settings_schema()); });

  router.add("GET", "/api/v1/settings", [](Request& request) {
    settings::StoreOptions options;
    options.read.keep_invalid = true;  // show what is wrong instead of failing
    const settings::Store store(paths_for_request(request), options);
    return json_response(200, snapshot_json(store.snapshot()));
  });

  const std::string scope = R"(/api/v1/scopes/([a-z-]+))";
  router.add("GET", scope, [](Request& request) {
    const Scope which = scope_from(request);
    const settings::Store store(paths_for_request(request));
    return scope_response(200, store.load(which));
  });

  router.add("PUT", scope, [](Request& request) {
    const json body = parse_body(request);
    if (!body.is_object()) {
      return error_response(400, "bad_request",
                            "a PUT body is the whole settings document, a JSON object");
    }
    return save(request, [&](json& document) {
      document = body;
      document.erase(settings::kRevisionKey);  // the store keeps the counter
    });
  });

  router.add("PATCH", scope,
             [](Request& request) { return save(request, patch_edit(parse_body(request))); });

  router.add("GET", scope + "/history", [&hub](Request& request) {
    const std::filesystem::path file = scope_file(request);
    return json_response(200, {{"path", file.string()}, {"entries", hub.history(file)}});
  });

  router.add("GET", scope + R"(/history/([0-9]+))", [&hub](Request& request) {
    const std::filesystem::path file = scope_file(request);
    const auto entry = hub.history_entry(file, history_id(request.matches.at(1)));
    if (!entry) {
      return error_response(404, "not_found",
                            "the service keeps no such entry of " + file.string() +
                                "'s history (it keeps the last saves it saw)");
    }
    return json_response(200, {{"path", file.string()},
                               {"id", entry->id},
                               {"revision", entry->revision},
                               {"exists", entry->exists},
                               {"seenUnixMs", entry->seen_unix_ms},
                               {"keys", entry->keys},
                               {"document", entry->document}});
  });

  router.add("GET", "/api/v1/events", [&hub](Request& request) {
    // Checked and started here (a bad workspace is a 400, not an empty
    // stream); the connection subscribes once the answer's head is sent.
    const settings::ScopePaths paths = paths_for_request(request);
    hub.watch(paths);
    Response response;
    response.stream = EventStream{
        [&hub, paths](ChangeHub::Send send) { return hub.subscribe(paths, std::move(send)); }};
    return response;
  });
}

}  // namespace holdfast::service
