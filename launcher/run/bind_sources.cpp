#include "launcher/run/bind_sources.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include "base/fd.hpp"
#include "base/system_error.hpp"
#include "launcher/sandbox/refusal.hpp"

namespace holdfast::launcher {

namespace {

[[noreturn]] void refuse_changed(const std::string& path, const std::string& what) {
  throw sandbox::Refused({{"path-changed-during-launch", path, "",
                           what + " since holdfast looked at it a moment ago, so it is not bound",
                           "start the launch again; if this repeats, find what keeps moving it "
                           "(anything that can write its parent directory can)"}});
}

}  // namespace

base::UniqueFd open_bind_source(const std::string& path, const sandbox::FileId& expected) {
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  base::UniqueFd fd(
      static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how)));
  if (!fd.valid()) {
    if (errno == ELOOP) refuse_changed(path, "a symlink now lies on the path");
    if (errno == ENOENT || errno == ENOTDIR) refuse_changed(path, "the path is gone");
    if (errno == ENOSYS) {
      throw base::SystemError(
          "cannot open without following symlinks (openat2 needs Linux 5.6 or later)", path, errno);
    }
    base::throw_errno("cannot open the bind source", path);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) base::throw_errno("cannot stat the bind source", path);
  if (st.st_dev != expected.device || st.st_ino != expected.inode) {
    refuse_changed(path, "another file now has this name");
  }
  return fd;
}

BindSources open_bind_sources(const std::vector<std::string>& paths,
                              const std::map<std::string, sandbox::FileId>& identities,
                              std::map<std::string, base::UniqueFd> opened) {
  BindSources sources;
  for (const auto& path : paths) {
    const auto id = identities.find(path);
    if (id == identities.end()) {
      throw std::logic_error("the host facts never met the bind source " + path);
    }
    if (auto it = opened.find(path); it != opened.end() && it->second.valid()) {
      sources.fds.push_back(std::move(it->second));
    } else {
      sources.fds.push_back(open_bind_source(path, id->second));
    }
    sources.by_path[path] = sources.fds.back().get();
  }
  return sources;
}

}  // namespace holdfast::launcher
