#include "service/listen_socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "base/fd.hpp"
#include "base/system_error.hpp"
#include "settings/errors.hpp"

namespace holdfast::service {

namespace fs = std::filesystem;
using base::SystemError;
using base::UniqueFd;
using settings::UsageError;

namespace {

constexpr int kBacklog = 512;

sockaddr_un unix_address(const fs::path& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string text = path.string();
  if (text.size() >= sizeof address.sun_path) {
    throw UsageError("the socket path " + text + " is longer than a Unix socket address allows (" +
                     std::to_string(sizeof address.sun_path - 1) +
                     " bytes); choose a shorter one with --socket");
  }
  std::memcpy(address.sun_path, text.c_str(), text.size() + 1);
  return address;
}

// The path a socket in `place` is bound and probed through: the directory
// that was checked, by its descriptor.
std::string through_descriptor(const SocketPlace& place) {
  return "/proc/self/fd/" + std::to_string(place.directory.get()) + "/" + place.name;
}

// True when a service still answers on the socket at `address`.
bool someone_listens(const sockaddr_un& address) {
  const UniqueFd probe(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!probe.valid()) return false;
  return connect(probe.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
}

}  // namespace

fs::path default_socket_path() {
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");  // NOLINT(concurrency-mt-unsafe)
  if (runtime == nullptr || runtime[0] != '/') {
    throw UsageError(
        "XDG_RUNTIME_DIR is not set to an absolute path, so there is no default socket; give "
        "one with --socket PATH (in a directory only you can enter)");
  }
  return fs::path(runtime) / "holdfast" / "holdfast.sock";
}

UnixListener listen_unix(const fs::path& path, bool ours) {
  unix_address(path);  // clients must be able to name it
  UnixListener listener;
  listener.place = prepare_socket_place(path, ours);
  const SocketPlace& place = listener.place;
  const sockaddr_un address = unix_address(through_descriptor(place));
  const int dir = place.directory.get();
  struct stat st {};
  if (fstatat(dir, place.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      throw SystemError("refusing to replace", path,
                        "it exists and is not a socket; remove it or choose another --socket");
    }
    if (st.st_uid != geteuid()) {
      throw SystemError("refusing to replace", path,
                        "the socket there belongs to uid " + std::to_string(st.st_uid) +
                            "; choose another --socket");
    }
    if (someone_listens(address)) {
      throw SystemError("refusing to take over", path,
                        "another holdfast serve answers there; stop it first, or choose "
                        "another --socket");
    }
    if (unlinkat(dir, place.name.c_str(), 0) != 0) {
      base::throw_errno("cannot remove the stale socket", path);
    }
  }
  listener.fd = UniqueFd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!listener.fd.valid()) base::throw_errno("cannot create a Unix socket for", path);
  // Mode 0600 from the moment the name exists: no window in which another
  // user could connect.
  const mode_t old_mask = umask(0177);
  const int bound =
      bind(listener.fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address);
  const int bind_errno = errno;
  umask(old_mask);
  if (bound != 0) {
    errno = bind_errno;
    base::throw_errno("cannot bind the socket", path);
  }
  if (fstatat(dir, place.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    base::throw_errno("cannot inspect the socket just bound", path);
  }
  listener.device = st.st_dev;
  listener.inode = st.st_ino;
  if (listen(listener.fd.get(), kBacklog) != 0) base::throw_errno("cannot listen on", path);
  return listener;
}

void remove_socket(const UnixListener& listener) {
  const SocketPlace& place = listener.place;
  struct stat st {};
  if (fstatat(place.directory.get(), place.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      st.st_dev == listener.device && st.st_ino == listener.inode) {
    unlinkat(place.directory.get(), place.name.c_str(), 0);
  }
}

std::string TcpAddress::authority() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

TcpAddress parse_tcp_address(const std::string& text) {
  const auto usage = [&](const std::string& why) {
    return UsageError("--listen " + text + ": " + why +
                      "; write ADDRESS:PORT, e.g. 127.0.0.1:8731 (port 0 picks a free one)");
  };
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) throw usage("no port");
  std::string host = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  if (host.front() == '[') {
    if (host.back() != ']') throw usage("an IPv6 address needs its closing ]");
    host = host.substr(1, host.size() - 2);
  }
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) > 65535) {
    throw usage("the port must be a number from 0 to 65535");
  }
  in6_addr scratch{};
  if (inet_pton(AF_INET, host.c_str(), &scratch) != 1 &&
      inet_pton(AF_INET6, host.c_str(), &scratch) != 1) {
    throw usage("the address must be numeric (no host names: what a name resolves to can change)");
  }
  return TcpAddress{host, static_cast<std::uint16_t>(std::stoul(port))};
}

bool is_loopback(const std::string& host) {
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

UniqueFd listen_tcp(TcpAddress& address) {
  sockaddr_storage storage{};
  socklen_t length = 0;
  int family = AF_INET;
  if (auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
      inet_pton(AF_INET, address.host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(address.port);
    length = sizeof *v4;
  } else {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
    inet_pton(AF_INET6, address.host.c_str(), &v6->sin6_addr);
    v6->sin6_family = family = AF_INET6;
    v6->sin6_port = htons(address.port);
    length = sizeof *v6;
  }
  UniqueFd fd(socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) base::throw_errno("cannot create a TCP socket for", address.authority());
  const int on = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&storage), length) != 0) {
    base::throw_errno("cannot bind", address.authority());
  }
  if (listen(fd.get(), kBacklog) != 0) base::throw_errno("cannot listen on", address.authority());
  if (getsockname(fd.get(), reinterpret_cast<sockaddr*>(&storage), &length) == 0) {
    address.port = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in*>(&storage)->sin_port
                                           : reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port);
  }
  return fd;
}

std::optional<UniqueFd> socket_from_systemd() {
  const char* pid = std::getenv("LISTEN_PID");  // NOLINT(concurrency-mt-unsafe): at start-up
  const char* fds = std::getenv("LISTEN_FDS");  // NOLINT(concurrency-mt-unsafe)
  if (pid == nullptr || fds == nullptr) return std::nullopt;
  const bool ours = std::strtol(pid, nullptr, 10) == getpid();
  const long count = std::strtol(fds, nullptr, 10);
  unsetenv("LISTEN_PID");      // NOLINT(concurrency-mt-unsafe)
  unsetenv("LISTEN_FDS");      // NOLINT(concurrency-mt-unsafe)
  unsetenv("LISTEN_FDNAMES");  // NOLINT(concurrency-mt-unsafe)
  if (!ours || count < 1) return std::nullopt;
  constexpr int kFirstPassedFd = 3;  // SD_LISTEN_FDS_START
  fcntl(kFirstPassedFd, F_SETFD, FD_CLOEXEC);
  return UniqueFd(kFirstPassedFd);
}

int socket_family(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return AF_UNSPEC;
  return address.ss_family;
}

}  // namespace holdfast::service
