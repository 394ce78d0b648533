// A campaign: the positive controls (the naive reader against every writer
// that leaves a gap and every user's writer, or against rename-backup when
// there is none), then holdfast's reader (snapshot mode), launcher (launch
// mode) or gatekeeper (gatekeeper mode), or the user's reader or launcher
// in their place, against each writer alone and all of them at once.
//
// Each phase gets fresh settings directories, reads them once with
// holdfast's snapshot reader before any writer starts (see run_phase),
// starts its writers as separate processes (`holdfast-race writer ...`),
// waits until each has saved once, runs its trials from several launcher
// threads, then stops the writers with SIGTERM (SIGKILL after a grace
// period) and collects their counts. Every holdfast process and in-process
// snapshot of one campaign keeps its state (HOLDFAST_STATE_DIR) in a fresh
// directory of that campaign's own.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "race-harness/external_writer.hpp"
#include "race-harness/result.hpp"
#include "race-harness/spec.hpp"

namespace holdfast::race {

struct CampaignOptions {
  std::string mode = "launch";       // "launch", "snapshot" or "gatekeeper"
  std::vector<WriterSpec> writers;   // each alone, then mixed when more than one
  bool mixed_only = false;           // skip the phases with one writer alone
  bool skip_mixed = false;           // no mixed phase (writers that cannot share a directory)
  bool controls_only = false;        // run the positive controls and nothing else
  int launchers = 2;                 // concurrent readers / starts
  std::uint64_t trials = 0;          // per phase, over all shards (when seconds == 0)
  std::uint64_t control_trials = 0;  // the control phase's count; 0: same as trials
  double seconds = 0;                // per phase and shard, instead of a count
  std::uint64_t seed = 1;
  Shard shard;
  std::filesystem::path work_dir;       // where settings directories are made
  std::filesystem::path workspace_dir;  // where launch mode's workspaces are made (not under /dev)
  std::string self;                     // this program, to start writer processes
  std::string holdfast;                 // launch and gatekeeper modes
  std::string probe;                    // launch mode
  // The user's programs (contract.hpp): writers beside the built-in ones,
  // and a launcher (launch mode) or reader (snapshot mode) raced instead of
  // holdfast's.
  std::vector<ExternalWriter> external_writers;
  std::string launcher_command;
  std::string reader_command;
  int refusal_exit = 125;              // the user's launcher or reader refused
  std::filesystem::path evidence_dir;  // where violations' evidence is kept
  std::function<void(const std::string&)> progress;
};

CampaignResult run_campaign(const CampaignOptions& options);

// "tmpfs", or the file system's magic number in hex.
std::string file_system_name(const std::filesystem::path& path);

// A fresh directory under `base` (mode 0700), removed by its destructor.
class ScratchDir {
 public:
  explicit ScratchDir(const std::filesystem::path& base, const std::string& tag);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace holdfast::race
