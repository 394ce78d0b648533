// The filter enforced for real: bubblewrap loads it (`--seccomp FD`, as the
// launcher will pass it) and holdfast-probe, inside the sandbox, tries each
// call. Every refusal is checked against a control run — the same sandbox
// without the filter — which must show the call allowed, or failing with an
// errno other than the filter's: so the test can tell the filter's refusal
// from the kernel's own, and would fail if the filter stopped refusing.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

#include "probe_runner.hpp"

namespace holdfast::seccomp {
namespace {

using testing::ProbeReport;
using testing::ProbeResult;
using testing::run_probe_in_bwrap;
using testing::run_probe_on_host;

std::string describe(const ProbeResult& r) {
  return std::string(r.allowed ? "allowed" : "refused") + " errno=" + std::to_string(r.error) +
         " (" + (r.error ? strerrorname_np(r.error) : "-") +
         ") signal=" + std::to_string(r.signal) + " detail=" + r.detail;
}

void expect_ran(const ProbeReport& report) {
  ASSERT_TRUE(WIFEXITED(report.status) && WEXITSTATUS(report.status) == 0)
      << "status " << report.status << "\nstderr: " << report.errors
      << "\nstdout: " << report.output;
}

struct Refusal {
  const char* check;
  int error;
};

// Each always-refused call, as the probe makes it, and the errno the filter
// returns.
const Refusal always_refused[] = {
    {"ptrace-child", EPERM},
    {"process-vm-readv", EPERM},
    {"unshare-user", EPERM},
    {"unshare-net", EPERM},
    {"setns", EPERM},
    {"clone-newns", EPERM},
    {"clone-newuser", EPERM},
    {"clone-newnet", EPERM},
    {"clone3", ENOSYS},
    {"mount", EPERM},
    {"umount", EPERM},
    {"pivot-root", EPERM},
    {"fsopen", EPERM},
    {"fsconfig", EPERM},
    {"fsmount", EPERM},
    {"fspick", EPERM},
    {"move-mount", EPERM},
    {"open-tree", EPERM},
    {"mount-setattr", EPERM},
    {"io-uring", EPERM},
    {"io-uring-enter", EPERM},
    {"io-uring-register", EPERM},
    {"bpf", EPERM},
    {"perf-event", EPERM},
    {"keyctl", EPERM},
    {"add-key", EPERM},
    {"request-key", EPERM},
    {"userfaultfd", EPERM},
    {"personality", EPERM},
    {"tiocsti", EPERM},
    {"tiocsti-highbits", EPERM},
    {"tioclinux", EPERM},
    {"tiocsetd", EPERM},
    {"pidfd-getfd", EPERM},
    {"kcmp", EPERM},
    {"memfd-secret", ENOSYS},
};

// Refused too, but a sandbox without host privileges gets EPERM from the
// kernel anyway; their control runs on the host as root (see below).
const Refusal refused_host_privileged[] = {
    {"kexec-load", EPERM},   {"kexec-file-load", EPERM}, {"init-module", EPERM},
    {"finit-module", EPERM}, {"delete-module", EPERM},
};

template <std::size_t N>
std::vector<std::string> names(const Refusal (&refusals)[N]) {
  std::vector<std::string> out;
  for (const Refusal& r : refusals) out.push_back(r.check);
  return out;
}

TEST(SeccompSandbox, BubblewrapLoadsTheFilterWithNoNewPrivs) {
  const ProbeReport filtered = run_probe_in_bwrap(FilterOptions{}, {"seccomp-status"});
  expect_ran(filtered);
  EXPECT_NE(filtered.at("seccomp-status").value.find("Seccomp:2"), std::string::npos)
      << filtered.at("seccomp-status").value;
  EXPECT_NE(filtered.at("seccomp-status").value.find("NoNewPrivs:1"), std::string::npos);

  const ProbeReport control = run_probe_in_bwrap(std::nullopt, {"seccomp-status"});
  expect_ran(control);
  EXPECT_NE(control.at("seccomp-status").value.find("Seccomp:0"), std::string::npos)
      << control.at("seccomp-status").value;
}

TEST(SeccompSandbox, AlwaysRefusedCallsFailWithTheirErrnoAndOnlyBecauseOfTheFilter) {
  std::vector<std::string> checks = names(always_refused);
  for (const Refusal& r : refused_host_privileged) checks.push_back(r.check);

  const ProbeReport control = run_probe_in_bwrap(std::nullopt, checks);
  expect_ran(control);
  for (const Refusal& r : always_refused) {
    const ProbeResult& result = control.at(r.check);
    EXPECT_TRUE(result.allowed || (result.error != r.error && result.signal == 0))
        << r.check << " without the filter: " << describe(result)
        << " — the kernel refuses it here the way the filter would, so this run cannot prove "
           "the filter refuses it";
  }

  for (const FilterOptions& options : every_filter_options()) {
    SCOPED_TRACE(to_string(options));
    const ProbeReport filtered = run_probe_in_bwrap(options, checks);
    expect_ran(filtered);
    for (const auto& group :
         {std::vector<Refusal>(std::begin(always_refused), std::end(always_refused)),
          std::vector<Refusal>(std::begin(refused_host_privileged),
                               std::end(refused_host_privileged))}) {
      for (const Refusal& r : group) {
        const ProbeResult& result = filtered.at(r.check);
        EXPECT_FALSE(result.allowed) << r.check << ": " << describe(result);
        EXPECT_EQ(result.error, r.error) << r.check << ": " << describe(result);
        EXPECT_EQ(result.signal, 0) << r.check << ": " << describe(result);
      }
    }
  }
}

// kexec and module calls need real host privileges before the kernel looks at
// their arguments, so the control is the probe run directly by root, with
// arguments the kernel rejects harmlessly (bad flags, an empty image, a
// missing module); the filtered run loads the same BPF into that process.
TEST(SeccompHost, KernelPrivilegedCallsAreRefusedByTheFilterNotJustByTheKernel) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: the control calls need host privileges";
  const std::vector<std::string> checks = names(refused_host_privileged);
  const ProbeReport control = run_probe_on_host(std::nullopt, checks);
  expect_ran(control);
  const ProbeReport filtered = run_probe_on_host(FilterOptions{}, checks);
  expect_ran(filtered);
  for (const Refusal& r : refused_host_privileged) {
    const ProbeResult& without = control.at(r.check);
    EXPECT_FALSE(without.allowed) << r.check << " must fail harmlessly: " << describe(without);
    EXPECT_NE(without.error, r.error)
        << r.check << " as root without the filter: " << describe(without)
        << " — the kernel refuses it (lockdown, modules_disabled?), so the filter is unproven";
    const ProbeResult& with = filtered.at(r.check);
    EXPECT_FALSE(with.allowed) << r.check;
    EXPECT_EQ(with.error, r.error) << r.check << ": " << describe(with);
  }
}

TEST(SeccompSandbox, OrdinaryWorkStillRunsUnderTheFilter) {
  // pidfd_open and pidfd_send_signal stay: a pidfd names a process of the
  // sandbox's own pid namespace, and signalling it is kill(2), which the
  // kernel already limits to that namespace.
  const std::vector<std::string> checks = {"fork-exec",
                                           "thread",
                                           "tcgets",
                                           "pidfd-open",
                                           "pidfd-send-signal",
                                           "personality-linux",
                                           "personality-query",
                                           "socketpair-unix",
                                           "read:/etc/passwd",
                                           "write:/dev/null",
                                           "kill:1",
                                           "env:PATH"};
  for (const FilterOptions& options :
       {FilterOptions{true, UnixSockets::pairs}, FilterOptions{true, UnixSockets::allow},
        FilterOptions{false, UnixSockets::allow}}) {
    SCOPED_TRACE(::testing::Message() << "network_closed=" << options.network_closed);
    const ProbeReport filtered = run_probe_in_bwrap(options, checks);
    expect_ran(filtered);
    for (const std::string& check : checks) {
      EXPECT_TRUE(filtered.at(check).allowed) << check << ": " << describe(filtered.at(check));
    }
  }
}

TEST(SeccompSandbox, SocketFamiliesFollowNetworkAndUnixSocketOptions) {
  const std::vector<std::string> checks = {
      "socket-inet",     "socket-inet6",         "socket-netlink",  "socket-unix",
      "socketpair-unix", "socket-unix-highbits", "socketpair-dgram"};
  const ProbeReport control = run_probe_in_bwrap(std::nullopt, checks);
  expect_ran(control);
  for (const std::string& check : checks) {
    EXPECT_TRUE(control.at(check).allowed)
        << "without the filter: " << check << ": " << describe(control.at(check));
  }

  struct Expected {
    FilterOptions options;
    bool inet;         // AF_INET, AF_INET6, AF_NETLINK
    bool unix_socket;  // socket(AF_UNIX)
    bool unix_pair;    // socketpair(AF_UNIX, SOCK_STREAM)
    bool unix_highbits;
    bool dgram_pair;  // socketpair(AF_UNIX, SOCK_DGRAM)
  };
  using U = UnixSockets;
  const Expected cases[] = {
      {{false, U::allow}, true, true, true, true, true},
      {{false, U::pairs}, true, false, true, false, false},
      {{false, U::deny}, true, false, false, false, false},  // masked: AF_UNIX under high bits
      {{true, U::allow}, false, true, true, false, true},    // closed refuses domain != AF_UNIX
      {{true, U::pairs}, false, false, true, false, false},
      {{true, U::deny}, false, false, false, false, false},
  };
  for (const Expected& e : cases) {
    SCOPED_TRACE(to_string(e.options));
    const ProbeReport filtered = run_probe_in_bwrap(e.options, checks);
    expect_ran(filtered);
    auto expect = [&](const std::string& check, bool allowed) {
      const ProbeResult& r = filtered.at(check);
      EXPECT_EQ(r.allowed, allowed) << check << ": " << describe(r);
      if (!allowed) {
        EXPECT_EQ(r.error, EPERM) << check << ": " << describe(r);
      }
    };
    expect("socket-inet", e.inet);
    expect("socket-inet6", e.inet);
    expect("socket-netlink", e.inet);
    expect("socket-unix", e.unix_socket);
    expect("socketpair-unix", e.unix_pair);
    expect("socket-unix-highbits", e.unix_highbits);
    expect("socketpair-dgram", e.dgram_pair);
  }
}

TEST(SeccompSandbox, SetIdModeBitsAreRefusedEveryWayAFileGetsThem) {
  // bubblewrap's fresh /dev is a tmpfs the sandbox may write in these runs.
  std::vector<std::string> set_id, plain;
  for (const char* bit : {"setuid", "setgid"}) {
    for (const char* way : {"chmod", "fchmod", "fchmodat", "fchmodat2", "open", "openat", "creat",
                            "mknod", "mknodat", "tmpfile"}) {
      set_id.push_back(std::string(bit) + ":" + way + ":/dev/shm/" + bit + "-" + way);
    }
  }
  const ProbeReport control = run_probe_in_bwrap(std::nullopt, set_id);
  expect_ran(control);
  for (const std::string& check : set_id) {
    EXPECT_TRUE(control.at(check).allowed)
        << "without the filter: " << check << ": " << describe(control.at(check));
  }
  for (const FilterOptions& options : every_filter_options()) {
    SCOPED_TRACE(to_string(options));
    const ProbeReport filtered = run_probe_in_bwrap(options, set_id);
    expect_ran(filtered);
    for (const std::string& check : set_id) {
      EXPECT_FALSE(filtered.at(check).allowed) << check << ": " << describe(filtered.at(check));
      EXPECT_EQ(filtered.at(check).error, EPERM) << check << ": " << describe(filtered.at(check));
    }
  }
}

// A listening socket on the host that the sandbox (which shares the host's
// network and file system in these tests) can reach.
struct Listener {
  int fd = -1;
  std::string address;  // "127.0.0.1:PORT" or a path
  ~Listener() {
    if (fd >= 0) ::close(fd);
    if (!address.empty() && address[0] == '/') ::unlink(address.c_str());
  }
};

void listen_tcp(Listener& l) {
  l.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(l.fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(l.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(l.fd, 8), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(l.fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  l.address = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
}

void listen_unix(Listener& l) {
  l.fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(l.fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = "/tmp/holdfast-seccomp-test-" + std::to_string(::getpid()) + ".sock";
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  ::unlink(path.c_str());
  ASSERT_EQ(::bind(l.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  l.address = path;
  ASSERT_EQ(::listen(l.fd, 8), 0);
}

TEST(SeccompSandbox, ConnectionsFollowNetworkAndUnixSocketOptions) {
  Listener tcp, local;
  listen_tcp(tcp);
  listen_unix(local);
  const std::string connect_tcp = "connect-tcp:" + tcp.address;
  const std::string connect_unix = "connect-unix:" + local.address;

  const ProbeReport control = run_probe_in_bwrap(std::nullopt, {connect_tcp, connect_unix});
  expect_ran(control);
  EXPECT_TRUE(control.at(connect_tcp).allowed) << describe(control.at(connect_tcp));
  EXPECT_TRUE(control.at(connect_unix).allowed) << describe(control.at(connect_unix));

  for (const FilterOptions& options : every_filter_options()) {
    SCOPED_TRACE(to_string(options));
    const ProbeReport filtered = run_probe_in_bwrap(options, {connect_tcp, connect_unix});
    expect_ran(filtered);
    const ProbeResult& t = filtered.at(connect_tcp);
    const ProbeResult& u = filtered.at(connect_unix);
    EXPECT_EQ(t.allowed, !options.network_closed) << describe(t);
    if (options.network_closed) {
      EXPECT_EQ(t.error, EPERM) << describe(t);
    }
    const bool unix_allowed = options.unix_sockets == UnixSockets::allow;
    EXPECT_EQ(u.allowed, unix_allowed) << describe(u);
    if (!unix_allowed) {
      EXPECT_EQ(u.error, EPERM) << describe(u);
    }
  }
}

TEST(SeccompSandbox, X32SystemCallKillsTheProcess) {
  const ProbeReport control = run_probe_in_bwrap(std::nullopt, {"x32-syscall"});
  expect_ran(control);
  EXPECT_EQ(control.at("x32-syscall").signal, 0) << describe(control.at("x32-syscall"));

  const ProbeReport filtered = run_probe_in_bwrap(FilterOptions{}, {"x32-syscall"});
  expect_ran(filtered);
  const ProbeResult& r = filtered.at("x32-syscall");
  EXPECT_FALSE(r.allowed);
  EXPECT_EQ(r.signal, SIGSYS) << describe(r);
}

TEST(SeccompSandbox, I386SystemCallKillsTheProcess) {
  const ProbeReport control = run_probe_in_bwrap(std::nullopt, {"i386-int80"});
  expect_ran(control);
  if (!control.at("i386-int80").allowed) {
    GTEST_SKIP() << "this host cannot make i386 system calls at all (int 0x80: "
                 << describe(control.at("i386-int80")) << "), so the filter's part is unseen";
  }
  const ProbeReport filtered = run_probe_in_bwrap(FilterOptions{}, {"i386-int80"});
  expect_ran(filtered);
  const ProbeResult& r = filtered.at("i386-int80");
  EXPECT_FALSE(r.allowed);
  EXPECT_EQ(r.signal, SIGSYS) << describe(r);
}

}  // namespace
}  // namespace holdfast::seccomp
