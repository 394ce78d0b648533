#include "launcher/run/network_proxy.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <optional>

#include "base/system_error.hpp"
#include "launcher/network/proxy_server.hpp"

namespace holdfast::launcher {

namespace network_proxy_detail {

namespace fs = std::filesystem;

// How long stop() waits for the proxy to write its last audit lines after
// its control socket hung up, before it is killed: its connections are
// closed at once, so this is only a bound on a proxy that went wrong.
constexpr int kStopGraceMs = 5000;

// The descriptors of the proxy process: its control socket (to holdfast),
// the audit log, and (until the socket maker is forked) the maker's socket.
constexpr int kControlFd = 3;
constexpr int kAuditFd = 4;
constexpr int kMakerFd = 5;

std::string errno_text(const std::string& what, int error) {
  return what + ": " + std::strerror(error);
}

// Everything the proxy process must not hold: bubblewrap's descriptors,
// the start gate's, the relays' pipes (a copy held here would keep the
// command's output open past its end). FDS move to 3, 4, 5, ... in order;
// standard descriptors become /dev/null: the proxy speaks only through its
// sockets.
void keep_only(std::initializer_list<int> fds) {
  std::vector<int> high;
  for (const int fd : fds) {
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);  // out of the way of 3, 4, 5
    if (moved < 0) ::_exit(1);
    high.push_back(moved);
  }
  int next = 3;
  for (const int fd : high) ::dup2(fd, next++);  // clears close-on-exec; nothing is executed
  ::syscall(SYS_close_range, next, ~0U, 0);
  const int null = ::open("/dev/null", O_RDWR);
  if (null < 0) ::_exit(1);
  for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
  if (null >= next) ::close(null);
}

// The namespace of TYPE ("net") that process PID is in, opened.
base::UniqueFd open_namespace(long pid, const char* type) {
  const std::string path = "/proc/" + std::to_string(pid) + "/ns/" + type;
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) base::throw_errno("cannot open the sandbox's namespace", path);
  return fd;
}

bool same_namespace(int a, int b) {
  struct stat sa {};
  struct stat sb {};
  return ::fstat(a, &sa) == 0 && ::fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

base::UniqueFd loopback_socket(int type, std::uint16_t port, const char* what) {
  base::UniqueFd fd(::socket(AF_INET, type | SOCK_CLOEXEC, 0));
  if (!fd.valid()) base::throw_errno(std::string("cannot make the ") + what + " socket", "");
  const int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  ::inet_pton(AF_INET, network::kSandboxLoopback, &address.sin_addr);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    base::throw_errno(std::string("cannot bind the ") + what + " socket to " +
                          network::kSandboxLoopback + ":" + std::to_string(port) +
                          " inside the sandbox",
                      "");
  }
  if (type == SOCK_STREAM && ::listen(fd.get(), 128) != 0) {
    base::throw_errno(std::string("cannot listen on the ") + what + " socket", "");
  }
  return fd;
}

// Sends FDS (may be empty) and TEXT ("" for success: "ok") in one message.
bool send_fds(int socket, const std::vector<int>& fds, const std::string& text) {
  const std::string payload = text.empty() ? std::string("ok") : "error: " + text;
  iovec iov{const_cast<char*>(payload.data()), payload.size()};
  msghdr message{};
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  std::array<char, CMSG_SPACE(sizeof(int) * 3)> control{};
  if (!fds.empty()) {
    message.msg_control = control.data();
    message.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(header), fds.data(), sizeof(int) * fds.size());
  }
  return ::sendmsg(socket, &message, MSG_NOSIGNAL) == static_cast<ssize_t>(payload.size());
}

