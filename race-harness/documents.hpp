// The policy documents the writers save, and how a reader tells whether a
// policy it was given is the operator's.
//
// Every document a writer saves is equally strict — read-only file system,
// network closed — and differs from the others only in a harmless key
// ("raceHarness.generation", ignored by holdfast with a warning). So any
// reader that ends up without that policy saw it missing or replaced, never
// a legitimate change.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace holdfast::race {

// The strict policy, stamped with `generation`.
nlohmann::json policy_document(std::uint64_t generation);
std::string policy_text(std::uint64_t generation);

// True when `settings` (a document or the effective settings) carries the
// campaign's policy: filesystem read-only and network closed.
bool is_strict_policy(const nlohmann::json& settings);

// What a reader without any care found at a path.
struct NaiveReading {
  enum class Kind { strict, lax, missing, damaged };
  Kind kind = Kind::missing;
  std::uint64_t generation = 0;  // meaningful when the document parsed
  bool has_generation = false;
};

// The reader from the seeds: open, read, parse. A missing file is "no
// settings"; bytes that do not parse are "empty settings". Neither is an
// error to it.
NaiveReading read_naively(const std::filesystem::path& path);

// True when a naive reader would start the command without the policy.
inline bool naive_runs_unconfined(const NaiveReading& reading) {
  return reading.kind != NaiveReading::Kind::strict;
}

}  // namespace holdfast::race
