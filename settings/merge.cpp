#include "settings/merge.hpp"

#include <algorithm>

#include "settings/key_path.hpp"

namespace holdfast::settings {

namespace {

// Keys a workspace may not set: they would widen or replace the operator's
// policy, or hide its launches from the operator's records.
const std::vector<KeyPath>& workspace_ignored_keys() {
  static const std::vector<KeyPath> keys = {{"tools", "executionSandbox"},
                                            {"security"},
                                            {"permissions", "allow"},
                                            {"permissions", "defaultMode"},
                                            {"launcher", "launchRecords"},
                                            {"tools", "protectedNames", "lift"},
                                            {"tools", "protectedNames", "scanLimit"},
                                            {"tools", "credentialStores", "lift"}};
  return keys;
}

bool is_concatenated_list(const KeyPath& path) {
  if (path.size() == 2 && path[0] == "permissions") {
    return path[1] == "allow" || path[1] == "ask" || path[1] == "deny";
  }
  // The built-in lists every scope extends (launcher/sandbox/builtin_list.hpp).
  return path.size() == 3 && path[0] == "tools" &&
         (path[1] == "protectedNames" || path[1] == "credentialStores") &&
         (path[2] == "add" || path[2] == "lift");
}

bool is_whole_policy(const KeyPath& path) {
  return path.size() == 2 && path[0] == "tools" && path[1] == "executionSandbox";
}

void record_origins(const nlohmann::json& value, const KeyPath& path, Scope scope,
                    std::map<std::string, Scope>& origins) {
  if (value.is_object() && !value.empty()) {
    for (const auto& [key, member] : value.items()) {
      KeyPath child = path;
      child.push_back(key);
      record_origins(member, child, scope, origins);
    }
  } else {
    origins[to_dotted(path)] = scope;
  }
}

void forget_origins_under(const KeyPath& path, std::map<std::string, Scope>& origins) {
  const std::string prefix = to_dotted(path);
  for (auto it = origins.lower_bound(prefix); it != origins.end();) {
    if (it->first == prefix || it->first.starts_with(prefix + ".")) {
      it = origins.erase(it);
    } else if (it->first.starts_with(prefix)) {
      ++it;  // a sibling such as "ab" after "a"
    } else {
      break;
    }
  }
}

void merge_into(nlohmann::json& target, const nlohmann::json& source, const KeyPath& path,
                Scope scope, Effective& out) {
  for (const auto& [key, value] : source.items()) {
    KeyPath child = path;
    child.push_back(key);
    if (path.empty() && key == kRevisionKey) continue;  // per-file, not a setting
    nlohmann::json& slot = target[key];
    if (is_concatenated_list(child) && value.is_array()) {
      if (!slot.is_array()) slot = nlohmann::json::array();
      for (const auto& rule : value) {
        out.origins[to_dotted(child) + "." + std::to_string(slot.size())] = scope;
        slot.push_back(rule);
      }
    } else if (value.is_object() && !is_whole_policy(child) &&
               (slot.is_object() || (slot.is_null() && !value.empty()))) {
      // A key no lower scope set is merged into an empty object rather than
      // copied whole, so the rules below it (lists concatenated element by
      // element, per-leaf origins) hold whichever scope sets it first.
      if (slot.is_null()) {
        forget_origins_under(child, out.origins);
        slot = nlohmann::json::object();
      }
      merge_into(slot, value, child, scope, out);
    } else {
      forget_origins_under(child, out.origins);
      slot = value;
      record_origins(value, child, scope, out.origins);
    }
  }
}

}  // namespace

Effective merge_scopes(const std::vector<const ScopeFile*>& files) {
  std::vector<const ScopeFile*> ordered(files);
  std::stable_sort(ordered.begin(), ordered.end(), [](const ScopeFile* a, const ScopeFile* b) {
    return static_cast<int>(a->scope) < static_cast<int>(b->scope);
  });
  Effective out;
  for (const ScopeFile* file : ordered) {
    if (!file->exists) continue;
    nlohmann::json document = file->document;
    if (file->scope == Scope::workspace) {
      for (const auto& key : workspace_ignored_keys()) {
        if (find_value(document, key) == nullptr) continue;
        Location location;
        if (const auto it = file->locations.find(to_pointer(key)); it != file->locations.end()) {
          location = it->second;
        }
        out.warnings.push_back(Diagnostic{
            Severity::warning, file->path, location, to_dotted(key),
            "ignored: only operator scopes (system-defaults, user, system) may set this; a "
            "workspace cannot widen or replace the operator's policy"});
        unset_value(document, key);
      }
    }
    merge_into(out.value, document, {}, file->scope, out);
  }
  return out;
}

}  // namespace holdfast::settings
