// Who reaches the service on its Unix socket: the socket is private by its
// modes, and even a caller that gets through the modes is judged by the
// kernel's account of who it is (SO_PEERCRED). Also the socket systemd
// passes in, and the event stream a CLI save shows up on.
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/service/service_process.hpp"
#include "tests/support/process.hpp"

namespace {

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
      // Through the modes: ask with cpp-httplib's client on the same path.
      auto client = service.unix_client();
      if (auto r = client->Get("/api/v1/settings")) status = r->status;
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

TEST(UnixSocket, TheSocketIs0600InADirectory0700) {
  ServiceProcess service;
  struct stat st {};
  ASSERT_EQ(lstat(service.socket().c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  ASSERT_EQ(lstat(service.socket().parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
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
  fs::permissions(service.dir() / "run", fs::perms(0755));
  fs::permissions(service.socket().parent_path(), fs::perms(0755));
  fs::permissions(service.socket(), fs::perms(0666));
  EXPECT_EQ(status_as_nobody(service), 403);
  // Its own user (root here) is still served.
  const auto r = service.unix_client()->Get("/api/v1/settings");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(UnixSocket, ASecondServiceOnTheSameSocketIsRefused) {
  ServiceProcess service;
  const auto second = service.holdfast({"serve", "--socket", service.socket().string()});
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_NE(second.err.find("another holdfast serve"), std::string::npos) << second.err;
  // The first still answers.
  EXPECT_EQ(service.unix_client()->Get("/api/v1/schema")->status, 200);
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
    execle(HOLDFAST_BINARY, HOLDFAST_BINARY, "serve", static_cast<char*>(nullptr), env);
    return 127;
  });
  close(listener);
  out.close_write();
  EXPECT_EQ(holdfast::testing::read_line(out.read_end),
            "holdfast serve: listening on unix socket from systemd");
  httplib::Client client(path.string());
  client.set_address_family(AF_UNIX);
  const auto r = client.Get("/api/v1/schema");
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
  std::mutex mutex;
  std::condition_variable arrived;
  std::vector<json> events;
  std::string pending;
  std::thread reader([&] {
    client->Get("/api/v1/events", [&](const char* data, size_t size) {
      const std::lock_guard lock(mutex);
      pending.append(data, size);
      for (std::size_t end; (end = pending.find("\n\n")) != std::string::npos;) {
        const std::string event = pending.substr(0, end);
        pending.erase(0, end + 2);
        const auto data_at = event.find("data: ");
        if (event.rfind("event: change", 0) == 0 && data_at != std::string::npos) {
          events.push_back(json::parse(event.substr(data_at + 6)));
        }
      }
      arrived.notify_all();
      return events.size() < 2;
    });
  });
  const auto wait_for_events = [&](std::size_t count) {
    std::unique_lock lock(mutex);
    // A bound on a failing test only; a passing one is woken by the event.
    return arrived.wait_for(lock, std::chrono::seconds(30), [&] { return events.size() >= count; });
  };
  const bool initial = wait_for_events(1);
  if (initial) {
    EXPECT_TRUE(events[0]["initial"].get<bool>());
    ASSERT_EQ(service.holdfast({"settings", "set", "model", "\"live\""}).exit_code, 0);
  }
  const bool changed = initial && wait_for_events(2);
  if (!changed) client->stop();
  reader.join();
  ASSERT_TRUE(changed) << "no change event arrived";
  EXPECT_FALSE(events[1]["initial"].get<bool>());
  EXPECT_EQ(events[1]["scopes"], json::array({"user"}));
  EXPECT_EQ(events[1]["keys"], json::array({"model"}));
  EXPECT_EQ(events[1]["revisions"]["user"], 1);
  EXPECT_EQ(events[1]["digest"].get<std::string>().size(), 64u);
  EXPECT_NE(events[1]["digest"], events[0]["digest"]);
}

}  // namespace
