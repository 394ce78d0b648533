// Probe checks: what a hostile command tries against the host and its
// neighbours — writable knobs under /proc, set-user-ID files left for others
// to run, the caller's secrets in other processes' environments, descriptors
// inherited from outside, host Unix sockets reached without socket(), and
// resources used without bound.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "checks.hpp"

namespace holdfast::probe {
namespace {

// --- writable files ------------------------------------------------------

bool is_number(const char* name) {
  if (*name == '\0') return false;
  for (const char* c = name; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9') return false;
  }
  return true;
}

// Every regular file under `dir` that opens for writing (nothing is
// written), symlinks not followed. Under /proc the numbered directories —
// this sandbox's own processes — are skipped.
void collect_writable(const std::string& dir, bool skip_numbers, std::vector<std::string>& out) {
  DIR* listing = ::opendir(dir.c_str());
  if (listing == nullptr) return;
  while (const dirent* entry = ::readdir(listing)) {
    const char* name = entry->d_name;
    if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
    if (skip_numbers && is_number(name)) continue;
    const std::string path = dir == "/" ? "/" + std::string(name) : dir + "/" + name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      collect_writable(path, false, out);
    } else if (S_ISREG(st.st_mode)) {
      const int fd =
          ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
      if (fd >= 0) {
        ::close(fd);
        out.push_back(path);
      }
    }
  }
  ::closedir(listing);
}

Outcome writable_files(const std::string& dir) {
  std::vector<std::string> found;
  collect_writable(dir, dir == "/proc", found);
  std::string list;
  for (const auto& path : found) list += (list.empty() ? "" : " ") + path;
  Outcome out = with_value("regular files under " + dir + " that open for writing", list);
  out.allowed = !found.empty();
  return out;
}

// --- set-user-ID and set-group-ID files ----------------------------------

// "chmod:/path" → ("chmod", "/path").
std::pair<std::string, std::string> how_and_path(const std::string& arg) {
  const auto colon = arg.find(':');
  if (colon == std::string::npos) return {arg, ""};
  return {arg.substr(0, colon), arg.substr(colon + 1)};
}

std::string parent_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Makes `path` carry `bit` (S_ISUID or S_ISGID) the way `how` names:
// created plain then changed (chmod, fchmod, fchmodat, fchmodat2), or
// created with the bit (open, openat, creat, mknod, mknodat, tmpfile: an
// O_TMPFILE file linked into place). Allowed: the call succeeded and the
// file really carries the bit.
Outcome set_id(mode_t bit, const std::string& arg) {
  const auto [how, path] = how_and_path(arg);
  ::umask(0);
  const mode_t mode = 0755 | bit;
  const std::string what = how + " of " + path + " with mode 0" + std::to_string(mode >> 9) +
                           std::to_string((mode >> 6) & 7) + std::to_string((mode >> 3) & 7) +
                           std::to_string(mode & 7);
  long rc = -1;
  if (how == "chmod" || how == "fchmod" || how == "fchmodat" || how == "fchmodat2") {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
    if (fd < 0) return from_rc(-1, "create " + path + " for " + what);
    if (how == "chmod") rc = ::syscall(SYS_chmod, path.c_str(), mode);
    if (how == "fchmod") rc = ::syscall(SYS_fchmod, fd, mode);
    if (how == "fchmodat") rc = ::syscall(SYS_fchmodat, AT_FDCWD, path.c_str(), mode);
    if (how == "fchmodat2") rc = ::syscall(452 /* fchmodat2 */, AT_FDCWD, path.c_str(), mode, 0);
    const int saved = errno;
    ::close(fd);
    errno = saved;
  } else if (how == "open") {
    rc = ::syscall(SYS_open, path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  } else if (how == "openat") {
    rc = ::syscall(SYS_openat, AT_FDCWD, path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                   mode);
  } else if (how == "creat") {
    rc = ::syscall(SYS_creat, path.c_str(), mode);
  } else if (how == "mknod") {
    rc = ::syscall(SYS_mknod, path.c_str(), S_IFREG | mode, 0);
  } else if (how == "mknodat") {
    rc = ::syscall(SYS_mknodat, AT_FDCWD, path.c_str(), S_IFREG | mode, 0);
  } else if (how == "tmpfile") {
    rc = ::syscall(SYS_openat, AT_FDCWD, parent_of(path).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC,
                   mode);
    if (rc >= 0) {
      const std::string self = "/proc/self/fd/" + std::to_string(rc);
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) != 0) rc = -1;
    }
  } else {
    return {false, EINVAL, "unknown way to set the mode: " + how, "", false};
  }
  Outcome out = from_rc(rc, what);
  if (rc >= 0) {
    struct stat st {};
    out.allowed = ::stat(path.c_str(), &st) == 0 && (st.st_mode & bit) != 0;
    if (!out.allowed) out.detail += " (succeeded, but the file does not carry the bit)";
  }
  return out;
}

