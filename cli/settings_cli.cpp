#include "cli/settings_cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <iostream>
#include <mutex>

#include "base/system_error.hpp"
#include "settings/schema.hpp"
#include "settings/store.hpp"
#include "settings/watcher.hpp"

namespace holdfast::settings {

namespace {

struct CommonOptions {
  std::string scope;  // empty: effective
  // show --effective: the default without --scope, accepted for clarity.
  // (Held here, with the other options the callbacks keep alive: CLI11
  // writes the flag after this function has returned.)
  bool effective = false;
  std::string workspace;
  bool json = false;
};

ScopePaths paths_for(const CommonOptions& options) {
  std::filesystem::path workspace = options.workspace.empty()
                                        ? std::filesystem::current_path()
                                        : std::filesystem::path(options.workspace);
  return scope_paths_from_environment(workspace);
}

Scope scope_for(const CommonOptions& options, Scope fallback) {
  if (options.scope.empty()) return fallback;
  if (auto scope = parse_scope(options.scope)) return *scope;
  throw UsageError("unknown scope \"" + options.scope +
                   "\"; use one of system-defaults, user, workspace, system");
}

void add_scope_options(CLI::App* command, CommonOptions& options, const std::string& scope_help) {
  command->add_option("--scope", options.scope, scope_help)
      ->check(CLI::IsMember({"system-defaults", "user", "workspace", "system"}));
  command->add_option("--workspace", options.workspace,
                      "Workspace directory whose .holdfast/settings.json is the workspace scope "
                      "(default: the current directory)");
}

void print_warnings(const std::vector<Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics) {
    if (d.severity == Severity::warning) std::cerr << "holdfast: " << d.to_string() << "\n";
  }
}

nlohmann::json parse_value_argument(const std::string& text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error&) {
    throw UsageError("the value must be JSON: " + text +
                     " is not. Quote strings for the shell and for JSON, e.g. '\"closed\"', "
                     "and write objects as '{\"filesystem\": \"read-only\"}'");
  }
}

// The value of --if-revision when it was given. Digits only: std::stoull
// alone would take "-1" for 18446744073709551615 and " 1" for 1.
std::optional<std::uint64_t> revision_option(const CLI::Option* option, const std::string& text) {
  if (option->count() == 0) return std::nullopt;
  const bool digits =
      !text.empty() && text.size() <= 16 &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits && std::stoull(text) <= kMaxRevision) return std::stoull(text);
  throw UsageError("--if-revision needs a revision number, an integer from 0 to " +
                   std::to_string(kMaxRevision) + "; found \"" + text + "\"");
}

// The origin of `key` in the effective settings: the scope of the key itself,
// or, for an object, of the value under it that was set last.
std::optional<Scope> origin_of(const Effective& effective, const KeyPath& key) {
  const std::string dotted = to_dotted(key);
  if (auto it = effective.origins.find(dotted); it != effective.origins.end()) return it->second;
  std::optional<Scope> origin;
  for (const auto& [path, scope] : effective.origins) {
    if (path.starts_with(dotted + ".") &&
        (!origin || static_cast<int>(scope) > static_cast<int>(*origin))) {
      origin = scope;
    }
  }
  return origin;
}

// How a save of the command line waits for a busy scope lock: it says who
// holds it, then gives up after the bound (LockTimeout) instead of hanging.
StoreOptions saving_options() {
  StoreOptions options;
  const auto bound = options.lock_wait.bound;
  options.lock_wait.on_wait = [bound](const std::filesystem::path& lock,
                                      const std::string& holder) {
    std::cerr << "holdfast: waiting for " << (holder.empty() ? "another process" : holder)
              << ", which holds " << lock.string() << " (at most " << bound.count() << " ms)\n";
  };
  return options;
}

int cmd_get(const CommonOptions& options, const std::string& key_text) {
  const Store store(paths_for(options));
  const KeyPath key = parse_key_path(key_text);
  nlohmann::json value;
  std::optional<Scope> scope;
  std::uint64_t revision = 0;
  if (options.scope.empty()) {
    const Snapshot snapshot = store.snapshot();
    const Effective& effective = snapshot.effective;
    print_warnings(effective.warnings);
    const nlohmann::json* found = find_value(effective.value, key);
    if (found == nullptr) {
      std::cerr << "holdfast: " << key_text << " is not set in any scope\n";
      return exit_error;
    }
    value = *found;
    scope = origin_of(effective, key);
    if (scope) revision = snapshot.scope(*scope)->revision;  // the same reading, not a new one
  } else {
    scope = scope_for(options, Scope::user);
    const ScopeFile file = store.load(*scope);
    require_valid(file);
    const nlohmann::json* found = find_value(file.document, key);
    if (found == nullptr) {
      std::cerr << "holdfast: " << key_text << " is not set in the " << scope_name(*scope)
                << " scope (" << file.path.string() << ")\n";
      return exit_error;
    }
    value = *found;
    revision = file.revision;
  }
  if (options.json) {
    nlohmann::json out = {{"key", to_dotted(key)}, {"value", value}, {"revision", revision}};
    out["scope"] = scope ? nlohmann::json(std::string(scope_name(*scope))) : nlohmann::json();
    std::cout << out.dump() << "\n";
  } else {
    std::cout << (value.is_string() ? value.get<std::string>() : value.dump(2)) << "\n";
  }
  return exit_ok;
}

