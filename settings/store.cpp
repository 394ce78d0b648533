#include "settings/store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <system_error>

#include "base/fd.hpp"
#include "base/files.hpp"
#include "base/system_error.hpp"
#include "base/write_target.hpp"
#include "settings/presence.hpp"
#include "settings/schema.hpp"

namespace holdfast::settings {

mode_t new_file_mode_for(Scope scope) { return is_system_scope(scope) ? 0644 : 0600; }

mode_t new_directory_mode_for(Scope scope) { return is_system_scope(scope) ? 0755 : 0700; }

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

Snapshot Store::snapshot() const { return take_snapshot(paths_, options_.read); }

ScopeFile Store::load(Scope scope) const {
  (void)file(scope);  // the workspace scope without a workspace is a usage error
  SnapshotOptions options = options_.read;
  options.keep_invalid = true;
  return read_scope_settled(paths_, scope, options);
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
  base::make_directories(base::resolve_write_target(path).parent_path(),
                         new_directory_mode_for(scope));

  const ScopeLock lock(path, options_.lock_wait);
  // Settled like every read: a file that another program is in the middle
  // of saving is waited for, not taken for empty (which would save a
  // document holding nothing but this change).
  const ScopeFile current = load(scope);
  if (!current.valid()) {
    // Refuse: saving would overwrite (and so lose) what the person wrote.
    std::vector<Diagnostic> diagnostics = current.diagnostics;
    diagnostics.push_back(Diagnostic{Severity::error,
                                     path,
                                     {},
                                     "",
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
    diagnostics.push_back(Diagnostic{Severity::error,
                                     path,
                                     {},
                                     "",
                                     "the change would make the file invalid; nothing was saved"});
    throw InvalidSettings(std::move(diagnostics));
  }

  sweep_stale_temps(path, /*all=*/false);
  WriteOptions write_options;
  write_options.durable = options_.durable;
  write_options.keep_backup = options_.keep_backup;
  write_options.after_step = options_.after_write_step;
  write_options.new_file_mode = new_file_mode_for(scope);
  write_file_atomically(path, next.bytes, write_options);
  // Saved by holdfast: from now on every reader takes its absence for
  // "missing". The save stands even if that cannot be recorded (the next
  // snapshot tries again).
  try {
    PresenceMemory(paths_.state_dir).remember(path, scope);
  } catch (const base::SystemError&) {
  }
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
          throw UsageError(to_dotted(key) + " is not set in the " + std::string(scope_name(scope)) +
                           " scope (" + file(scope).string() + ")");
        }
      },
      expected);
}

bool Store::forget(Scope scope, bool remove_file) {
  const std::filesystem::path path = file(scope);
  const PresenceMemory memory(paths_.state_dir);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!remove_file) {
      throw UsageError(path.string() +
                       " still exists; holdfast forgets only a file that is gone. To remove it "
                       "and forget it in one step, add --remove");
    }
    const ScopeLock lock(path, options_.lock_wait);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) base::throw_errno("cannot remove", path);
    // The removal must be durable before the memory of the file goes:
    // after a crash the file is either back (and remembered) or gone.
    const std::filesystem::path directory = path.parent_path();
    const base::UniqueFd dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid() || ::fsync(dir.get()) != 0) {
      base::throw_errno("removed the file but cannot sync its directory", directory);
    }
  } else if (errno != ENOENT) {
    base::throw_errno("cannot check", path);
  }
  return memory.forget(path);
}

}  // namespace holdfast::settings
