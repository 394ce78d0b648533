// One trial: a reader takes the policy while the writers save, and the
// outcome is classified.
//
//   snapshot mode  the reader alone: holdfast's take_snapshot() or the naive
//                  open-read-parse. Violated = the reader came away without
//                  the policy.
//   launch mode    a real start. holdfast: `holdfast run --workspace W --
//                  holdfast-probe ...`. naive: the harness reads the file
//                  itself as the seeds' reader did and, when it sees no
//                  policy, runs the probe directly with no sandbox;
//                  otherwise it too starts `holdfast run`. Either way the
//                  probe says from inside whether the policy is in force:
//                  it must be able to read the workspace (or the trial
//                  proves nothing), must not be able to write it, and must
//                  not be able to open an AF_INET socket.
//
// Refused (holdfast failed closed, exit 125) is counted apart: it is not a
// violation.
#pragma once

#include <filesystem>
#include <string>

#include "race-harness/process.hpp"
#include "settings/scopes.hpp"

namespace holdfast::race {

enum class Outcome { honoured, violated, refused, error };

struct Trial {
  Outcome outcome = Outcome::error;
  std::string note;          // why, for refusals, violations and errors
  double child_seconds = 0;  // launch mode: the started process's wall time
};

struct TrialSetup {
  settings::ScopePaths paths;  // system_dir and config_dir (the writers' directory)
  std::filesystem::path user_file;
  std::string holdfast;  // path of the holdfast executable
  std::string probe;     // path of holdfast-probe
};

Trial snapshot_trial(const std::string& reader, const TrialSetup& setup);

// `workspace` must hold a readable file named "marker".
Trial launch_trial(const std::string& reader, const TrialSetup& setup,
                   const std::filesystem::path& workspace);

// Classifies a start from its exit status and the probe's JSON line.
Trial classify_start(const Captured& captured, const std::filesystem::path& workspace);

}  // namespace holdfast::race
