// Host services under "network closed". The empty network namespace cuts
// TCP and abstract sockets, but pathname Unix sockets are files: every one
// the filesystem policy lets the command see (container runtimes, the D-Bus
// system bus, systemd, ssh-agent, /run/user) was one connect() away, and a
// container runtime's socket is host root. Under the default (network
// closed, unixSockets not set) the command reaches no host socket, not even
// through a datagram socketpair pointed elsewhere; "unixSockets": "allow"
// is the operator's explicit opt-in.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "escape_support.hpp"

namespace holdfast::run::testing {
namespace {

using nlohmann::json;

// A host socket bound at `path` (stream: listening; datagram: receiving),
// connectable by anyone (mode 0777), non-blocking.
class HostSocket {
 public:
  HostSocket(const fs::path& path, int type) : path_(path) {
    fd_ = ::socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path.string().copy(addr.sun_path, sizeof addr.sun_path - 1);
    bound_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
             (type != SOCK_STREAM || ::listen(fd_, 16) == 0) && ::chmod(path.c_str(), 0777) == 0;
  }
  ~HostSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  HostSocket(const HostSocket&) = delete;
  HostSocket& operator=(const HostSocket&) = delete;
  bool bound() const { return bound_; }

  // Connections (stream) or datagrams waiting, taken now without blocking.
  int take_all() {
    int count = 0;
    for (;;) {
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c >= 0) {
        ::close(c);
        ++count;
        continue;
      }
      char byte;
      if (::recv(fd_, &byte, 1, 0) == 1) {
        ++count;
        continue;
      }
      return count;
    }
  }

 private:
  fs::path path_;
  int fd_ = -1;
  bool bound_ = false;
};

json policy(json extra = json::object()) {
  json p = {{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}};
  for (auto& [key, value] : extra.items()) p[key] = value;
  return p;
}

class UnixSocketTest : public EscapeTest {};
HOLDFAST_ESCAPE_SUITE(UnixSocketTest);

TEST_P(UnixSocketTest, DefaultPolicyReachesNoHostSocket) {
  HostSocket stream(outside_ / "stream.sock", SOCK_STREAM);
  HostSocket datagram(outside_ / "dgram.sock", SOCK_DGRAM);
  ASSERT_TRUE(stream.bound() && datagram.bound());
  const std::string connect = "connect-unix:" + (outside_ / "stream.sock").string();
  const std::string sendto = "socketpair-dgram-sendto:" + (outside_ / "dgram.sock").string();
  const std::vector<std::string> checks = {connect, sendto, "socket-unix", "socketpair-unix"};

  set_policy(policy());  // unixSockets not set
  const auto closed = probe(checks);
  EXPECT_FALSE(closed.at(connect).allowed);
  EXPECT_FALSE(closed.at(sendto).allowed);
  EXPECT_FALSE(closed.at("socket-unix").allowed);
  EXPECT_EQ(closed.at("socket-unix").errname, "EPERM");
  EXPECT_TRUE(closed.at("socketpair-unix").allowed);  // local IPC still works
  EXPECT_EQ(stream.take_all(), 0);
  EXPECT_EQ(datagram.take_all(), 0);

  // The operator's opt-in: the same sockets are reached.
  set_policy(policy({{"unixSockets", "allow"}}));
  const auto allowed = probe(checks);
  EXPECT_TRUE(allowed.at(connect).allowed) << allowed.at(connect).errname;
  EXPECT_TRUE(allowed.at(sendto).allowed) << allowed.at(sendto).errname;
  EXPECT_EQ(stream.take_all(), 1);
  EXPECT_EQ(datagram.take_all(), 1);
}

TEST_P(UnixSocketTest, ExplainAndDoctorSayWhatIsReachable) {
  set_policy(policy());
  const auto closed = holdfast({"run", "--explain", "--", "/bin/true"}, as_caller());
  ASSERT_EQ(closed.exit_code, 0) << closed.err;
  EXPECT_NE(closed.out.find("no host Unix socket is reachable"), std::string::npos) << closed.out;

  set_policy(policy({{"unixSockets", "allow"}}));
  const auto open = holdfast({"run", "--explain", "--", "/bin/true"}, as_caller());
  ASSERT_EQ(open.exit_code, 0) << open.err;
  EXPECT_NE(open.out.find("every host Unix socket the filesystem policy lets the command see"),
            std::string::npos)
      << open.out;
  const auto doctor = holdfast({"doctor"}, as_caller());
  EXPECT_NE(doctor.out.find("unix-sockets"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("every host Unix socket"), std::string::npos) << doctor.out;
}

}  // namespace
}  // namespace holdfast::run::testing
