#include "settings/atomic_writer.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <string>

#include "base/fd.hpp"
#include "base/name_table.hpp"
#include "base/system_error.hpp"
#include "base/write_target.hpp"

namespace holdfast::settings {

namespace fs = std::filesystem;

std::string_view write_step_name(WriteStep step) {
  static constexpr NameRow<WriteStep> kNames[] = {
      {WriteStep::create_temp, "create_temp"}, {WriteStep::write_data, "write_data"},
      {WriteStep::keep_mode, "keep_mode"},     {WriteStep::sync_file, "sync_file"},
      {WriteStep::backup, "backup"},           {WriteStep::rename, "rename"},
      {WriteStep::sync_dir, "sync_dir"}};
  return name_in(kNames, step);
}

std::string temp_name_prefix(const fs::path& target) {
  return "." + target.filename().string() + ".holdfast-tmp.";
}

namespace {

// Removes the temp file unless the write completed.
class TempFile {
 public:
  explicit TempFile(fs::path path) : path_(std::move(path)) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (!committed_) ::unlink(path_.c_str());
  }
  const fs::path& path() const { return path_; }
  void commit() { committed_ = true; }

 private:
  fs::path path_;
  bool committed_ = false;
};

fs::path unique_temp_path(const fs::path& target) {
  thread_local std::mt19937_64 random{std::random_device{}()};
  return target.parent_path() / (temp_name_prefix(target) + std::to_string(::getpid()) + "." +
                                 std::to_string(random() % 1000000000ULL));
}

// Runs after the rename: a failure here leaves the new file in place, and
// the error says so (the caller must not think the save did not happen).
void fsync_directory(const fs::path& directory, const fs::path& target) {
  const std::string consequence =
      "the new content of " + target.string() +
      " is in place, but may not survive a crash or power loss until the directory is synced. "
      "Check the disk (dmesg), then save again";
  const base::UniqueFd dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) {
    throw base::SystemError("cannot open directory to sync it", directory, errno, consequence);
  }
  if (::fsync(dir.get()) != 0) {
    throw base::SystemError("cannot fsync directory", directory, errno, consequence);
  }
}

void link_backup(const fs::path& target, const fs::path& temp_dir_entry) {
  // Hard-link under a temp name, then rename over NAME.bak: the backup name
  // too is never seen half-made. The live file is never moved.
  const fs::path backup = target.string() + ".bak";
  const fs::path staging = temp_dir_entry.string() + ".bak";
  if (::link(target.c_str(), staging.c_str()) != 0) {
    if (errno == ENOENT) return;  // nothing to back up yet
    base::throw_errno("cannot hard-link backup of", target);
  }
  if (::rename(staging.c_str(), backup.c_str()) != 0) {
    const int saved = errno;
    ::unlink(staging.c_str());
    throw base::SystemError("cannot rename backup into place at", backup, saved);
  }
}

}  // namespace

void write_file_atomically(const fs::path& requested_target, std::string_view bytes,
                           const WriteOptions& options) {
  const fs::path target = base::resolve_write_target(requested_target);
  const fs::path directory = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const auto step_done = [&](WriteStep step) {
    if (options.after_step) options.after_step(step);
  };

  TempFile temp(unique_temp_path(target));
  base::UniqueFd fd(
      ::open(temp.path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) {
    throw base::SystemError("cannot create temp file in " + directory.string() + " to save", target,
                            errno);
  }
  step_done(WriteStep::create_temp);

  base::write_all(fd.get(), bytes, temp.path());
  step_done(WriteStep::write_data);

  struct stat existing {};
  if (::stat(target.c_str(), &existing) == 0) {
    if (::fchmod(fd.get(), existing.st_mode & 07777) != 0) {
      base::throw_errno("cannot copy the mode of the existing file to", temp.path());
    }
    struct stat ours {};
    if (::fstat(fd.get(), &ours) != 0) base::throw_errno("cannot stat", temp.path());
    if ((ours.st_uid != existing.st_uid || ours.st_gid != existing.st_gid) &&
        ::fchown(fd.get(), existing.st_uid, existing.st_gid) != 0) {
      throw base::SystemError("cannot keep the owner " + std::to_string(existing.st_uid) + ":" +
                                  std::to_string(existing.st_gid) + " of",
                              target, errno);
    }
  } else if (errno == ENOENT) {
    if (::fchmod(fd.get(), options.new_file_mode) != 0) {
      base::throw_errno("cannot set the mode of", temp.path());
    }
  } else {
    base::throw_errno("cannot stat", target);
  }
  step_done(WriteStep::keep_mode);

  if (options.durable && ::fsync(fd.get()) != 0) base::throw_errno("cannot fsync", temp.path());
  step_done(WriteStep::sync_file);
  if (::close(fd.release()) != 0) base::throw_errno("cannot close", temp.path());

  if (options.keep_backup) link_backup(target, temp.path());
  step_done(WriteStep::backup);

  if (::rename(temp.path().c_str(), target.c_str()) != 0) {
    throw base::SystemError("cannot rename the temp file over", target, errno);
  }
  temp.commit();
  step_done(WriteStep::rename);

  if (options.durable) fsync_directory(directory, target);
  step_done(WriteStep::sync_dir);
}

int sweep_stale_temps(const fs::path& requested_target, bool all) {
  const fs::path target = base::resolve_write_target(requested_target);
  const fs::path directory = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const std::string prefix = temp_name_prefix(target);
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) return 0;
  int removed = 0;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (!name.starts_with(prefix)) continue;
    // NAME: prefix + pid + "." + random [+ ".bak"]
    const std::string rest = name.substr(prefix.size());
    const pid_t owner = static_cast<pid_t>(std::strtol(rest.c_str(), nullptr, 10));
    const bool owner_gone = owner <= 0 || (::kill(owner, 0) != 0 && errno == ESRCH);
    if (all || owner_gone) {
      if (::unlinkat(dirfd(dir), name.c_str(), 0) == 0) ++removed;
    }
  }
  ::closedir(dir);
  return removed;
}

}  // namespace holdfast::settings