int cmd_set(const CommonOptions& options, const std::string& key_text,
            const std::string& value_text, std::optional<std::uint64_t> if_revision) {
  Store store(paths_for(options), saving_options());
  const Scope scope = scope_for(options, Scope::user);
  const SaveResult saved =
      store.set(scope, parse_key_path(key_text), parse_value_argument(value_text),
                Expectation{if_revision, std::nullopt});
  if (options.json) {
    std::cout << nlohmann::json{{"path", saved.path.string()}, {"revision", saved.revision}}.dump()
              << "\n";
  }
  return exit_ok;
}

int cmd_unset(const CommonOptions& options, const std::string& key_text,
              std::optional<std::uint64_t> if_revision) {
  Store store(paths_for(options), saving_options());
  const Scope scope = scope_for(options, Scope::user);
  const SaveResult saved =
      store.unset(scope, parse_key_path(key_text), Expectation{if_revision, std::nullopt});
  if (options.json) {
    std::cout << nlohmann::json{{"path", saved.path.string()}, {"revision", saved.revision}}.dump()
              << "\n";
  }
  return exit_ok;
}

void print_origins(const Effective& effective, const Store& store) {
  for (const auto& [key, scope] : effective.origins) {
    const nlohmann::json* value = find_value(effective.value, parse_key_path(key));
    // List elements ("permissions.allow.0") are not object keys; show them
    // through the list they belong to.
    std::string shown;
    if (value != nullptr) {
      shown = value->dump();
    } else {
      const auto dot = key.rfind('.');
      const nlohmann::json* list = find_value(effective.value, parse_key_path(key.substr(0, dot)));
      const std::size_t index = std::stoul(key.substr(dot + 1));
      shown =
          list != nullptr && list->is_array() && index < list->size() ? (*list)[index].dump() : "?";
    }
    std::cout << key << " = " << shown << "    # " << scope_name(scope) << " ("
              << store.file(scope).string() << ")\n";
  }
}

int cmd_show(const CommonOptions& options, bool origin) {
  const Store store(paths_for(options));
  if (options.scope.empty()) {
    const Snapshot snapshot = store.snapshot();
    const Effective& effective = snapshot.effective;
    print_warnings(effective.warnings);
    if (options.json) {
      nlohmann::json origins = nlohmann::json::object();
      for (const auto& [key, scope] : effective.origins) {
        origins[key] = std::string(scope_name(scope));
      }
      nlohmann::json out = {{"effective", effective.value}};
      if (origin) out["origins"] = origins;
      std::cout << out.dump(2) << "\n";
    } else if (origin) {
      print_origins(effective, store);
    } else {
      std::cout << effective.value.dump(2) << "\n";
    }
    return exit_ok;
  }
  const ScopeFile file = store.load(scope_for(options, Scope::user));
  require_valid(file);
  print_warnings(file.diagnostics);
  if (options.json) {
    std::cout << nlohmann::json{{"scope", std::string(scope_name(file.scope))},
                                {"path", file.path.string()},
                                {"exists", file.exists},
                                {"revision", file.revision},
                                {"document", file.document}}
                     .dump(2)
              << "\n";
  } else {
    std::cout << file.document.dump(2) << "\n";
  }
  return exit_ok;
}

int cmd_validate(const CommonOptions& options) {
  std::vector<ScopeFile> files;
  if (options.scope.empty()) {
    SnapshotOptions read;
    read.keep_invalid = true;   // every problem is listed, not only the first file's
    read.strict_modes = false;  // validate judges content; doctor judges ownership
    files = take_snapshot(paths_for(options), read).scopes;
  } else {
    const Store store(paths_for(options));
    files.push_back(store.load(scope_for(options, Scope::user)));
  }
  bool errors = false;
  nlohmann::json report = nlohmann::json::array();
  for (const auto& file : files) {
    nlohmann::json diagnostics = nlohmann::json::array();
    for (const auto& d : file.diagnostics) {
      errors |= d.severity == Severity::error;
      if (!options.json) std::cerr << d.to_string() << "\n";
      diagnostics.push_back({{"severity", d.severity == Severity::error ? "error" : "warning"},
                             {"line", d.location.line},
                             {"column", d.location.column},
                             {"key", d.key_path},
                             {"message", d.message}});
    }
    const char* state = !file.exists ? "absent" : file.valid() ? "valid" : "invalid";
    if (!options.json) {
      std::cout << scope_name(file.scope) << ": " << file.path.string() << ": " << state << "\n";
    }
    report.push_back({{"scope", std::string(scope_name(file.scope))},
                      {"path", file.path.string()},
                      {"state", state},
                      {"diagnostics", diagnostics}});
  }
  if (options.json) std::cout << report.dump(2) << "\n";
  return errors ? exit_invalid : exit_ok;
}

