#include "settings/snapshot.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "base/sha256.hpp"
#include "settings/key_path.hpp"
#include "settings/presence.hpp"
#include "settings/strict_modes.hpp"

namespace holdfast::settings {

const ScopeFile* Snapshot::scope(Scope which) const {
  for (const auto& file : scopes) {
    if (file.scope == which) return &file;
  }
  return nullptr;
}

bool Snapshot::complete() const {
  for (const auto& file : scopes) {
    if (!file.valid()) return false;
  }
  return true;
}

namespace {

// Makes `scopes` (each settled, read in the order given) one consistent
// reading, or returns the index of the scope that keeps moving, or
// kRetryAll when more than one moved (the caller reads everything again).
//
// Every scope is read again, in the same order. If all read the same, each
// held its content from its first reading to its second, and the first
// readings all hold at the moment between the two passes. If exactly one
// scope K moved and K was read last, every other scope read the same before
// and after K's reading: those readings bracket it, and the first pass is
// consistent as it is. If K was read earlier, K is read once more and every
// other scope a third time; if they still read the same, their first and
// third readings bracket K's latest, which is taken. Otherwise K is read
// last next time. (Reading the same bytes at two instants is taken as
// holding them in between.)
constexpr std::size_t kConsistent = static_cast<std::size_t>(-1);
constexpr std::size_t kRetryAll = static_cast<std::size_t>(-2);

std::size_t make_consistent(std::vector<ScopeFile>& in_read_order) {
  std::vector<std::size_t> moved;
  for (std::size_t i = 0; i < in_read_order.size(); ++i) {
    if (!same_content(in_read_order[i])) moved.push_back(i);
  }
  if (moved.empty()) return kConsistent;
  if (moved.size() > 1) return kRetryAll;
  const std::size_t k = moved.front();
  if (k + 1 == in_read_order.size()) return kConsistent;
  ScopeFile latest;
  try {
    latest = detail::read_scope_file_once(in_read_order[k].scope, in_read_order[k].path);
  } catch (const std::exception&) {
    return k;
  }
  if (!latest.usable()) return k;  // missing or damaged mid-save
  for (std::size_t i = 0; i < in_read_order.size(); ++i) {
    if (i != k && !same_content(in_read_order[i])) return kRetryAll;
  }
  in_read_order[k] = std::move(latest);
  return kConsistent;
}

// The scope hashes pin every byte that was read; the effective policy is
// added so that two digests differ whenever the policy a launch enforces
// does. (Dumping the whole effective document would only repeat what the
// hashes already cover, at a cost on every launch.)
std::string snapshot_digest(const Effective& effective, const std::vector<ScopeFile>& scopes) {
  const nlohmann::json* policy = find_value(effective.value, {"tools", "executionSandbox"});
  nlohmann::json basis = {{"policy", policy != nullptr ? *policy : nlohmann::json()},
                          {"scopes", nlohmann::json::array()}};
  for (const auto& file : scopes) {
    basis["scopes"].push_back({std::string(scope_name(file.scope)), file.exists,
                               file.exists ? file.identity.sha256 : std::string()});
  }
  return base::sha256_hex(basis.dump());
}

// Throws UnsafeSettingsFile for an operator file that others could write.
// Returns false when a directory on the way vanished while it was checked
// (a directory being swapped): the caller reads everything again.
bool check_ownership(const std::vector<ScopeFile>& scopes, const SnapshotOptions& options,
                     bool last_attempt) {
  const uid_t uid =
      options.invoking_uid == static_cast<uid_t>(-1) ? ::getuid() : options.invoking_uid;
  for (const auto& file : scopes) {
    if (!file.exists || !is_operator_scope(file.scope)) continue;
    if (auto problem =
            check_strict_modes(file.path, file.identity.owner, file.identity.mode, uid)) {
      if (problem->vanished() && !last_attempt) return false;
      throw *problem;
    }
  }
  return true;
}

bool requires_policy(const std::vector<ScopeFile>& scopes, std::string& declared_in) {
  for (const auto& file : scopes) {
    if (!file.exists || !is_operator_scope(file.scope)) continue;
    const auto* flag = find_value(file.document, {"security", "requireExecutionSandbox"});
    if (flag != nullptr && flag->is_boolean() && flag->get<bool>()) {
      declared_in = file.path.string();
      return true;
    }
  }
  return false;
}

// Records every scope file that was read, so that its later disappearance
// is never taken for absence. A record that cannot be written is a
// warning: this reading is sound, only later ones lose the memory.
void remember_present(std::vector<ScopeFile>& scopes, const PresenceMemory& memory) {
  for (auto& file : scopes) {
    if (!file.exists) continue;
    try {
      memory.remember(file.path, file.scope);
    } catch (const std::exception& e) {
      file.diagnostics.push_back(Diagnostic{
          Severity::warning,
          file.path,
          {},
          "",
          std::string("holdfast cannot record that it has seen this file: ") + e.what() +
              "; if the file goes missing later, that may be taken for \"no settings\" on a "
              "first read. Make holdfast's state directory writable"});
    }
  }
}

// Every error of every file that stays damaged, in one exception: the
// operator fixes them all at once.
[[noreturn]] void throw_invalid(const std::vector<ScopeFile>& scopes) {
  std::vector<Diagnostic> errors;
  for (const auto& file : scopes) {
    for (const auto& d : file.diagnostics) {
      if (d.severity == Severity::error) errors.push_back(d);
    }
  }
  throw InvalidSettings(std::move(errors));
}

}  // namespace

ScopeFile read_scope_settled(const ScopePaths& paths, Scope scope, const SnapshotOptions& options) {
  const auto path = paths.file(scope);
  if (!path) throw UsageError("the workspace scope needs a workspace: pass --workspace DIR");
  const PresenceMemory memory(paths.state_dir);
  std::vector<ScopeFile> one;
  one.push_back(settle_scope_file(scope, *path, options, memory).file);
  remember_present(one, memory);
  if (!one.front().valid() && !options.keep_invalid) throw_invalid(one);
  return std::move(one.front());
}

Snapshot read_scopes_consistently(const ScopePaths& paths, const SnapshotOptions& options) {
  const PresenceMemory memory(paths.state_dir);
  std::vector<Scope> order;  // the order of reading; a scope that keeps moving goes last
  for (Scope scope : kScopesInPrecedenceOrder) {
    if (paths.file(scope)) order.push_back(scope);
  }
  for (int attempt = 1; attempt <= options.max_attempts; ++attempt) {
    std::vector<ScopeFile> read;
    std::vector<Settling> settling;
    for (Scope scope : order) {
      SettledFile settled = settle_scope_file(scope, *paths.file(scope), options, memory);
      read.push_back(std::move(settled.file));
      settling.push_back(settled.settling);
    }
    const std::size_t verdict = make_consistent(read);
    if (verdict != kConsistent) {
      if (verdict != kRetryAll) {
        const Scope moving = order[verdict];
        order.erase(order.begin() + static_cast<std::ptrdiff_t>(verdict));
        order.push_back(moving);
      }
      continue;
    }
    Snapshot snapshot;
    snapshot.attempts = attempt;
    for (Scope scope : kScopesInPrecedenceOrder) {  // the snapshot lists scopes by precedence
      for (std::size_t i = 0; i < order.size(); ++i) {
        if (order[i] != scope) continue;
        snapshot.scopes.push_back(std::move(read[i]));
        snapshot.settling.push_back(settling[i]);
      }
    }
    if (options.strict_modes &&
        !check_ownership(snapshot.scopes, options, attempt == options.max_attempts)) {
      continue;
    }
    remember_present(snapshot.scopes, memory);
    return snapshot;
  }
  throw SnapshotError("the settings files kept changing while they were read (" +
                      std::to_string(options.max_attempts) +
                      " attempts, more than one file each time); a program may be saving them "
                      "in a loop. Try again.");
}

void merge_snapshot(Snapshot& snapshot) {
  if (!snapshot.complete()) throw_invalid(snapshot.scopes);  // fail closed
  std::vector<const ScopeFile*> pointers;
  for (const auto& file : snapshot.scopes) pointers.push_back(&file);
  snapshot.effective = merge_scopes(pointers);
  for (const auto& file : snapshot.scopes) {
    snapshot.effective.warnings.insert(snapshot.effective.warnings.end(), file.diagnostics.begin(),
                                       file.diagnostics.end());
  }
  std::string declared_in;
  snapshot.policy_required = requires_policy(snapshot.scopes, declared_in);
  if (snapshot.policy_required &&
      find_value(snapshot.effective.value, {"tools", "executionSandbox"}) == nullptr) {
    std::string scopes_read;
    for (const auto& file : snapshot.scopes) {
      if (!is_operator_scope(file.scope)) continue;
      scopes_read += "\n  " + std::string(scope_name(file.scope)) + ": " + file.path.string() +
                     (file.exists ? " (no tools.executionSandbox)" : " (absent)");
    }
    throw SnapshotError("a confinement policy is required (security.requireExecutionSandbox in " +
                        declared_in +
                        ") but no operator scope sets tools.executionSandbox:" + scopes_read +
                        "\nSet it, e.g. holdfast settings set --scope user tools.executionSandbox "
                        "'{\"filesystem\": \"workspace-write\", \"network\": \"closed\"}'");
  }
  snapshot.digest = snapshot_digest(snapshot.effective, snapshot.scopes);
}

Snapshot take_snapshot(const ScopePaths& paths, const SnapshotOptions& options) {
  Snapshot snapshot = read_scopes_consistently(paths, options);
  if (!snapshot.complete() && options.keep_invalid) return snapshot;  // to be shown, never merged
  merge_snapshot(snapshot);
  return snapshot;
}

}  // namespace holdfast::settings
