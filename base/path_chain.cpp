#include "base/path_chain.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <deque>

#include "base/system_error.hpp"

namespace holdfast::base {

namespace {

// The kernel's own limit on symlinks followed in one lookup.
constexpr int kMaxSymlinks = 40;

struct Directory {
  std::string path;
  UniqueFd fd;
};

std::string join(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

// Prepends the components of `text` to `rest`, in order.
void prepend_components(const std::string& text, std::deque<std::string>& rest) {
  std::deque<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('/', start), text.size());
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  rest.insert(rest.begin(), parts.begin(), parts.end());
}

PathStep step_of(const std::string& path, int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw_errno("cannot stat", path);
  return PathStep{path, st.st_uid, st.st_mode};
}

std::string link_text(int link_fd, const std::string& path) {
  char buffer[4096];
  const ssize_t n = ::readlinkat(link_fd, "", buffer, sizeof buffer);
  if (n < 0) throw_errno("cannot read the symlink", path);
  if (static_cast<std::size_t>(n) == sizeof buffer) {
    throw SystemError("cannot read the symlink", path, ENAMETOOLONG);
  }
  return std::string(buffer, static_cast<std::size_t>(n));
}

}  // namespace

WalkedPath walk_path(const std::filesystem::path& path, int final_flags) {
  if (!path.is_absolute()) throw SystemError("cannot look at", path, "it is not absolute");
  WalkedPath walked;
  std::vector<Directory> stack;
  stack.push_back({"/", UniqueFd(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC))});
  if (!stack.back().fd.valid()) throw_errno("cannot open", "/");
  walked.steps.push_back(step_of("/", stack.back().fd.get()));

  std::deque<std::string> rest;
  prepend_components(path.string(), rest);
  int symlinks = 0;
  while (!rest.empty()) {
    const std::string name = rest.front();
    rest.pop_front();
    if (name == ".") continue;
    if (name == "..") {
      // The stack holds real directories only, so its parent is the one
      // before it (and "/.." is "/").
      if (stack.size() > 1) stack.pop_back();
      continue;
    }
    const Directory& parent = stack.back();
    const std::string at = join(parent.path, name);
    UniqueFd fd(::openat(parent.fd.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) throw_errno("cannot open", at);
    const PathStep step = step_of(at, fd.get());
    walked.steps.push_back(step);
    if (S_ISLNK(step.mode)) {
      if (++symlinks > kMaxSymlinks) throw SystemError("cannot follow", path, ELOOP);
      const std::string target = link_text(fd.get(), at);
      prepend_components(target, rest);
      if (!target.empty() && target.front() == '/') stack.resize(1);
      continue;
    }
    if (!rest.empty()) {
      if (!S_ISDIR(step.mode)) throw SystemError("cannot pass through", at, ENOTDIR);
      stack.push_back({at, std::move(fd)});
      continue;
    }
    // The object itself: opened again with the caller's flags, by name in
    // the directory just judged, and checked to be the same inode.
    walked.resolved = at;
    if ((final_flags & O_PATH) != 0 && (final_flags & ~(O_PATH | O_DIRECTORY)) == 0) {
      if ((final_flags & O_DIRECTORY) != 0 && !S_ISDIR(step.mode)) {
        throw SystemError("cannot open", at, ENOTDIR);
      }
      walked.fd = std::move(fd);
      return walked;
    }
    struct stat seen {};
    if (::fstat(fd.get(), &seen) != 0) throw_errno("cannot stat", at);
    UniqueFd opened(::openat(parent.fd.get(), name.c_str(), final_flags | O_NOFOLLOW | O_CLOEXEC));
    if (!opened.valid()) throw_errno("cannot open", at);
    struct stat now {};
    if (::fstat(opened.get(), &now) != 0) throw_errno("cannot stat", at);
    if (now.st_dev != seen.st_dev || now.st_ino != seen.st_ino) {
      throw SystemError("cannot open", at, "it was replaced while holdfast looked at it");
    }
    walked.fd = std::move(opened);
    return walked;
  }
  // The path names "/" (or ends in ".."): the last directory reached, met
  // (and so judged) on the way already.
  Directory& last = stack.back();
  walked.resolved = last.path;
  walked.fd.reset(::openat(last.fd.get(), ".", final_flags | O_CLOEXEC));
  if (!walked.fd.valid()) throw_errno("cannot open", last.path);
  return walked;
}

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

std::optional<std::string> ownership_problem(const PathStep& step, uid_t trusted_uid,
                                             StickyDirectories sticky) {
  if (step.owner != 0 && step.owner != trusted_uid) {
    return step.path + " is owned by uid " + std::to_string(step.owner);
  }
  // A symlink's own mode is always 0777 and means nothing; who may replace
  // it is decided by its directory, judged on its own.
  if (S_ISLNK(step.mode)) return std::nullopt;
  if ((step.mode & (S_IWGRP | S_IWOTH)) == 0) return std::nullopt;
  const bool sticky_root_dir = S_ISDIR(step.mode) && (step.mode & S_ISVTX) != 0 && step.owner == 0;
  if (sticky_root_dir && sticky == StickyDirectories::root_owned) return std::nullopt;
  return step.path + " has mode " + octal_mode(step.mode) + " (writable by group or others" +
         (sticky_root_dir ? ", sticky" : "") + ")";
}

std::optional<std::string> first_ownership_problem(const std::vector<PathStep>& steps,
                                                   uid_t trusted_uid, StickyDirectories sticky) {
  for (const PathStep& step : steps) {
    if (auto problem = ownership_problem(step, trusted_uid, sticky)) return problem;
  }
  return std::nullopt;
}

}  // namespace holdfast::base
