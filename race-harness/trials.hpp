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
//                  otherwise it too starts `holdfast run`, on the
//                  settings as it read them. Either way the
//                  probe says from inside whether the policy is in force:
//                  it must be able to read the workspace (or the trial
//                  proves nothing), must not be able to write it, and must
//                  not be able to open an AF_INET socket.
//   gatekeeper     `holdfast check --json Read W/secret.txt`, which the
//                  policy denies (permissions.deny). Anything but "deny" is
//                  a violation. naive: when the harness's own reading sees
//                  no policy, it asks `holdfast check` with the settings as
//                  that reader saw them (no user file, and a state
//                  directory that has never seen one), which answers
//                  "allow"; otherwise it asks with the bytes it read.
//
// Refused (holdfast failed closed: `run` exit 125, `check` exit 1) is
// counted apart: it is not a violation.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "race-harness/process.hpp"
#include "settings/scopes.hpp"

namespace holdfast::race {

enum class Outcome { honoured, violated, refused, error };

struct Trial {
  Outcome outcome = Outcome::error;
  std::string kind;          // violations: a short name for what was seen, counted per phase
  std::string note;          // why, for refusals, violations and errors
  double child_seconds = 0;  // launch mode: the started process's wall time
  // What the trial's program said (the probe's results, the policy it
  // reported reading), kept with a violation as its evidence; null if none.
  nlohmann::json evidence;
};

// holdfast run's exit code when holdfast refused or failed.
inline constexpr int kRefusedExit = 125;

struct TrialSetup {
  settings::ScopePaths paths;  // system_dir and config_dir (the writers' directory)
  std::filesystem::path user_file;
  std::string holdfast;  // path of the holdfast executable
  std::string probe;     // path of holdfast-probe
  // HOLDFAST_STATE_DIR for every holdfast process: holdfast's own memory
  // of the settings files it has seen.
  std::filesystem::path state_dir;
  // Gatekeeper mode's naive control: a config directory without a user file
  // and a state directory that never saw one (the settings as the naive
  // reader believed them to be).
  std::filesystem::path empty_config_dir;
  std::filesystem::path empty_state_dir;
  // Where the naive control keeps the settings as it read them, one
  // directory per launcher (config and state), beside the writers' one.
  std::filesystem::path naive_views_dir;
  // The writers save each workspace's file, which holds the deny rule
  // alone: a reading honours the policy only with that deny.
  bool workspace_raced = false;
};

// `workspace` is the launcher's own (its file is raced when
// setup.workspace_raced).
Trial snapshot_trial(const std::string& reader, const TrialSetup& setup,
                     const std::filesystem::path& workspace);

// `workspace` must hold a readable file named "marker".
Trial launch_trial(const std::string& reader, const TrialSetup& setup,
                   const std::filesystem::path& workspace);

// `workspace` must hold the file the policy denies (kDeniedName).
Trial gatekeeper_trial(const std::string& reader, const TrialSetup& setup,
                       const std::filesystem::path& workspace);

// The probe's command line in `workspace` (its copy of holdfast-probe
// there): read the marker, try to write the workspace, and try the network
// (holdfast's seccomp filter refuses an AF_INET socket outright).
std::vector<std::string> probe_args(const std::filesystem::path& workspace,
                                    const std::string& network_check = "socket-inet");

// Classifies a start from its exit status (`refused_exit`: the launcher
// refused) and the probe's JSON line.
Trial classify_start(const Captured& captured, const std::filesystem::path& workspace,
                     int refused_exit = kRefusedExit);

// A violation explained by what the reader saw first ("file missing, so
// workspace writable") and counted by it; other trials as they are.
Trial with_reader_view(Trial trial, const std::string& seen_as);

// Classifies a `holdfast check --json` answer from its exit status and
// output: deny is honoured, allow or ask violated, exit 1 refused.
Trial classify_check(const Captured& captured);

}  // namespace holdfast::race
