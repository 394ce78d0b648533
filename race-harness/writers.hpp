// The writers a campaign races against, each one save at a time, with a
// hook after every step of its protocol (so a crash campaign can kill it
// there):
//
//   holdfast       the settings store: lock, temp, fsync, one rename, fsync dir
//   rename-backup  write NAME.tmp, rename NAME → NAME.orig, rename NAME.tmp →
//                  NAME. Between the renames NAME does not exist: the bug
//                  from the seeds.
//   copy-backup    copy NAME → NAME.bak, write NAME.new, rename it over NAME.
//                  NAME always exists.
//   in-place       open NAME with O_TRUNC, pause, write: like some editors.
//                  NAME is empty for the pause.
//
// `run_writer` is the body of the `holdfast-race writer` process that a
// campaign starts for each writer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace holdfast::race {

// Called after each completed step with the step's name.
using StepHook = std::function<void(std::string_view step)>;

// The step names of `writer`'s protocol, in order.
std::vector<std::string> writer_steps(const std::string& writer);

// One save of the strict policy stamped `generation` to `target`, the way
// `writer` saves. Throws std::runtime_error (or settings errors) when the
// save could not complete, e.g. another writer removed the file meanwhile.
void save_once(const std::string& writer, const std::filesystem::path& target,
               std::uint64_t generation, const StepHook& hook = {});

struct WriterLoopOptions {
  std::string writer;
  std::filesystem::path target;
  double rate = 0;  // saves per second (Poisson arrivals); 0: back to back
  std::uint64_t seed = 1;
  int report_fd = 1;  // "ready" after the first save, then the stats as JSON
};

// Saves until SIGTERM, then writes {"saves":N,"failures":M} to report_fd.
// Returns the process exit status.
int run_writer(const WriterLoopOptions& options);

}  // namespace holdfast::race
