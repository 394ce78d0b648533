#include "settings/store.hpp"

#include <system_error>

#include "settings/file_lock.hpp"
#include "settings/schema.hpp"

namespace holdfast::settings {

Expectation Expectation::unchanged_since(const ScopeFile& loaded) {
  return Expectation{loaded.revision, loaded.exists ? loaded.identity.sha256 : std::string()};
}

Store::Store(ScopePaths paths, StoreOptions options)
    : paths_(std::move(paths)), options_(std::move(options)) {}

std::filesystem::path Store::file(Scope scope) const {
  auto path = paths_.file(scope);
  if (!path) {
    throw UsageError("the workspace scope needs a workspace: pass --workspace DIR");
  }
  return *path;
}

ScopeFile Store::load(Scope scope) const { return read_scope_file(scope, file(scope)); }

std::vector<ScopeFile> Store::load_all() const {
  std::vector<ScopeFile> files;
  for (Scope scope : kScopesInPrecedenceOrder) {
    if (auto path = paths_.file(scope)) files.push_back(read_scope_file(scope, *path));
  }
  return files;
}

Effective Store::effective() const {
  const auto files = load_all();
  std::vector<Diagnostic> errors;
  std::vector<const ScopeFile*> pointers;
  for (const auto& f : files) {
    if (!f.valid()) errors.insert(errors.end(), f.diagnostics.begin(), f.diagnostics.end());
    pointers.push_back(&f);
  }
  if (!errors.empty()) throw InvalidSettings(errors);
  Effective effective = merge_scopes(pointers);
  for (const auto& f : files) {
    for (const auto& d : f.diagnostics) effective.warnings.push_back(d);
  }
  return effective;
}

namespace {

void check_expectation(const ScopeFile& current, const Expectation& expected) {
  if (expected.revision && *expected.revision != current.revision) {
    throw RevisionConflict(current.path, *expected.revision, current.revision);
  }
  const std::string current_sha = current.exists ? current.identity.sha256 : std::string();
  if (expected.sha256 && *expected.sha256 != current_sha) {
    throw RevisionConflict(current.path, expected.revision.value_or(current.revision),
                           current.revision);
  }
}

}  // namespace

SaveResult Store::update(Scope scope, const std::function<void(nlohmann::json&)>& mutate,
                         const Expectation& expected) {
  const std::filesystem::path path = file(scope);
  std::error_code ec;
  std::filesystem::create_directories(resolve_write_target(path).parent_path(), ec);
  if (ec) throw SystemError("cannot create settings directory", path.parent_path(), ec.value());

  const ScopeLock lock(path);
  const ScopeFile current = read_scope_file(scope, path);
  if (!current.valid()) {
    // Refuse: saving would overwrite (and so lose) what the person wrote.
    std::vector<Diagnostic> diagnostics = current.diagnostics;
    diagnostics.push_back(Diagnostic{Severity::error, path, {}, "",
                                     "refusing to save into a file that is invalid; fix it "
                                     "first (holdfast settings validate), nothing was changed"});
    throw InvalidSettings(std::move(diagnostics));
  }
  check_expectation(current, expected);
  if (current.revision >= kMaxRevision) {
    // Wrapping to 0 could make a stale expectation match again.
    const auto at = current.locations.find(std::string("/") + kRevisionKey);
    throw InvalidSettings({Diagnostic{
        Severity::error, path, at == current.locations.end() ? Location{} : at->second,
        kRevisionKey,
        "the save counter is at its maximum, " + std::to_string(kMaxRevision) +
            ", and a save would have to wrap it; nothing was saved. To save again, set "
            "\"$revision\" to 0 by hand (a program that expects the old revision then gets "
            "a conflict and reads the file again)"}});
  }

  nlohmann::json document = current.document;
  mutate(document);
  document[kRevisionKey] = current.revision + 1;

  ScopeFile next;
  next.scope = scope;
  next.path = path;
  next.bytes = document.dump(2) + "\n";
  interpret_scope_bytes(next);
  if (!next.valid()) {
    // Never write a document we would refuse to read.
    std::vector<Diagnostic> diagnostics;
    for (auto d : next.diagnostics) {
      d.location = {};  // locations refer to the unsaved text, not the file
      d.message += " (in the document as it would be after this change)";
      diagnostics.push_back(std::move(d));
    }
    diagnostics.push_back(Diagnostic{Severity::error, path, {}, "",
                                     "the change would make the file invalid; nothing was saved"});
    throw InvalidSettings(std::move(diagnostics));
  }

  sweep_stale_temps(path, /*all=*/false);
  WriteOptions write_options;
  write_options.durable = options_.durable;
  write_options.keep_backup = options_.keep_backup;
  write_options.after_step = options_.after_write_step;
  write_file_atomically(path, next.bytes, write_options);
  return SaveResult{path, next.revision};
}

SaveResult Store::set(Scope scope, const KeyPath& key, nlohmann::json value,
                      const Expectation& expected) {
  if (!key.empty() && key.front() == kRevisionKey) {
    throw UsageError("$revision is maintained by holdfast and cannot be set");
  }
  return update(
      scope, [&](nlohmann::json& document) { set_value(document, key, std::move(value)); },
      expected);
}

SaveResult Store::unset(Scope scope, const KeyPath& key, const Expectation& expected) {
  return update(
      scope,
      [&](nlohmann::json& document) {
        if (!unset_value(document, key)) {
          throw UsageError(to_dotted(key) + " is not set in the " +
                           std::string(scope_name(scope)) + " scope (" + file(scope).string() +
                           ")");
        }
      },
      expected);
}

}  // namespace holdfast::settings
