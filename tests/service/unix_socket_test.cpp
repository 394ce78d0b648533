// Who reaches the service on its Unix socket: the socket is private by its
// modes, and even a caller that gets through the modes is judged by the
// kernel's account of who it is (SO_PEERCRED) before anything is read.
// Where the socket may be made: holdfast changes only a directory of its
// own. Also the socket systemd passes in, the event stream a CLI save shows
// up on, and forty event streams that do not stop the owner being served.
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "tests/service/service_process.hpp"
#include "tests/support/process.hpp"

namespace {

using holdfast::testing::HttpConnection;
using holdfast::testing::ServiceProcess;
using nlohmann::json;
namespace fs = std::filesystem;

constexpr uid_t kNobody = 65534;

// In a child that has become uid/gid 65534: the status of GET
// /api/v1/settings, or -errno when connecting failed, or -1000 when no
// answer came.
int status_as_nobody(const ServiceProcess& service) {
  holdfast::testing::Pipe result;
  const pid_t pid = holdfast::testing::fork_child([&] {
    if (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0) return 1;
    int status = -1000;
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", service.socket().c_str());
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      status = -errno;
    } else {
      auto client = service.unix_client();
      if (auto r = client.get("/api/v1/settings")) status = r->status;
    }
    result.send(status);
    return 0;
  });
  int status = -2000;
  result.close_write();
  EXPECT_TRUE(result.receive(status));
  holdfast::testing::wait_status(pid);
  return status;
}

// `holdfast serve ARGS` with the service's environment and `env`, expected
// to refuse to start: its output, or nullopt when it started (and served:
// then it is stopped at once).
std::optional<holdfast::testing::CommandResult> refused_start(
    const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {}) {
  try {
    ServiceProcess started(args, env);
    return std::nullopt;
  } catch (const std::runtime_error&) {
  }
  ServiceProcess environment;
  auto full = environment.env();
  for (const auto& [name, value] : env) full[name] = value;
  std::vector<std::string> argv = {holdfast::testing::holdfast_binary(), "serve"};
  argv.insert(argv.end(), args.begin(), args.end());
  return holdfast::testing::run_command(argv, full);
}

// Every mode on the way to the socket opened up, as a mistake (or a
// systemd unit with other modes) would: only SO_PEERCRED is left to judge.
void loosen_modes(const ServiceProcess& service) {
  fs::permissions(service.dir(), fs::perms(0755));
  fs::permissions(service.dir() / "run", fs::perms(0755));
  fs::permissions(service.socket().parent_path(), fs::perms(0755));
  fs::permissions(service.socket(), fs::perms(0666));
}

