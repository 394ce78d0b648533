// Crash campaigns: a writer killed with SIGKILL after each step of its
// protocol, and at random points, many rounds each. After every kill the
// file must be the last acknowledged document or the next one (holdfast's
// writer), and the next save must sweep what the dead writer left. The
// rename-backup writer, killed between its renames, leaves no file at all:
// that loss is the positive control.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "race-harness/result.hpp"
#include "race-harness/spec.hpp"

namespace holdfast::race {

// The writers a crash campaign can kill: those that save within their
// directory one file at a time (the directory and symlink writers are
// raced in campaigns only).
const std::vector<std::string>& crash_writer_names();

struct CrashOptions {
  std::vector<std::string> writers;  // rename-backup is always added as the control
  std::uint64_t rounds = 50;         // per writer and kill point, over all shards
  std::uint64_t seed = 1;
  Shard shard;
  std::filesystem::path work_dir;
  std::function<void(const std::string&)> progress;
};

CrashResult run_crash_campaign(const CrashOptions& options);

}  // namespace holdfast::race
