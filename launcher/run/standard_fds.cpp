#include "launcher/run/standard_fds.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>

#include "base/system_error.hpp"
#include "launcher/sandbox/refusal.hpp"

namespace holdfast::launcher {

namespace {

using Kind = StandardFd::Kind;

// /dev/null, /dev/zero, /dev/full, /dev/random, /dev/urandom: reopening
// them gives nothing. (/dev/mem and /dev/port share the major number.)
bool harmless_device(dev_t rdev) {
  if (major(rdev) != 1) return false;
  const unsigned minor_number = minor(rdev);
  return minor_number == 3 || minor_number == 5 || minor_number == 7 || minor_number == 8 ||
         minor_number == 9;
}

std::string link_of(int fd) {
  char buffer[4096];
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = ::readlink(link.c_str(), buffer, sizeof buffer - 1);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

// Whether the command could open `path` for writing inside anyway (then a
// reopen through /proc/self/fd gives it nothing more): the path still
// names this very file, and the policy makes it writable.
bool writable_inside(const std::string& path, const struct stat& st,
                     const sandbox::ResolvedPolicy& resolved) {
  if (path.empty() || path.front() != '/' || path.ends_with(" (deleted)")) return false;
  struct stat now {};
  if (::stat(path.c_str(), &now) != 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
    return false;
  }
  return resolved.access_at(path) == sandbox::Access::write;
}

StandardFd look_at(int number, int fd, const sandbox::ResolvedPolicy& resolved) {
  StandardFd out;
  out.number = number;
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) return out;  // closed
  out.device = st.st_dev;
  out.inode = st.st_ino;
  out.path = link_of(fd);
  if (S_ISDIR(st.st_mode)) {
    out.kind = Kind::directory;
  } else if (S_ISCHR(st.st_mode) && ::isatty(fd) == 1) {
    out.kind = Kind::terminal;
    out.foreground = ::tcgetpgrp(fd) == ::getpgrp();
  } else if (S_ISSOCK(st.st_mode) || (S_ISFIFO(st.st_mode) && out.path.starts_with("pipe:")) ||
             (S_ISCHR(st.st_mode) && harmless_device(st.st_rdev)) ||
             (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode) &&
              !S_ISBLK(st.st_mode))) {
    out.kind = Kind::harmless;
  } else {
    out.kind = Kind::reopenable;
    out.writable_inside = writable_inside(out.path, st, resolved);
  }
  return out;
}

void make_non_blocking(const base::UniqueFd& fd) {
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK) != 0) {
    base::throw_errno("cannot make non-blocking", "a relay pipe");
  }
}

}  // namespace

StandardFdPlan plan_standard_fds(const std::vector<StandardFd>& fds) {
  StandardFdPlan plan;
  for (const StandardFd& fd : fds) {
    if (fd.kind == Kind::directory) {
      plan.refusal = "descriptor " + std::to_string(fd.number) + " is the directory " + fd.path +
                     ": the command could reach any file below it and above it (openat(" +
                     std::to_string(fd.number) + ", \"../x\")) whatever the policy says";
      return plan;
    }
  }
  for (const StandardFd& fd : fds) {
    if (fd.number == 0 && fd.kind == Kind::terminal && !fd.foreground) {
      plan.null_input = true;
      plan.notices.push_back(
          "started in the background: the command's input is /dev/null, not the terminal (it "
          "would read what you type in the foreground); start it in the foreground to use the "
          "terminal");
    }
    if (fd.kind != Kind::reopenable || fd.writable_inside) continue;
    if (fd.number == 0) {
      plan.relay_in.push_back(0);
      continue;
    }
    bool joined = false;
    for (auto& group : plan.relay_out) {
      const StandardFd& first = fds[static_cast<std::size_t>(group.front())];
      if (first.device == fd.device && first.inode == fd.inode) {
        group.push_back(fd.number);
        joined = true;
      }
    }
    if (!joined) plan.relay_out.push_back({fd.number});
  }
  return plan;
}

StandardFdSetup set_up_standard_fds(const int (&given)[3],
                                    const sandbox::ResolvedPolicy& resolved) {
  std::vector<StandardFd> fds;
  for (int number = 0; number < 3; ++number)
    fds.push_back(look_at(number, given[number], resolved));
  const StandardFdPlan plan = plan_standard_fds(fds);
  if (plan.refusal) {
    std::string directory;
    for (const StandardFd& fd : fds) {
      if (fd.kind == Kind::directory && directory.empty()) directory = fd.path;
    }
    throw sandbox::Refused({sandbox::Refusal{
        "descriptor-is-directory", directory, "", *plan.refusal,
        "redirect the command's input and output from and to files or pipes, not directories"}});
  }
  StandardFdSetup setup;
  setup.notices = plan.notices;
  int* const slot[3] = {&setup.stdin_fd, &setup.stdout_fd, &setup.stderr_fd};
  if (plan.null_input) {
    setup.null_input.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!setup.null_input.valid()) base::throw_errno("cannot open", "/dev/null");
    setup.stdin_fd = setup.null_input.get();
  }
  if (!plan.relay_in.empty()) {
    auto [read_end, write_end] = base::make_pipe("a descriptor relay");
    make_non_blocking(write_end);
    Relay relay;
    relay.into_command = true;
    relay.caller_fd = given[0];
    relay.ours = std::move(write_end);
    relay.theirs = std::move(read_end);
    setup.stdin_fd = relay.theirs.get();
    setup.relays.push_back(std::move(relay));
  }
  for (const auto& group : plan.relay_out) {
    auto [read_end, write_end] = base::make_pipe("a descriptor relay");
    make_non_blocking(read_end);
    Relay relay;
    relay.caller_fd = given[group.front()];
    relay.ours = std::move(read_end);
    relay.theirs = std::move(write_end);
    for (const int number : group) *slot[number] = relay.theirs.get();
    setup.relays.push_back(std::move(relay));
  }
  return setup;
}

}  // namespace holdfast::launcher
