// What a campaign or a crash campaign found, as plain data that survives a
// trip through JSON, so shards run on several machines can be merged.
//
// Verdicts and exit codes (the same for campaign, crash and report):
//   0 pass          every holdfast trial honoured the policy (or refused),
//                   and the positive control saw the race
//   1 violations    holdfast's reader, launcher or writer let the policy go
//   3 insensitive   the positive control found nothing: the run proves nothing
//   4 errors        trials the harness could not classify, or a writer that
//                   did not run; the run proves nothing
//   5 unmet         no violation, but a threshold the caller set was missed
//                   (thresholds.hpp: too many refusals, too few trials for
//                   the violation bound asked for)
// (2 is a usage error, from the command line.)
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "race-harness/evidence.hpp"

namespace holdfast::race {

enum class Verdict { pass = 0, violations = 1, insensitive = 3, errors = 4, unmet = 5 };

std::string verdict_name(Verdict verdict);
int exit_code_of(Verdict verdict);

// One point of a phase's progress, cumulative since the phase started.
struct TimelinePoint {
  double seconds = 0;
  std::uint64_t trials = 0;
  std::uint64_t violated = 0;
  std::uint64_t refused = 0;
};

struct WriterStats {
  std::uint64_t saves = 0;     // completed saves
  std::uint64_t failures = 0;  // saves that could not complete (another writer in the way)
  // A user's writer (--writer-cmd): saves after which the file was not the
  // document just saved (missing, torn, altered or older). Violations.
  std::uint64_t findings = 0;
};

// One reader against one set of writers.
struct PhaseResult {
  std::string name;    // "naive vs rename-backup (control)", "holdfast vs mixed", ...
  std::string reader;  // "naive", "holdfast", "launcher-cmd" or "reader-cmd"
  std::vector<std::string> writers;
  bool control = false;  // the positive control: it must find violations
  std::uint64_t trials = 0;
  std::uint64_t honoured = 0;
  std::uint64_t violated = 0;
  std::uint64_t refused = 0;  // failed closed: not a violation
  std::uint64_t errors = 0;   // could not be classified
  // Violations by what was seen: "file missing", "directory missing",
  // "dangling symlink", "file damaged", "allow", "workspace writable", ...
  std::map<std::string, std::uint64_t> violation_kinds;
  double seconds = 0;        // wall time of the phase
  double child_seconds = 0;  // launch mode: summed wall time of the started processes
  double loop_seconds = 0;   // launch mode: summed wall time of the launchers' loops
  std::map<std::string, WriterStats> writer_stats;
  std::map<int, std::vector<TimelinePoint>> timelines;  // by shard index
  std::vector<std::string> samples;  // a few refusal and error messages, for the reader
  // The first violations and writer findings, with where their evidence is
  // kept (at most kMaxEvidence per shard).
  std::vector<Evidence> evidence;
};

struct CampaignResult {
  std::string mode;                  // "launch", "snapshot" or "gatekeeper"
  std::vector<std::string> writers;  // the --writers specs; shards of one campaign share them
  std::uint64_t seed = 0;
  int shard_index = 1;
  int shard_count = 1;
  int launchers = 1;
  std::string settings_dir;
  std::string settings_fs;  // "tmpfs" or the file system's magic number
  // The user's programs by name: "launcher-cmd", "reader-cmd", "cmd-1", ...
  std::map<std::string, std::string> commands;
  // Launch and gatekeeper modes: the holdfast and holdfast-probe it ran.
  std::string holdfast;
  std::string probe;
  std::vector<PhaseResult> phases;
};

// One writer killed at one point of its protocol, `rounds` times.
struct CrashCell {
  std::string writer;
  std::string point;  // a step name, or "random"
  std::uint64_t rounds = 0;
  std::uint64_t old_or_new = 0;  // the file is the last acknowledged document or the next
  std::uint64_t missing = 0;     // the file is gone: the policy disappeared
  std::uint64_t torn = 0;        // the file is there but empty or invalid
  std::uint64_t stale = 0;       // an acknowledged update was lost
  std::uint64_t leftovers = 0;   // names left after the next save (holdfast: must be swept)
  std::uint64_t swept = 0;       // holdfast: temps the dead writer left that the next save removed
  std::uint64_t errors = 0;      // the round could not be run
};

struct CrashResult {
  std::uint64_t seed = 0;
  int shard_index = 1;
  int shard_count = 1;
  std::string settings_dir;
  std::string settings_fs;
  std::vector<CrashCell> cells;
};

// The 95% upper bound on a rate after `violations` in `trials`: 3/N when
// there were none (the rule of three), else the Wilson score bound.
double upper_bound_95(std::uint64_t violations, std::uint64_t trials);

Verdict verdict_of(const CampaignResult& result);
Verdict verdict_of(const CrashResult& result);
// A crash cell is bad for holdfast's writer when anything but old_or_new
// happened or a leftover stayed.
bool crash_cell_failed(const CrashCell& cell);

nlohmann::json to_json(const CampaignResult& result);
nlohmann::json to_json(const CrashResult& result);
CampaignResult campaign_from_json(const nlohmann::json& json);
CrashResult crash_from_json(const nlohmann::json& json);

// Adds `shard`'s counts into `into`, phase by phase (matched by name) or
// cell by cell; timelines are kept per shard.
void merge_into(CampaignResult& into, const CampaignResult& shard);
void merge_into(CrashResult& into, const CrashResult& shard);

}  // namespace holdfast::race
