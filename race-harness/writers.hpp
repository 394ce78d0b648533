// The writers a campaign races against, each one save at a time, with a
// hook after every step of its protocol (so a crash campaign can kill it
// there, and a test can look at the files between steps). NAME is the
// settings file, DIR its directory; PAUSE is the writer's pause
// (spec.hpp: its default, or @PAUSE in --writers).
//
//   holdfast        the settings store: lock, temp, fsync, one rename, fsync dir
//   rename-backup   write NAME.tmp, rename NAME → NAME.orig, pause, rename
//                   NAME.tmp → NAME. Between the renames NAME does not
//                   exist: the bug from the seeds.
//   copy-backup     copy NAME → NAME.bak, write NAME.new, rename it over NAME.
//                   NAME always exists.
//   in-place        open NAME with O_TRUNC, pause (200 us), write: like some
//                   editors. NAME is empty for the pause.
//   dir-swap        build a complete new directory DIR.next holding the new
//                   NAME (as a configuration-management tool renders it),
//                   rename DIR → DIR.prev, pause, rename DIR.next → DIR,
//                   remove DIR.prev. Between the renames there is no DIR.
//   dir-exchange    build DIR.incoming, swap it with DIR in one
//                   renameat2(RENAME_EXCHANGE), remove the old one (now
//                   DIR.incoming). The path never lacks a file; a reader that
//                   holds the old directory (a watch, a descriptor) sees it
//                   emptied and removed.
//   rename-prev     an old-style writer: copy NAME to NAME.next with the
//                   change applied, rename NAME → NAME.prev, pause (100 ms),
//                   rename NAME.next → NAME. Both names are on no list of
//                   writer names a reader might know.
//   symlink-flip    NAME is a symlink into DIR/.race-store; write a new
//                   target there, remove the link, pause, create the link to
//                   the new target, remove the old target. Between removing
//                   and creating there is no NAME.
//   symlink-dangle  NAME is a symlink into DIR/.race-store; write TARGET.next,
//                   remove the link's target, pause, rename TARGET.next →
//                   TARGET. Meanwhile NAME is a dangling link.
//   same-content    read NAME, write the same bytes to a temp, rename it over
//                   NAME: an autosave of unchanged settings (no gap).
//   churn           create, write and remove a file of its own beside NAME
//                   and in DIR's parent (started for the user file and for
//                   each workspace's file, in a phase with no system
//                   directory and workspaces without .holdfast/).
//   state-loss      remove holdfast's state directory ($HOLDFAST_STATE_DIR,
//                   the campaign's), then save like rename-prev.
//   workspace-rename-prev, workspace-delete-recreate, workspace-dir-swap
//                   the workspace file (<workspace>/.holdfast/settings.json,
//                   holding the deny rule alone): rename to NAME.prev,
//                   pause, rename the new file in; remove, pause, write
//                   anew; or the whole .holdfast/ swapped like dir-swap.
//
// `run_writer` is the body of the `holdfast-race writer` process that a
// campaign starts for each writer.
#pragma once

#include <chrono>
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

// The settings file as the phase starts, ready for every writer in
// `writers`: a symlink into DIR/.race-store when a symlink writer is among
// them, else a regular file; holding `text` either way.
void create_initial_target(const std::vector<std::string>& writers,
                           const std::filesystem::path& target, const std::string& text);

// One save of the strict policy stamped `generation` to `target`, the way
// `writer` saves, holding its gap open for `pause`. Throws
// std::runtime_error (or settings errors) when the save could not complete,
// e.g. another writer removed the file meanwhile.
void save_once(const std::string& writer, const std::filesystem::path& target,
               std::uint64_t generation, std::chrono::microseconds pause,
               const StepHook& hook = {});

struct WriterLoopOptions {
  std::string writer;
  std::filesystem::path target;
  double rate = 0;  // saves per second (Poisson arrivals); 0: back to back
  std::chrono::microseconds pause{0};
  std::uint64_t seed = 1;
  int report_fd = 1;  // "ready" after the first save, then the stats as JSON
};

// Saves until SIGTERM, then writes {"saves":N,"failures":M} to report_fd.
// Returns the process exit status.
int run_writer(const WriterLoopOptions& options);

}  // namespace holdfast::race
