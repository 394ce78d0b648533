#include "launcher/run/launch_directories.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/system_error.hpp"
#include "launcher/sandbox/refusal.hpp"

namespace holdfast::launcher {

namespace {

sandbox::FileId identity_of(int fd, const std::string& what) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) base::throw_errno("cannot stat", what);
  return {st.st_dev, st.st_ino};
}

// What the kernel says the descriptor is now; a directory since removed is
// no launch's workspace.
std::string path_of(int fd, const std::string& what) {
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  std::string path(4096, '\0');
  const ssize_t n = ::readlink(link.c_str(), path.data(), path.size());
  if (n < 0) base::throw_errno("cannot read the path of", what);
  path.resize(static_cast<std::size_t>(n));
  if (path.empty() || path.front() != '/' || path.ends_with(" (deleted)")) {
    throw sandbox::Refused({{"path-changed-during-launch", what, "",
                             "the directory was removed or moved out of reach while the launch "
                             "started",
                             "start the launch again from an existing directory"}});
  }
  return path;
}

}  // namespace

std::optional<OpenedDirectory> open_directory(const std::filesystem::path& path) {
  const std::string what = path.empty() ? std::string("the current directory") : path.string();
  OpenedDirectory dir;
  dir.fd.reset(::open(path.empty() ? "." : path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir.fd.valid()) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    base::throw_errno("cannot open", what);
  }
  dir.id = identity_of(dir.fd.get(), what);
  dir.canonical = path_of(dir.fd.get(), what);
  return dir;
}

bool lies_within(const OpenedDirectory& inner, const sandbox::FileId& outer) {
  if (inner.id == outer) return true;
  base::UniqueFd at(::fcntl(inner.fd.get(), F_DUPFD_CLOEXEC, 0));
  if (!at.valid()) base::throw_errno("cannot duplicate the descriptor of", inner.canonical);
  sandbox::FileId previous = inner.id;
  // A path has at most PATH_MAX / 2 components.
  for (int depth = 0; depth < 4096; ++depth) {
    base::UniqueFd parent(::openat(at.get(), "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!parent.valid()) base::throw_errno("cannot open the parent of", inner.canonical);
    const sandbox::FileId id = identity_of(parent.get(), inner.canonical);
    if (id == outer) return true;
    if (id == previous) return false;  // the root: ".." is itself
    previous = id;
    at = std::move(parent);
  }
  return false;
}

std::optional<LaunchDirectories> open_launch_directories(const std::filesystem::path& workspace,
                                                         const std::filesystem::path& cwd) {
  auto cwd_dir = open_directory(cwd);
  if (!cwd_dir) return std::nullopt;
  std::optional<OpenedDirectory> workspace_dir;
  if (workspace.empty()) {
    workspace_dir.emplace();
    workspace_dir->fd.reset(::fcntl(cwd_dir->fd.get(), F_DUPFD_CLOEXEC, 0));
    if (!workspace_dir->fd.valid()) base::throw_errno("cannot duplicate", cwd_dir->canonical);
    workspace_dir->id = cwd_dir->id;
    workspace_dir->canonical = cwd_dir->canonical;
  } else {
    workspace_dir = open_directory(workspace);
    if (!workspace_dir) return std::nullopt;
  }
  const bool within = lies_within(*cwd_dir, workspace_dir->id);
  return LaunchDirectories{std::move(*workspace_dir), std::move(*cwd_dir), within};
}

}  // namespace holdfast::launcher
