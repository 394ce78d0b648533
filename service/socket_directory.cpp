#include "service/socket_directory.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "base/system_error.hpp"
#include "settings/errors.hpp"

namespace holdfast::service {

namespace fs = std::filesystem;
using base::SystemError;
using base::UniqueFd;

namespace {

std::string octal(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// The name a descriptor's directory has now, for messages.
std::string name_of(int fd, const std::string& fallback) {
  std::error_code ec;
  const fs::path name = fs::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
  return ec ? fallback : name.string();
}

DirectoryFacts facts_of(int fd, const std::string& fallback) {
  struct stat st {};
  if (fstat(fd, &st) != 0) base::throw_errno("cannot inspect the directory", fallback);
  return DirectoryFacts{name_of(fd, fallback), st.st_uid, st.st_mode, S_ISDIR(st.st_mode)};
}

void require(const DirectoryFacts& facts, DirectoryRole role) {
  if (auto problem = directory_problem(facts, role, geteuid())) {
    throw SystemError("refusing the socket's place", facts.path, *problem);
  }
}

UniqueFd open_directory(int at, const std::string& name, int flags, const std::string& shown) {
  UniqueFd fd(openat(at, name.c_str(), flags | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) {
      throw SystemError("there is no directory", shown,
                        "create it (writable only by you) or choose another place for the "
                        "socket with --socket PATH");
    }
    base::throw_errno("cannot open the socket's directory", shown);
  }
  return fd;
}

// Judges every directory above `fd` (its "..", and so on up to /), by
// descriptor: the chain that is there, not the one a path names.
void check_ancestors(int fd) {
  struct stat root {};
  if (stat("/", &root) != 0) base::throw_errno("cannot inspect", "/");
  UniqueFd current(fcntl(fd, F_DUPFD_CLOEXEC, 0));
  for (int depth = 0; depth < 256; ++depth) {
    struct stat st {};
    if (fstat(current.get(), &st) != 0) base::throw_errno("cannot inspect", "a directory");
    if (st.st_dev == root.st_dev && st.st_ino == root.st_ino) return;
    UniqueFd parent(openat(current.get(), "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!parent.valid()) base::throw_errno("cannot open the directory above", "the socket's");
    require(facts_of(parent.get(), ".."), DirectoryRole::on_the_path);
    current = std::move(parent);
  }
  throw SystemError("refusing the socket's place", "", "its directory is nested too deeply");
}

}  // namespace

std::optional<std::string> directory_problem(const DirectoryFacts& facts, DirectoryRole role,
                                             uid_t self) {
  if (!facts.is_directory) return facts.path + " is not a directory";
  const bool others_can_write = (facts.mode & (S_IWGRP | S_IWOTH)) != 0;
  if (role == DirectoryRole::runtime_dir) {
    if (facts.owner != self) {
      return "XDG_RUNTIME_DIR (" + facts.path + ") belongs to uid " + std::to_string(facts.owner) +
             ", not to you (uid " + std::to_string(self) +
             "): its owner could move the socket aside and listen in its place (sudo keeping "
             "the environment does this). Unset XDG_RUNTIME_DIR or set it to your own (e.g. "
             "/run/user/" +
             std::to_string(self) + "), or choose a directory only you can write with --socket";
    }
    if (others_can_write) {
      return "XDG_RUNTIME_DIR (" + facts.path + ") has mode " + octal(facts.mode) +
             ": others can write it. It must be yours alone: chmod 0700 " + facts.path;
    }
    return std::nullopt;
  }
  if (facts.owner != self && facts.owner != 0) {
    return "directory " + facts.path + " belongs to uid " + std::to_string(facts.owner) +
           ", not to you (uid " + std::to_string(self) +
           ") or root: its owner could move the socket aside and listen in its place. Choose a "
           "directory that you or root own with --socket";
  }
  const bool sticky = (facts.mode & S_ISVTX) != 0;
  if (others_can_write && !sticky) {
    return "directory " + facts.path + " has mode " + octal(facts.mode) +
           ": others can write it, and could move the socket aside and listen in its place. "
           "Choose a directory only you can write with --socket, or run chmod go-w " +
           facts.path + " (holdfast does not change a directory it did not create)";
  }
  return std::nullopt;
}

SocketPlace prepare_socket_place(const fs::path& path, bool ours) {
  SocketPlace place;
  place.path = path;
  place.name = path.filename().string();
  if (place.name.empty() || place.name == "." || place.name == "..") {
    throw settings::UsageError("the socket path " + path.string() +
                               " names no file; give --socket DIR/NAME.sock");
  }
  const fs::path parent = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  if (ours) {
    const fs::path runtime = parent.parent_path();
    const UniqueFd runtime_fd = open_directory(AT_FDCWD, runtime.string(), O_PATH, runtime);
    require(facts_of(runtime_fd.get(), runtime), DirectoryRole::runtime_dir);
    check_ancestors(runtime_fd.get());
    const std::string own = parent.filename().string();
    if (mkdirat(runtime_fd.get(), own.c_str(), 0700) != 0 && errno != EEXIST) {
      base::throw_errno("cannot create the socket directory", parent);
    }
    place.directory = open_directory(runtime_fd.get(), own, O_RDONLY | O_NOFOLLOW, parent);
    const DirectoryFacts facts = facts_of(place.directory.get(), parent);
    if (facts.owner != geteuid()) {
      throw SystemError("refusing the socket directory", parent,
                        "it belongs to uid " + std::to_string(facts.owner) +
                            ", not to you; remove it (holdfast makes it anew) or choose "
                            "another place with --socket");
    }
    // Ours: the directory is what keeps other users from even reaching
    // the socket.
    if ((facts.mode & 07777) != 0700 && fchmod(place.directory.get(), 0700) != 0) {
      base::throw_errno("cannot make the socket directory private (0700)", parent);
    }
    return place;
  }
  place.directory = open_directory(AT_FDCWD, parent.string(), O_PATH, parent);
  require(facts_of(place.directory.get(), parent), DirectoryRole::on_the_path);
  check_ancestors(place.directory.get());
  return place;
}

}  // namespace holdfast::service