// --- secrets in other processes ------------------------------------------

// The text whose hexadecimal form is `hex` ("414243" → "ABC").
std::string from_hex(const std::string& hex) {
  std::string text;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    text += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return text;
}

// Reads every /proc/PID/environ and cmdline this process can see. The text
// is given in hexadecimal, so that the command lines (the probe's, and
// bubblewrap's, which holds the probe's) do not contain it.
// value: "readable=PIDS found=PIDS" (PIDs whose environ could be read; PIDs
// whose environ or command line contains the text). Allowed: found somewhere.
Outcome environ_contains(const std::string& hex) {
  const std::string text = from_hex(hex);
  std::string readable, found;
  DIR* listing = ::opendir("/proc");
  if (listing == nullptr) return from_rc(-1, "open /proc");
  while (const dirent* entry = ::readdir(listing)) {
    if (!is_number(entry->d_name)) continue;
    const std::string pid = entry->d_name;
    bool seen = false;
    for (const char* file : {"environ", "cmdline"}) {
      std::ifstream in("/proc/" + pid + "/" + file, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (!in.bad() && std::strcmp(file, "environ") == 0 && !bytes.empty()) {
        readable += (readable.empty() ? "" : ",") + pid;
      }
      if (!seen && bytes.find(text) != std::string::npos) {
        found += (found.empty() ? "" : ",") + pid;
        seen = true;
      }
    }
  }
  ::closedir(listing);
  Outcome out = with_value("/proc/*/environ and cmdline containing the text",
                           "readable=" + readable + " found=" + found);
  out.allowed = !found.empty();
  return out;
}

// --- host Unix sockets without socket() ------------------------------------

sockaddr_un unix_address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), std::min(path.size() + 1, sizeof addr.sun_path - 1));
  return addr;
}

// A datagram socketpair is connected, but a datagram socket may be pointed
// elsewhere: sendto() to a host socket's path.
Outcome socketpair_dgram_sendto(const std::string& path) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return from_rc(-1, "socketpair(AF_UNIX, SOCK_DGRAM) to send to " + path);
  }
  const sockaddr_un addr = unix_address(path);
  const long rc =
      ::sendto(fds[0], "x", 1, 0, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  Outcome out = from_rc(rc, "sendto " + path + " from a datagram socketpair");
  ::close(fds[0]);
  ::close(fds[1]);
  return out;
}

Outcome socketpair_dgram() {
  int fds[2];
  const int rc = ::socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, fds);
  Outcome out = from_rc(rc, "socketpair(AF_UNIX, SOCK_DGRAM)");
  if (rc == 0) {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  return out;
}

// A stream socket bound and connected inside the sandbox (its private /tmp).
Outcome unix_local_pair(const std::string& path) {
  const int server = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (server < 0) return from_rc(-1, "socket(AF_UNIX) to listen on " + path);
  const sockaddr_un addr = unix_address(path);
  const auto* raw = reinterpret_cast<const sockaddr*>(&addr);
  long rc = ::bind(server, raw, sizeof addr) == 0 && ::listen(server, 1) == 0 ? 0 : -1;
  if (rc == 0) {
    const int client = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    rc = client >= 0 && ::connect(client, raw, sizeof addr) == 0 ? 0 : -1;
    if (client >= 0) ::close(client);
  }
  Outcome out = from_rc(rc, "bind, listen and connect " + path);
  ::close(server);
  ::unlink(path.c_str());
  return out;
}

// --- inherited descriptors ----------------------------------------------

std::string& descriptors_at_start() {
  static std::string fds;
  return fds;
}

// --- bounds --------------------------------------------------------------

Outcome filesystem_size(const std::string& path) {
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) != 0) return from_rc(-1, "statfs " + path);
  const unsigned long long bytes =
      static_cast<unsigned long long>(fs.f_blocks) * static_cast<unsigned long long>(fs.f_bsize);
  return with_value("size in bytes of the file system at " + path, std::to_string(bytes));
}