// One message with up to three descriptors: its text, and the descriptors
// (close-on-exec). Nothing when the peer is gone.
std::optional<std::string> receive_fds(int socket, std::vector<base::UniqueFd>& fds) {
  std::array<char, 1024> text{};
  iovec iov{text.data(), text.size()};
  msghdr message{};
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  std::array<char, CMSG_SPACE(sizeof(int) * 3)> control{};
  message.msg_control = control.data();
  message.msg_controllen = control.size();
  ssize_t got;
  do {
    got = ::recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
  } while (got < 0 && errno == EINTR);
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
       header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof fd);
      fds.emplace_back(fd);
    }
  }
  if (got <= 0) return std::nullopt;
  return std::string(text.data(), static_cast<std::size_t>(got));
}

bool write_line(int fd, const std::string& line) {
  return ::send(fd, line.data(), line.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(line.size());
}

// The socket maker, forked by the proxy ahead of time (so the gate waits
// for no fork): told the sandbox's pid, it joins the sandbox's user and
// network namespaces, makes the sockets and hands them to holdfast.
[[noreturn]] void socket_maker_main(int socket) {
  std::vector<base::UniqueFd> none;
  const auto asked = receive_fds(socket, none);
  if (!asked) ::_exit(0);  // holdfast gave up before the gate
  try {
    const base::UniqueFd net = open_namespace(std::stol(*asked), "net");
    // The user namespace that owns the network namespace (not the one the
    // init is in: bubblewrap's --disable-userns nests one more), joined
    // first: it gives the capabilities there that joining the network
    // namespace and binding port 53 need.
    const base::UniqueFd user(::ioctl(net.get(), NS_GET_USERNS));
    if (!user.valid()) base::throw_errno("cannot find the owner of the sandbox's network", "");
    const base::UniqueFd own_user(::open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC));
    if (!own_user.valid() || !same_namespace(user.get(), own_user.get())) {
      if (::setns(user.get(), CLONE_NEWUSER) != 0) {
        base::throw_errno("cannot join the sandbox's user namespace", "");
      }
    }
    if (::setns(net.get(), CLONE_NEWNET) != 0) {
      base::throw_errno("cannot join the sandbox's network namespace", "");
    }
    const base::UniqueFd proxy = loopback_socket(SOCK_STREAM, network::kProxyPort, "proxy");
    const base::UniqueFd dns_udp = loopback_socket(SOCK_DGRAM, network::kDnsPort, "DNS (UDP)");
    const base::UniqueFd dns_tcp = loopback_socket(SOCK_STREAM, network::kDnsPort, "DNS (TCP)");
    send_fds(socket, {proxy.get(), dns_udp.get(), dns_tcp.get()}, "");
    ::_exit(0);
  } catch (const std::exception& e) {
    send_fds(socket, {}, e.what());
  }
  ::_exit(1);
}

[[noreturn]] void proxy_main(const network::NetworkRules& rules, pid_t parent, int control,
                             int audit, int maker) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  keep_only({control, audit, maker});
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  const pid_t self = ::getpid();
  const pid_t maker_pid = ::fork();
  if (maker_pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != self) ::_exit(1);
    keep_only({kMakerFd});
    socket_maker_main(3);
  }
  ::close(kMakerFd);
  if (maker_pid < 0) ::_exit(1);  // holdfast's gate finds the maker's socket closed
  try {
    network::ProxyConfig config;
    config.rules = rules;
    config.host_addresses = network::host_addresses();
    config.audit_fd = kAuditFd;
    std::vector<base::UniqueFd> fds;
    const auto sent = receive_fds(kControlFd, fds);
    int status = 0;
    while (::waitpid(maker_pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!sent || *sent != "ok" || fds.size() != 3) ::_exit(0);  // no sandbox to serve
    network::serve_proxy({std::move(fds[0]), std::move(fds[1]), std::move(fds[2])}, config,
                         kControlFd);
    ::_exit(0);
  } catch (const std::exception&) {
    // Its sockets close with it: connections inside are refused, and the
    // launch's audit log shows nothing was served.
  }
  ::_exit(1);
}

}  // namespace network_proxy_detail

using namespace network_proxy_detail;