std::string change_line(const SettingsChange& change, bool json) {
  const nlohmann::json out = change_json(change);
  if (json) return out.dump();
  const nlohmann::json& revisions = out["revisions"];
  const nlohmann::json& scopes = out["scopes"];
  std::string line = change.initial ? "initial" : "changed";
  line += " digest=" + change.snapshot.digest.substr(0, 16) + " revisions=";
  std::string parts;
  for (const auto& [scope, revision] : revisions.items()) {
    parts +=
        (parts.empty() ? "" : ",") + scope + ":" + (revision.is_null() ? "-" : revision.dump());
  }
  line += parts;
  if (!change.initial) {
    std::string names;
    for (const auto& scope : scopes) names += (names.empty() ? "" : ",") + scope.get<std::string>();
    std::string keys;
    for (const auto& key : change.changed_keys) keys += (keys.empty() ? "" : ",") + key;
    line += " scopes=" + (names.empty() ? "-" : names) + " keys=" + (keys.empty() ? "-" : keys);
  }
  return line;
}

int cmd_forget(const CommonOptions& options, bool remove_file) {
  Store store(paths_for(options), saving_options());
  if (options.scope.empty()) {
    throw UsageError(
        "name the scope whose file is gone on purpose: --scope user (or "
        "system-defaults, system, or workspace with --workspace DIR)");
  }
  const Scope scope = scope_for(options, Scope::user);
  const bool remembered = store.forget(scope, remove_file);
  std::cout << "holdfast: " << store.file(scope).string()
            << (remove_file ? " removed; " : " is gone; ")
            << (remembered ? "holdfast no longer expects it (a later reading takes it for absent)"
                           : "holdfast had no memory of it")
            << "\n";
  return exit_ok;
}

int cmd_watch(const CommonOptions& options, int count) {
  std::mutex mutex;
  std::condition_variable done;
  int changes = 0;
  Watcher watcher(
      paths_for(options), SnapshotOptions{},
      [&](const SettingsChange& change) {
        std::cout << change_line(change, options.json) << std::endl;  // one line per change, now
        const std::lock_guard lock(mutex);
        if (!change.initial) ++changes;
        done.notify_all();
      },
      [](const std::exception& e) { std::cerr << "holdfast: " << e.what() << std::endl; });
  std::unique_lock lock(mutex);
  done.wait(lock, [&] { return count > 0 && changes >= count; });
  return exit_ok;
}

}  // namespace

int run_settings_command(const std::function<int()>& body) {
  try {
    return body();
  } catch (const RevisionConflict& e) {
    std::cerr << "holdfast: " << e.what() << "\n";
    return exit_conflict;
  } catch (const InvalidSettings& e) {
    for (const auto& d : e.diagnostics()) std::cerr << "holdfast: " << d.to_string() << "\n";
    std::cerr << "holdfast: the file was not changed; fix it by hand, then run "
                 "`holdfast settings validate`\n";
    return exit_invalid;
  } catch (const UsageError& e) {
    std::cerr << "holdfast: " << e.what() << "\n";
    return exit_usage;
  } catch (const base::SystemError& e) {
    std::cerr << "holdfast: " << e.what() << "\n";
    return exit_error;
  } catch (const std::exception& e) {
    std::cerr << "holdfast: " << e.what() << "\n";
    return exit_error;
  }
}