// "PATH:BYTES": writes BYTES into a new file PATH (removed again).
// Allowed: every byte was written.
Outcome fill(const std::string& arg) {
  const auto colon = arg.rfind(':');
  const std::string path = arg.substr(0, colon);
  const unsigned long long total = std::strtoull(arg.c_str() + colon + 1, nullptr, 10);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return from_rc(-1, "create " + path);
  static char block[1 << 16];
  unsigned long long done = 0;
  long rc = 0;
  while (done < total) {
    const std::size_t n =
        static_cast<std::size_t>(std::min<unsigned long long>(sizeof block, total - done));
    rc = ::write(fd, block, n);
    if (rc <= 0) break;
    done += static_cast<unsigned long long>(rc);
  }
  const int saved = errno;
  ::close(fd);
  ::unlink(path.c_str());
  errno = saved;
  Outcome out =
      from_rc(done == total ? 0 : -1, "write " + std::to_string(total) + " bytes to " + path);
  out.value = std::to_string(done);
  out.has_value = true;
  return out;
}

// Forks up to `limit` children that wait until killed; `error` is fork's
// errno when it failed first.
std::vector<pid_t> fork_waiting_children(int limit, int& error) {
  std::vector<pid_t> children;
  for (int i = 0; i < limit; ++i) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      error = errno;
      break;
    }
    if (pid == 0) {
      ::pause();
      ::_exit(0);
    }
    children.push_back(pid);
  }
  return children;
}

// Forks up to N children that wait; value: how many it could start.
Outcome fork_count(const std::string& arg) {
  const int limit = std::atoi(arg.c_str());
  int error = 0;
  const std::vector<pid_t> children = fork_waiting_children(limit, error);
  for (const pid_t pid : children) {
    ::kill(pid, SIGKILL);
    wait_status(pid);
  }
  Outcome out =
      with_value("fork up to " + arg + " waiting children", std::to_string(children.size()));
  out.allowed = static_cast<int>(children.size()) == limit;
  out.error = error;
  return out;
}

// Maps BYTES of private writable memory (not touched): what RLIMIT_DATA
// counts.
Outcome alloc(const std::string& arg) {
  const std::size_t bytes = std::strtoull(arg.c_str(), nullptr, 10);
  void* memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  Outcome out = from_rc(memory == MAP_FAILED ? -1 : 0, "map " + arg + " bytes of private memory");
  if (memory != MAP_FAILED) ::munmap(memory, bytes);
  return out;
}

// Maps BYTES of private memory and writes every page: memory a cgroup
// charges. Killed (signal 9) when the sandbox's memory is exhausted.
Outcome touch(const std::string& arg) {
  const std::size_t bytes = std::strtoull(arg.c_str(), nullptr, 10);
  void* memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return from_rc(-1, "map " + arg + " bytes");
  std::memset(memory, 1, bytes);
  ::munmap(memory, bytes);
  return from_rc(0, "touch " + arg + " bytes of private memory");
}

