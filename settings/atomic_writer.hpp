// The durable atomic writer: after write_file_atomically() returns, the new
// content is on disk and every open of the path, by any process, at any
// instant before or after, sees the old document or the new one — never a
// missing file, never a partial one.
//
// The protocol, each step with its reason:
//   1. create_temp   open a temp file in the target's own directory with
//                    O_CREAT|O_EXCL (same file system, so rename is atomic;
//                    exclusive, so no two writers share a temp file). Its
//                    hidden name shows the target's name and our pid.
//   2. write_data    write every byte (short writes and EINTR retried).
//   3. keep_mode     give the temp the existing file's mode and owner, so a
//                    save never loosens or changes who may read the file.
//   4. sync_file     fsync the temp: the data is durable before any name
//                    points at it.
//   5. backup        optional: hard-link the current file to NAME.bak (via a
//                    temp link and a rename). Never move the live file away.
//   6. rename        one rename() over the target: the atomic switch.
//   7. sync_dir      fsync the directory: the rename itself is durable.
// On failure before the rename the temp is removed and the target is
// untouched. Temps left by a writer that was killed are swept by the next
// save (sweep_stale_temps).
//
// A symlinked target keeps its link: the link is resolved and the file it
// points at is replaced (in the link target's directory), as editors do.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>

namespace holdfast::settings {

enum class WriteStep { create_temp, write_data, keep_mode, sync_file, backup, rename, sync_dir };

std::string_view write_step_name(WriteStep step);

struct WriteOptions {
  bool durable = true;          // fsync file and directory (off only for benchmarks)
  bool keep_backup = false;     // hard-link the previous file to NAME.bak
  mode_t new_file_mode = 0644;  // mode of a file that did not exist yet
  // Called after each completed step; tests use it to kill the writer at a
  // chosen point.
  std::function<void(WriteStep)> after_step;
};

// Replaces `target` with `bytes`. Throws SystemError naming the path and the
// system error; on failure before the rename the original is untouched and
// no temp remains. When only the directory sync after the rename fails, the
// new content is in place (not yet durable), and the error says so.
void write_file_atomically(const std::filesystem::path& target, std::string_view bytes,
                           const WriteOptions& options = {});

// The prefix of temp names for `target` (".NAME.holdfast-tmp.").
std::string temp_name_prefix(const std::filesystem::path& target);

// Removes temps of `target` left by writers that no longer run (their pid
// is gone). With `all`, removes every temp (the caller holds the scope's
// lock, so no live writer can own one). Returns how many were removed.
int sweep_stale_temps(const std::filesystem::path& target, bool all);

}  // namespace holdfast::settings