CLI::App* add_settings_cli(CLI::App& app, int& exit_code) {
  auto* settings = app.add_subcommand("settings", "Read, change and check holdfast settings");
  settings->require_subcommand(1);
  settings->footer(
      "Scopes, later wins: system-defaults ($HOLDFAST_SYSTEM_DIR/system-defaults.json), user "
      "($HOLDFAST_CONFIG_DIR/settings.json), workspace (WORKSPACE/.holdfast/settings.json), "
      "system ($HOLDFAST_SYSTEM_DIR/settings.json).\nKeys: dotted (tools.executionSandbox.network, "
      "\\. for a dot in a key) or JSON pointer (/tools/executionSandbox).\nExit codes: 0 ok, 1 "
      "error, 2 usage, 3 revision conflict, 4 invalid settings.");

  auto options = std::make_shared<CommonOptions>();
  auto key = std::make_shared<std::string>();
  auto value = std::make_shared<std::string>();
  auto if_revision = std::make_shared<std::string>();
  auto origin = std::make_shared<bool>(false);

  auto* get = settings->add_subcommand(
      "get", "Print a value: the effective one (with its scope under --json), or one scope's");
  add_scope_options(get, *options, "Read this scope only (default: the effective settings)");
  get->add_flag("--json", options->json, "Print {key, value, scope, revision} as JSON");
  get->add_option("KEY", *key, "Key path")->required();
  get->callback([=, &exit_code] {
    exit_code = run_settings_command([&] { return cmd_get(*options, *key); });
  });

  auto* set = settings->add_subcommand("set", "Set a key to a JSON value, durably and atomically");
  add_scope_options(set, *options, "Scope to change (default: user)");
  auto* set_if_revision =
      set->add_option("--if-revision", *if_revision,
                      "Only save if the file is still at this revision (else exit 3)");
  set->add_flag("--json", options->json, "Print the saved path and new revision as JSON");
  set->add_option("KEY", *key, "Key path")->required();
  set->add_option("JSON", *value, "The new value as JSON, e.g. '\"closed\"' or 'true'")->required();
  set->callback([=, &exit_code] {
    exit_code = run_settings_command([&] {
      return cmd_set(*options, *key, *value, revision_option(set_if_revision, *if_revision));
    });
  });

  auto* unset = settings->add_subcommand("unset", "Remove a key, durably and atomically");
  add_scope_options(unset, *options, "Scope to change (default: user)");
  auto* unset_if_revision =
      unset->add_option("--if-revision", *if_revision,
                        "Only save if the file is still at this revision (else exit 3)");
  unset->add_flag("--json", options->json, "Print the saved path and new revision as JSON");
  unset->add_option("KEY", *key, "Key path")->required();
  unset->callback([=, &exit_code] {
    exit_code = run_settings_command([&] {
      return cmd_unset(*options, *key, revision_option(unset_if_revision, *if_revision));
    });
  });

  auto* show = settings->add_subcommand("show", "Print the effective settings, or one scope");
  add_scope_options(show, *options, "Show this scope's document only");
  show->add_flag("--effective", options->effective,
                 "Show the merged settings (the default without --scope)");
  show->add_flag("--origin", *origin, "Say which scope each effective value came from");
  show->add_flag("--json", options->json, "Machine-readable output");
  show->callback([=, &exit_code] {
    exit_code = run_settings_command([&] { return cmd_show(*options, *origin); });
  });

  auto* validate_cmd = settings->add_subcommand(
      "validate", "Check every scope file (or one) and print what is wrong, with line and column");
  add_scope_options(validate_cmd, *options, "Check this scope only");
  validate_cmd->add_flag("--json", options->json, "Machine-readable output");
  validate_cmd->callback([=, &exit_code] {
    exit_code = run_settings_command([&] { return cmd_validate(*options); });
  });

  auto remove_file = std::make_shared<bool>(false);
  auto* forget = settings->add_subcommand(
      "forget",
      "Confirm that an operator scope's settings file is gone on purpose (once holdfast has read "
      "a file, a missing file stops every launch until it comes back or is forgotten)");
  forget
      ->add_option("--scope", options->scope,
                   "The scope whose file is gone: user, "
                   "system-defaults or system")
      ->check(CLI::IsMember({"system-defaults", "user", "system"}))
      ->required();
  forget->add_flag("--remove", *remove_file,
                   "Remove the file too (durably, under the scope's lock), then forget it");
  forget->callback([=, &exit_code] {
    exit_code = run_settings_command([&] { return cmd_forget(*options, *remove_file); });
  });

  auto count = std::make_shared<int>(0);
  auto* watch = settings->add_subcommand(
      "watch", "Print one line per change of the effective settings (inotify, no polling)");
  watch->add_option("--workspace", options->workspace,
                    "Workspace directory (default: the current directory)");
  watch->add_flag("--json", options->json,
                  "One JSON object per line: initial, digest, revisions, scopes, keys");
  watch->add_option("--count", *count, "Exit after this many changes (default: run until killed)")
      ->check(CLI::NonNegativeNumber);
  watch->callback([=, &exit_code] {
    exit_code = run_settings_command([&] { return cmd_watch(*options, *count); });
  });

  auto* schema = settings->add_subcommand("schema", "Print the JSON Schema (draft 2020-12)");
  schema->callback([&exit_code] {
    std::cout << settings_schema().dump(2) << "\n";
    exit_code = exit_ok;
  });
  return settings;
}

}  // namespace holdfast::settings