mode_t mode_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(UnixSocket, TheSocketIs0600InADirectory0700) {
  ServiceProcess service;
  struct stat st {};
  ASSERT_EQ(lstat(service.socket().c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(mode_of(service.socket().parent_path()), 0700u);
}

// SIGTERM at once after the "listening" line (before the accept loop may
// have started) still stops it, and the socket it made is removed.
TEST(UnixSocket, StopsOnSigtermAndRemovesItsSocket) {
  ServiceProcess service;
  EXPECT_EQ(service.stop(), 0);
  EXPECT_FALSE(fs::exists(fs::symlink_status(service.socket())));
}

TEST(UnixSocket, AnotherUserCannotEvenConnect) {
  ServiceProcess service;
  // The temp directory above the runtime directory lets nobody through.
  fs::permissions(service.dir() / "run", fs::perms(0755));
  EXPECT_EQ(status_as_nobody(service), -EACCES);
}

// The modes are one guard; SO_PEERCRED is the other, for a socket whose
// modes were loosened by mistake (or one systemd made with other modes).
TEST(UnixSocket, AnotherUserThroughLooseModesIsRefusedByPeerCredentials) {
  ServiceProcess service;
  loosen_modes(service);
  EXPECT_EQ(status_as_nobody(service), 403);
  // Its own user (root here) is still served.
  const auto r = service.unix_client().get("/api/v1/settings");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

// A refused peer holds nothing: it gets its 403 and the end of the
// connection without having sent a byte (it is not waited for), however
// many connect at once.
TEST(UnixSocket, RefusedPeersAreAnsweredAndClosedWithoutBeingRead) {
  ServiceProcess service;
  loosen_modes(service);
  constexpr int kCallers = 64;
  holdfast::testing::Pipe result;
  const pid_t pid = holdfast::testing::fork_child([&] {
    if (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0) return 1;
    std::vector<HttpConnection> callers;
    for (int i = 0; i < kCallers; ++i) {
      callers.push_back(service.unix_client());
      if (!callers.back().connect()) return 2;
    }
    int answered_and_closed = 0;
    for (auto& caller : callers) {
      std::string got;
      char buffer[4096];
      ssize_t n;
      // Ends when the server closes; a server that waits for a request
      // would leave this blocked until the test's own bound (ctest's).
      while ((n = recv(caller.fd(), buffer, sizeof buffer, 0)) > 0) got.append(buffer, n);
      if (got.starts_with("HTTP/1.1 403")) ++answered_and_closed;
    }
    result.send(answered_and_closed);
    return 0;
  });
  result.close_write();
  int answered_and_closed = -1;
  EXPECT_TRUE(result.receive(answered_and_closed));
  EXPECT_EQ(holdfast::testing::wait_exit_code(pid), 0);
  EXPECT_EQ(answered_and_closed, kCallers);
  const auto r = service.unix_client().get("/api/v1/settings");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(UnixSocket, ASecondServiceOnTheSameSocketIsRefused) {
  ServiceProcess service;
  const auto second = service.holdfast({"serve", "--socket", service.socket().string()});
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_NE(second.err.find("another holdfast serve"), std::string::npos) << second.err;
  // The first still answers.
  EXPECT_EQ(service.unix_client().get("/api/v1/schema")->status, 200);
}

// --socket PATH in a directory holdfast did not create: the directory is
// checked, never changed. A shared sticky directory (like /tmp) is fine:
// others cannot rename what they do not own.
TEST(SocketPlace, ANamedStickyDirectoryIsUsedAndLeftAsItWas) {
  holdfast::testing::TempDir dir;
  const fs::path shared = dir / "shared";
  fs::create_directory(shared);
  fs::permissions(dir.path(), fs::perms(0755));
  chmod(shared.c_str(), 01777);
  ServiceProcess service({"--socket", (shared / "s.sock").string()});
  EXPECT_EQ(mode_of(shared), 01777u);
  auto client = HttpConnection::unix_socket(shared / "s.sock");
  EXPECT_EQ(client.get("/api/v1/schema")->status, 200);
}

TEST(SocketPlace, ARelativeSocketLeavesTheCurrentDirectoryAlone) {
  holdfast::testing::TempDir dir;
  const fs::path here = dir / "here";
  fs::create_directory(here);
  fs::permissions(dir.path(), fs::perms(0755));
  fs::permissions(here, fs::perms(0755));
  ServiceProcess service({"--socket", "rel.sock"}, {}, here);
  EXPECT_EQ(mode_of(here), 0755u);
  EXPECT_TRUE(fs::is_socket(here / "rel.sock"));
}

// A directory others can write (not sticky), or one above it that is:
// another user could move the socket aside and listen in its place. It is
// refused with the remedy, and left as it was.
TEST(SocketPlace, ADirectoryOthersCanWriteIsRefusedAndLeftAsItWas) {
  holdfast::testing::TempDir dir;
  fs::permissions(dir.path(), fs::perms(0755));
  const fs::path open = dir / "open";
  fs::create_directory(open);
  chmod(open.c_str(), 0777);
  const auto refused = refused_start({"--socket", (open / "s.sock").string()});
  ASSERT_TRUE(refused) << "it served in a directory others can write";
  EXPECT_EQ(refused->exit_code, 1);
  EXPECT_NE(refused->err.find("chmod go-w " + open.string()), std::string::npos) << refused->err;
  EXPECT_EQ(mode_of(open), 0777u);
  EXPECT_FALSE(fs::exists(open / "s.sock"));

  const fs::path below = open / "mine";
  fs::create_directory(below);
  chmod(below.c_str(), 0700);
  const auto above = refused_start({"--socket", (below / "s.sock").string()});
  ASSERT_TRUE(above) << "it served below a directory others can write";
  EXPECT_EQ(above->exit_code, 1);
  EXPECT_NE(above->err.find(open.string() + " has mode 0777"), std::string::npos) << above->err;
  EXPECT_EQ(mode_of(open), 0777u);
}

// XDG_RUNTIME_DIR belonging to another user (sudo keeping the environment):
// that user could move holdfast/ aside and plant a listener. Refused.
TEST(SocketPlace, ARuntimeDirectoryOfAnotherUserIsRefused) {
  holdfast::testing::TempDir dir;
  fs::permissions(dir.path(), fs::perms(0755));
  const fs::path theirs = dir / "run-1000";
  fs::create_directory(theirs);
  chmod(theirs.c_str(), 0700);
  ASSERT_EQ(chown(theirs.c_str(), kNobody, kNobody), 0);
  const auto refused = refused_start({}, {{"XDG_RUNTIME_DIR", theirs.string()}});
  ASSERT_TRUE(refused) << "it served in another user's runtime directory";
  EXPECT_EQ(refused->exit_code, 1);
  EXPECT_NE(refused->err.find("belongs to uid 65534"), std::string::npos) << refused->err;
  EXPECT_FALSE(fs::exists(theirs / "holdfast"));
}

// What systemd's socket activation does: the listening socket is fd 3,
// LISTEN_PID names the service, LISTEN_FDS=1.
TEST(UnixSocket, ServesTheSocketSystemdPassesIn) {
  holdfast::testing::TempDir dir;
  const fs::path path = dir / "activated.sock";
  const int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(listener, 8), 0);
  const std::string binary = holdfast::testing::holdfast_binary();
  holdfast::testing::Pipe out;
  const pid_t pid = holdfast::testing::fork_child([&] {
    // Inherited (dup2 leaves the copy without O_CLOEXEC; fd 3 itself needs
    // the flag taken off).
    if (listener == 3) {
      fcntl(3, F_SETFD, 0);
    } else {
      dup2(listener, 3);
    }
    dup2(out.write_end, STDOUT_FILENO);
    const std::string listen_pid = "LISTEN_PID=" + std::to_string(getpid());
    for (const auto& sub : {"config", "system", "state"}) fs::create_directories(dir / sub);
    fs::permissions(dir / "state", fs::perms::owner_all, fs::perm_options::replace);
    const std::string config = "HOLDFAST_CONFIG_DIR=" + (dir / "config").string();
    const std::string system = "HOLDFAST_SYSTEM_DIR=" + (dir / "system").string();
    const std::string state = "HOLDFAST_STATE_DIR=" + (dir / "state").string();
    const char* env[] = {listen_pid.c_str(), "LISTEN_FDS=1", config.c_str(), system.c_str(),
                         state.c_str(),      "HOME=/root",   nullptr};
    execle(binary.c_str(), binary.c_str(), "serve", static_cast<char*>(nullptr), env);
    return 127;
  });
  close(listener);
  out.close_write();
  EXPECT_EQ(holdfast::testing::read_line(out),
            "holdfast serve: listening on unix socket from systemd");
  auto client = HttpConnection::unix_socket(path);
  const auto r = client.get("/api/v1/schema");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  kill(pid, SIGTERM);
  EXPECT_EQ(holdfast::testing::wait_exit_code(pid), 0);
}

// A save made with the CLI arrives on the event stream: first the initial
// state, then one change naming the scope, the key and the new revision.
TEST(Events, ACliSaveArrivesAsAnEvent) {
  ServiceProcess service;
  auto client = service.unix_client();
  const auto head = client.open_stream({"GET", "/api/v1/events", {}, "", ""});
  ASSERT_TRUE(head);
  ASSERT_EQ(head->status, 200);
  EXPECT_EQ(head->header("Content-Type"), "text/event-stream");
  const auto first = client.next_event();
  ASSERT_TRUE(first);
  EXPECT_EQ(holdfast::testing::event_name(*first), "change");
  const json initial = json::parse(holdfast::testing::event_data(*first));
  EXPECT_TRUE(initial["initial"].get<bool>());
  ASSERT_EQ(service.holdfast({"settings", "set", "model", "\"live\""}).exit_code, 0);
  const auto second = client.next_event();
  ASSERT_TRUE(second) << "no change event arrived";
  const json change = json::parse(holdfast::testing::event_data(*second));
  EXPECT_FALSE(change["initial"].get<bool>());
  EXPECT_EQ(change["scopes"], json::array({"user"}));
  EXPECT_EQ(change["keys"], json::array({"model"}));
  EXPECT_EQ(change["revisions"]["user"], 1);
  EXPECT_EQ(change["digest"].get<std::string>().size(), 64u);
  EXPECT_NE(change["digest"], initial["digest"]);
}

// Forty event streams (six tabs of a page each held one before, and the
// old service gave each a thread of 32): every stream gets its first event,
// and the owner's reads and saves are answered beside them.
TEST(Events, FortyStreamsDoNotStopTheOwnerBeingServed) {
  ServiceProcess service;
  std::vector<HttpConnection> streams;
  for (int i = 0; i < 40; ++i) {
    streams.push_back(service.unix_client());
    const auto head = streams.back().open_stream({"GET", "/api/v1/events", {}, "", ""});
    ASSERT_TRUE(head) << "stream " << i << " was not answered";
    ASSERT_EQ(head->status, 200) << "stream " << i;
    ASSERT_TRUE(streams.back().next_event()) << "stream " << i << " got no first event";
  }
  auto owner = service.unix_client();
  const auto read = owner.get("/api/v1/settings");
  ASSERT_TRUE(read) << "the owner's read was not answered";
  EXPECT_EQ(read->status, 200);
  const auto saved =
      owner.patch("/api/v1/scopes/user", R"({"set": {"model": "x"}})", {{"If-Match", "0"}});
  ASSERT_TRUE(saved) << "the owner's save was not answered";
  EXPECT_EQ(saved->status, 200) << saved->body;
  for (auto& stream : streams) {
    const auto event = stream.next_event();
    ASSERT_TRUE(event);
    EXPECT_EQ(json::parse(holdfast::testing::event_data(*event))["keys"], json::array({"model"}));
  }
}

}  // namespace