NetworkProxy::NetworkProxy(const network::NetworkRules& rules, base::UniqueFd audit) {
  int control[2];
  int maker[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, control) != 0) {
    base::throw_errno("cannot make the network proxy's control socket", "");
  }
  control_ = base::UniqueFd(control[0]);
  base::UniqueFd proxy_end(control[1]);
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, maker) != 0) {
    base::throw_errno("cannot make the network proxy's socket maker's socket", "");
  }
  maker_ = base::UniqueFd(maker[0]);
  base::UniqueFd maker_end(maker[1]);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) base::throw_errno("cannot start the network proxy (fork)", "");
  if (pid_ == 0) proxy_main(rules, parent, proxy_end.get(), audit.get(), maker_end.get());
}

NetworkProxy::~NetworkProxy() {
  try {
    stop();
  } catch (...) {
    // Already refused or finished; a proxy left over dies with holdfast.
  }
}

std::string NetworkProxy::open_inside(long sandbox_pid) {
  if (!maker_.valid()) return "the network proxy's sockets were already made";
  const base::UniqueFd maker = std::move(maker_);
  if (!write_line(maker.get(), std::to_string(sandbox_pid))) {
    return errno_text("cannot reach the network proxy's socket maker", errno);
  }
  std::vector<base::UniqueFd> fds;
  const auto answer = receive_fds(maker.get(), fds);
  if (!answer) return "the network proxy's socket maker ended before the sockets were made";
  if (*answer != "ok" || fds.size() != 3) {
    return answer->starts_with("error: ") ? answer->substr(7) : *answer;
  }
  // The sockets listen inside already: what the command sends waits in
  // their queues until the proxy takes them, so nothing waits for it here.
  if (!send_fds(control_.get(), {fds[0].get(), fds[1].get(), fds[2].get()}, "")) {
    return errno_text("cannot hand the sockets to the network proxy", errno);
  }
  return "";
}

void NetworkProxy::stop() {
  if (pid_ <= 0) return;
  maker_.reset();
  control_.reset();  // the proxy sees its control socket hang up
  const base::UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0)));
  if (pidfd.valid()) {
    pollfd wait{pidfd.get(), POLLIN, 0};
    int ready;
    do {
      ready = ::poll(&wait, 1, kStopGraceMs);
    } while (ready < 0 && errno == EINTR);
    if (ready == 0) ::kill(pid_, SIGKILL);
  } else {
    ::kill(pid_, SIGKILL);
  }
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

AuditFile make_audit_file(const std::filesystem::path& state_dir, int attempt) {
  const fs::path dir = state_dir / "network";
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    base::throw_errno("cannot make the directory of network audit logs", dir);
  }
  const base::UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir_fd.valid()) base::throw_errno("cannot open the directory of network audit logs", dir);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  const std::string name = std::to_string(ms) + "-" + std::to_string(::getpid()) + "-" +
                           std::to_string(attempt) + ".jsonl";
  AuditFile file;
  file.path = dir / name;
  file.fd =
      base::UniqueFd(::openat(dir_fd.get(), name.c_str(),
                              O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!file.fd.valid()) base::throw_errno("cannot make the network audit log", file.path);
  return file;
}

nlohmann::json read_audit_lines(const std::filesystem::path& file, std::size_t limit) {
  nlohmann::json lines = nlohmann::json::array();
  const base::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return lines;
  const std::string text = base::read_all(fd.get(), file, 64 * 1024 * 1024);
  std::size_t start = 0;
  while (start < text.size() && lines.size() < limit) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    auto parsed = nlohmann::json::parse(text.begin() + static_cast<std::ptrdiff_t>(start),
                                        text.begin() + static_cast<std::ptrdiff_t>(end), nullptr,
                                        /*allow_exceptions=*/false);
    if (parsed.is_object()) lines.push_back(std::move(parsed));
    start = end + 1;
  }
  return lines;
}

}  // namespace holdfast::launcher
