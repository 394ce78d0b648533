// The policy documents the writers save, and how a reader tells whether a
// policy it was given is the operator's.
//
// Every document a writer saves is equally strict — read-only file system,
// network closed, reading the workspace's `secret.txt` denied — and differs
// from the others only in a harmless key ("raceHarness.generation", ignored
// by holdfast with a warning). So any reader that ends up without that
// policy saw it missing or replaced, never a legitimate change.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace holdfast::race {

// The file in each workspace that the policy denies reading, and the rule
// that denies it ("/" is the workspace root in a rule).
inline constexpr const char* kDeniedName = "secret.txt";
inline constexpr const char* kDenyRule = "Read(/secret.txt)";

// The strict policy, stamped with `generation`.
nlohmann::json policy_document(std::uint64_t generation);
std::string policy_text(std::uint64_t generation);

// The same policy without the deny rule: the user file of a phase whose
// writers save the workspace file, so that the deny is there alone.
std::string policy_text_without_deny(std::uint64_t generation);

// What the workspace writers save to <workspace>/.holdfast/settings.json:
// the deny rule and the stamp, nothing else (a workspace cannot carry the
// policy).
nlohmann::json workspace_document(std::uint64_t generation);
std::string workspace_text(std::uint64_t generation);

// True when `settings` (a document or the effective settings) carries the
// campaign's policy: filesystem read-only and network closed.
bool is_strict_policy(const nlohmann::json& settings);

// True when `settings` denies kDenyRule.
bool has_deny_rule(const nlohmann::json& settings);

// The file's bytes into `out`; false (errno set) when it cannot be opened.
bool read_whole_file(const std::filesystem::path& path, std::string& out);

// What a reader without any care found at a path.
struct NaiveReading {
  enum class Kind { strict, lax, missing, damaged };
  Kind kind = Kind::missing;
  // For a missing file, what was missing when looked at right after the
  // failed open: "directory missing", "dangling symlink", or "file
  // missing" (which includes a gap that had closed again).
  std::string missing_what;
  bool denies = false;           // the document parsed and denies kDenyRule
  std::uint64_t generation = 0;  // meaningful when the document parsed
  bool has_generation = false;
  std::string bytes;  // what it read (empty when missing)
};

// The reader from the seeds: open, read, parse. A missing file is "no
// settings"; bytes that do not parse are "empty settings". Neither is an
// error to it.
NaiveReading read_naively(const std::filesystem::path& path);

// What `bytes` are as a policy, judged as the naive reader judges what it
// read: a program's report of the document it acted on (contract.hpp). No
// bytes at all is "no policy read".
NaiveReading reading_of(std::string bytes);

// A short name for what a reader came away with: "policy in force",
// "file missing", "file damaged", "policy replaced", ...
std::string describe(const NaiveReading& reading);

// True when a naive reader would start the command without the policy.
inline bool naive_runs_unconfined(const NaiveReading& reading) {
  return reading.kind != NaiveReading::Kind::strict;
}

}  // namespace holdfast::race