// "N:BYTES": N processes each hold BYTES of touched memory at the same
// time (each writes a byte to a pipe once its memory is in place, and all
// wait until every one has). Value: how many got there and lived to the
// release; allowed when all did. What a per-process limit does not see and a per-sandbox one does.
Outcome touch_together(const std::string& arg) {
  const int count = std::atoi(arg.c_str());
  const std::size_t bytes = std::strtoull(arg.c_str() + arg.find(':') + 1, nullptr, 10);
  int ready[2];
  int release[2];
  if (::pipe(ready) != 0 || ::pipe(release) != 0) return from_rc(-1, "pipe");
  std::vector<pid_t> children;
  for (int i = 0; i < count; ++i) {
    const pid_t pid = ::fork();
    if (pid < 0) break;
    if (pid == 0) {
      ::close(ready[0]);
      ::close(release[1]);
      void* memory =
          ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (memory == MAP_FAILED) ::_exit(1);
      std::memset(memory, 1, bytes);
      if (::write(ready[1], "x", 1) != 1) ::_exit(1);
      ::close(ready[1]);  // the parent sees end of file once all wrote or died
      char c;
      while (::read(release[0], &c, 1) < 0 && errno == EINTR) {
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  ::close(ready[1]);
  ::close(release[0]);
  // One byte per child in place; end of file once every child has written
  // or been killed (a killed child never writes).
  int arrived = 0;
  char c;
  while (arrived < count) {
    const ssize_t n = ::read(ready[0], &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    ++arrived;
  }
  ::close(release[1]);  // release every child
  // Only a child that lived to the release held its memory the whole time:
  // the out-of-memory killer may take one that had already written (the
  // largest, a full one, while the last was still filling), and the last
  // then gets there too.
  int held = 0;
  for (const pid_t pid : children) {
    const int status = wait_status(pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) ++held;
  }
  ::close(ready[0]);
  Outcome out = with_value(arg + " bytes held by each of so many processes at once",
                           std::to_string(arrived < held ? arrived : held));
  out.allowed = arrived == count && held == count;
  return out;
}

// Writes BYTES into a memfd: memory no rlimit counts, a cgroup does.
Outcome memfd_fill(const std::string& arg) {
  const unsigned long long total = std::strtoull(arg.c_str(), nullptr, 10);
  const int fd = static_cast<int>(::syscall(SYS_memfd_create, "probe", 0));
  if (fd < 0) return from_rc(-1, "memfd_create");
  static char block[1 << 16];
  std::memset(block, 1, sizeof block);
  unsigned long long done = 0;
  while (done < total) {
    const ssize_t n = ::write(fd, block, std::min<unsigned long long>(sizeof block, total - done));
    if (n <= 0) break;
    done += static_cast<unsigned long long>(n);
  }
  const int saved = errno;
  ::close(fd);
  errno = saved;
  Outcome out = from_rc(done == total ? 0 : -1, "write " + arg + " bytes to a memfd");
  out.value = std::to_string(done);
  out.has_value = true;
  return out;
}

// "N:DIR": forks waiting children until fork fails or N are up, then
// writes how many to the FIFO DIR/ready and holds them until DIR/release
// (a FIFO) is written: the sandbox stays at its limit while the test
// looks at the host. Value: how many children were up.
Outcome fork_hold(const std::string& arg) {
  const int limit = std::atoi(arg.c_str());
  const std::string dir = arg.substr(arg.find(':') + 1);
  int error = 0;
  const std::vector<pid_t> children = fork_waiting_children(limit, error);
  const std::string count = std::to_string(children.size()) + "\n";
  const int ready = ::open((dir + "/ready").c_str(), O_WRONLY | O_CLOEXEC);
  if (ready >= 0) {
    if (::write(ready, count.data(), count.size()) < 0) error = errno;
    ::close(ready);
  }
  const int release = ::open((dir + "/release").c_str(), O_RDONLY | O_CLOEXEC);
  if (release >= 0) {
    char c;
    while (::read(release, &c, 1) < 0 && errno == EINTR) {
    }
    ::close(release);
  }
  for (const pid_t pid : children) ::kill(pid, SIGKILL);
  for (const pid_t pid : children) wait_status(pid);
  Outcome out = with_value("fork up to " + std::to_string(limit) + " children and hold them",
                           std::to_string(children.size()));
  out.allowed = static_cast<int>(children.size()) == limit;
  out.error = error;
  return out;
}

Outcome rlimit_value(const std::string& name) {
  int resource = -1;
  if (name == "nproc") resource = RLIMIT_NPROC;
  if (name == "data") resource = RLIMIT_DATA;
  if (name == "cpu") resource = RLIMIT_CPU;
  if (name == "core") resource = RLIMIT_CORE;
  if (resource < 0) return {false, EINVAL, "unknown limit " + name, "", false};
  rlimit limit{};
  if (::getrlimit(resource, &limit) != 0) return from_rc(-1, "getrlimit " + name);
  const auto text = [](rlim_t v) {
    return v == RLIM_INFINITY ? std::string("unlimited") : std::to_string(v);
  };
  return with_value("soft:hard of RLIMIT " + name,
                    text(limit.rlim_cur) + ":" + text(limit.rlim_max));
}

}  // namespace

void record_inherited_fds() {
  DIR* listing = ::opendir("/proc/self/fd");
  if (listing == nullptr) return;
  std::string& fds = descriptors_at_start();
  while (const dirent* entry = ::readdir(listing)) {
    if (!is_number(entry->d_name) || std::atoi(entry->d_name) == ::dirfd(listing)) continue;
    fds += (fds.empty() ? "" : " ") + std::string(entry->d_name);
  }
  ::closedir(listing);
}

void add_host_checks(CheckTable& table) {
  table.insert({{"writable-files", writable_files},
                {"setuid", [](const std::string& arg) { return set_id(S_ISUID, arg); }},
                {"setgid", [](const std::string& arg) { return set_id(S_ISGID, arg); }},
                {"environ-contains", environ_contains},
                {"socketpair-dgram", [](auto&) { return socketpair_dgram(); }},
                {"socketpair-dgram-sendto", socketpair_dgram_sendto},
                {"unix-local-pair", unix_local_pair},
                {"fs-size", filesystem_size},
                {"fill", fill},
                {"fork-count", fork_count},
                {"alloc", alloc},
                {"touch", touch},
                {"touch-together", touch_together},
                {"memfd-fill", memfd_fill},
                {"fork-hold", fork_hold},
                {"rlimit", rlimit_value},
                {"fds", [](auto&) {
                   return with_value("descriptors open when the probe started",
                                     descriptors_at_start());
                 }}});
}

}  // namespace holdfast::probe
