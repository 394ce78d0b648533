// Under a policy that forbids each thing, the thing is really refused from
// inside a sandbox that `holdfast run` started. Each refusal is paired with
// a control that shows the same attempt succeeds where the policy allows it
// (or on the host), so a probe that could never succeed proves nothing.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>

#include "run_support.hpp"

namespace holdfast::run::testing {
namespace {

using nlohmann::json;

// The split form most tests use: the host read-only, the workspace writable.
json workspace_write(json extra = json::object()) {
  json policy = {{"filesystem", {{":root", "read"}, {":workspace", "write"}}},
                 {"network", "closed"}};
  for (auto& [key, value] : extra.items()) policy[key] = value;
  return policy;
}

class RunConfinementTest : public RunTest {};

TEST_F(RunConfinementTest, WriteOutsideTheWorkspaceIsRefusedInsideWorks) {
  set_policy(workspace_write());
  write_file(outside_ / "existing.txt", "host\n");
  const auto probe = probe_run({"write:" + (outside_ / "new.txt").string(),
                                "write:" + (outside_ / "existing.txt").string(),
                                "write:" + (workspace_ / "new.txt").string()});
  EXPECT_FALSE(probe.at("write:" + (outside_ / "new.txt").string()).allowed);
  EXPECT_EQ(probe.at("write:" + (outside_ / "new.txt").string()).errname, "EROFS");
  EXPECT_FALSE(probe.at("write:" + (outside_ / "existing.txt").string()).allowed);
  EXPECT_TRUE(probe.at("write:" + (workspace_ / "new.txt").string()).allowed);
  EXPECT_FALSE(fs::exists(outside_ / "new.txt"));
  EXPECT_EQ(read_file(outside_ / "existing.txt"), "host\n");
}

// The operator settings directories stay read-only inside even when the
// policy makes a directory that contains them writable (:home, :tmpdir).
// Admission accepts such a policy (only entries inside a settings directory
// are refused) and the launcher adds a read-only rule for each directory.
TEST_F(RunConfinementTest, SettingsDirectoriesUnderWritableHomeAndTmpdirStayReadOnly) {
  const fs::path tmpdir = base_ / "tmpdir";
  fs::create_directories(home_ / ".config" / "holdfast");
  fs::create_directories(tmpdir / "holdfast-system");
  config_dir_ = home_ / ".config" / "holdfast";
  system_dir_ = tmpdir / "holdfast-system";
  set_policy(
      {{"filesystem",
        {{":root", "read"}, {":workspace", "write"}, {":home", "write"}, {":tmpdir", "write"}}},
       {"network", "closed"}});
  write_settings(system_dir_, "{}\n");
  const std::string user_file = read_file(config_dir_ / "settings.json");

  Launch launch;
  launch.env["TMPDIR"] = tmpdir.string();
  const std::vector<std::string> checks = {
      "write:" + (config_dir_ / "settings.json").string(),
      "write:" + (config_dir_ / "new.json").string(),
      "write:" + (system_dir_ / "settings.json").string(),
      "write:" + (system_dir_ / "system-defaults.json").string(),
      // Controls: the rest of the writable home and tmpdir.
      "write:" + (home_ / "note").string(),
      "write:" + (tmpdir / "note").string(),
  };
  const auto probe = probe_run(checks, launch);
  EXPECT_FALSE(probe.at(checks[0]).allowed);
  EXPECT_FALSE(probe.at(checks[1]).allowed);
  EXPECT_FALSE(probe.at(checks[2]).allowed);
  EXPECT_FALSE(probe.at(checks[3]).allowed);
  EXPECT_TRUE(probe.at(checks[4]).allowed);
  EXPECT_TRUE(probe.at(checks[5]).allowed);

  // Nor can the directory be moved aside and replaced from its writable parent.
  const auto replace =
      run({"/bin/sh", "-c",
           "mv \"$1\" \"$1.old\" || exit 10; mkdir \"$1\" && echo '{}' > \"$1/settings.json\"",
           "sh", config_dir_.string()},
          {}, launch);
  EXPECT_EQ(replace.exit_code, 10) << replace.err;
  EXPECT_EQ(read_file(config_dir_ / "settings.json"), user_file);
  EXPECT_FALSE(fs::exists(config_dir_.string() + ".old"));
  EXPECT_FALSE(fs::exists(system_dir_ / "system-defaults.json"));
}

// A settings directory that does not exist yet under a writable parent
// cannot be created from inside (and so cannot plant a policy).
TEST_F(RunConfinementTest, MissingSystemDirectoryUnderWritableHomeCannotBeCreated) {
  system_dir_ = home_ / "etc-holdfast";  // missing
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}, {":home", "write"}}}});
  const auto result =
      run({"/bin/sh", "-c", "mkdir -p \"$1\"; echo '{}' > \"$1/settings.json\" && exit 0; exit 9",
           "sh", system_dir_.string()});
  EXPECT_EQ(result.exit_code, 9) << result.err;
  // bubblewrap made the directory on the host to mount over it; holdfast
  // removes that empty leftover after the run.
  EXPECT_FALSE(fs::exists(system_dir_));
  // Control: the same shell line works for a sibling directory.
  const auto sibling =
      run({"/bin/sh", "-c", "mkdir -p \"$1\"; echo '{}' > \"$1/settings.json\" && exit 0; exit 9",
           "sh", (home_ / "other").string()});
  EXPECT_EQ(sibling.exit_code, 0) << sibling.err;
  EXPECT_TRUE(fs::exists(home_ / "other" / "settings.json"));
}

TEST_F(RunConfinementTest, DeniedPathsCannotBeRead) {
  fs::create_directory(outside_ / "secrets");
  write_file(outside_ / "secrets" / "key", "secret-in-dir\n");
  write_file(outside_ / "token", "secret-file\n");
  write_file(outside_ / "public", "public\n");
  set_policy({{"filesystem",
               {{":root", "read"},
                {":workspace", "write"},
                {(outside_ / "secrets").string(), "deny"},
                {(outside_ / "token").string(), "deny"}}}});
  const std::vector<std::string> checks = {"read:" + (outside_ / "secrets" / "key").string(),
                                           "read:" + (outside_ / "token").string(),
                                           "read:" + (outside_ / "public").string()};
  const auto probe = probe_run(checks);
  EXPECT_FALSE(probe.at(checks[0]).allowed);
  EXPECT_FALSE(probe.at(checks[1]).allowed);
  EXPECT_TRUE(probe.at(checks[2]).allowed);
  // And no content leaks through a shell either.
  const auto cat = run({"/bin/sh", "-c", "cat \"$1\" \"$2\" 2>/dev/null; exit 0", "sh",
                        (outside_ / "secrets" / "key").string(), (outside_ / "token").string()});
  EXPECT_EQ(cat.exit_code, 0);
  EXPECT_EQ(cat.out.find("secret"), std::string::npos) << cat.out;
}

TEST_F(RunConfinementTest, GitDirectoryInTheWorkspaceIsReadOnly) {
  fs::create_directories(workspace_ / ".git" / "hooks");
  write_file(workspace_ / ".git" / "config", "[core]\n");
  set_policy(workspace_write());
  const std::vector<std::string> checks = {
      "write:" + (workspace_ / ".git" / "config").string(),
      "write:" + (workspace_ / ".git" / "hooks" / "pre-commit").string(),
      "read:" + (workspace_ / ".git" / "config").string(),
      "write:" + (workspace_ / "src.c").string()};
  const auto probe = probe_run(checks);
  EXPECT_FALSE(probe.at(checks[0]).allowed);
  EXPECT_FALSE(probe.at(checks[1]).allowed);
  EXPECT_TRUE(probe.at(checks[2]).allowed);
  EXPECT_TRUE(probe.at(checks[3]).allowed);
  const auto swap = run({"/bin/sh", "-c", "mv .git .git-old || exit 10; mkdir .git; exit 0"});
  EXPECT_EQ(swap.exit_code, 10);
  EXPECT_EQ(read_file(workspace_ / ".git" / "config"), "[core]\n");
  EXPECT_FALSE(fs::exists(workspace_ / ".git" / "hooks" / "pre-commit"));
}

TEST_F(RunConfinementTest, MissingProtectedNamesCannotBeCreated) {
  set_policy(workspace_write());
  ASSERT_FALSE(fs::exists(workspace_ / ".git"));
  const auto result =
      run({"/bin/sh", "-c",
           "for n in .git .holdfast; do "
           "  { mkdir -p $n/hooks || echo data > $n/config; } 2>/dev/null && exit 20; "
           "  rmdir $n 2>/dev/null && echo x > $n && exit 21; "
           "done; echo ok > plain && exit 0"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  // The empty mount points bubblewrap made on the host are removed after
  // the run: the workspace is left as it was.
  for (const char* name : {".git", ".holdfast"}) {
    EXPECT_FALSE(fs::exists(workspace_ / name)) << name;
  }
  EXPECT_EQ(read_file(workspace_ / "plain"), "ok\n");  // the control
}

class Listener {
 public:
  explicit Listener(int domain) { fd_ = ::socket(domain, SOCK_STREAM | SOCK_CLOEXEC, 0); }
  ~Listener() {
    if (fd_ >= 0) ::close(fd_);
  }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
  int fd() const { return fd_; }
  // Connections waiting in the backlog (non-blocking accept).
  int accept_all() {
    int count = 0;
    for (;;) {
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (c < 0) return count;
      ::close(c);
      ++count;
    }
  }

 private:
  int fd_ = -1;
};

// Binds 127.0.0.1 on a kernel-chosen port; returns the port.
int listen_loopback(Listener& listener) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof addr;
  if (::bind(listener.fd(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener.fd(), 16) != 0 ||
      ::getsockname(listener.fd(), reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    return -1;
  }
  const int flags = 1;
  ::ioctl(listener.fd(), FIONBIO, &flags);
  return ntohs(addr.sin_port);
}

TEST_F(RunConfinementTest, ClosedNetworkRefusesHostLoopbackAndInetSockets) {
  Listener listener(AF_INET);
  const int port = listen_loopback(listener);
  ASSERT_GT(port, 0);
  const std::string connect = "connect-tcp:127.0.0.1:" + std::to_string(port);

  set_policy(workspace_write({{"network", "closed"}}));
  const auto closed =
      probe_run({connect, "socket-inet", "socket-inet6", "socket-unix", "socketpair-unix"});
  EXPECT_FALSE(closed.at(connect).allowed);
  EXPECT_FALSE(closed.at("socket-inet").allowed);
  EXPECT_EQ(closed.at("socket-inet").errname, "EPERM");
  EXPECT_FALSE(closed.at("socket-inet6").allowed);
  // With the network closed and unixSockets unset, AF_UNIX only as pairs.
  EXPECT_FALSE(closed.at("socket-unix").allowed);
  EXPECT_TRUE(closed.at("socketpair-unix").allowed);
  EXPECT_EQ(listener.accept_all(), 0);

  // Control: with the network open the same listener is reached.
  set_policy(workspace_write({{"network", "open"}}));
  const auto open = probe_run({connect, "socket-inet"});
  EXPECT_TRUE(open.at(connect).allowed) << open.at(connect).errname;
  EXPECT_TRUE(open.at("socket-inet").allowed);
  EXPECT_EQ(listener.accept_all(), 1);
}

TEST_F(RunConfinementTest, UnixSocketsDenyRefusesAHostPathnameSocket) {
  Listener listener(AF_UNIX);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = (outside_ / "host.sock").string();
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  path.copy(addr.sun_path, path.size());
  ASSERT_EQ(::bind(listener.fd(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener.fd(), 16), 0);
  const int flags = 1;
  ::ioctl(listener.fd(), FIONBIO, &flags);
  const std::string connect = "connect-unix:" + path;

  set_policy(workspace_write({{"unixSockets", "deny"}}));
  const auto denied = probe_run({connect, "socket-unix"});
  EXPECT_FALSE(denied.at(connect).allowed);
  EXPECT_FALSE(denied.at("socket-unix").allowed);
  EXPECT_EQ(listener.accept_all(), 0);

  // Control: allowed, the same socket is reached (even with the network closed).
  set_policy(workspace_write({{"unixSockets", "allow"}}));
  const auto allowed = probe_run({connect});
  EXPECT_TRUE(allowed.at(connect).allowed) << allowed.at(connect).errname;
  EXPECT_EQ(listener.accept_all(), 1);
}

TEST_F(RunConfinementTest, ProcessAndKernelEscapesAreRefused) {
  set_policy(workspace_write());
  const auto probe = probe_run({"unshare-user", "clone-newuser", "ptrace-child", "tiocsti", "mount",
                                "fsopen", "move-mount", "fork-exec", "tcgets"});
  EXPECT_FALSE(probe.at("unshare-user").allowed);
  EXPECT_FALSE(probe.at("clone-newuser").allowed);
  EXPECT_FALSE(probe.at("ptrace-child").allowed);
  EXPECT_FALSE(probe.at("tiocsti").allowed);
  EXPECT_FALSE(probe.at("mount").allowed);
  EXPECT_FALSE(probe.at("fsopen").allowed);
  EXPECT_FALSE(probe.at("move-mount").allowed);
  // Controls: ordinary process and terminal use still works.
  EXPECT_TRUE(probe.at("fork-exec").allowed);
  EXPECT_TRUE(probe.at("tcgets").allowed);
}

TEST_F(RunConfinementTest, NestedUnshareCommandFails) {
  set_policy(workspace_write());
  const auto result = run({"/bin/sh", "-c", "unshare -U true && exit 0; exit 7"});
  EXPECT_EQ(result.exit_code, 7) << result.err;
}

TEST_F(RunConfinementTest, HostProcessesCanBeNeitherSeenNorKilled) {
  const pid_t victim = fork_child([] {
    ::pause();
    return 0;
  });
  ASSERT_GT(victim, 0);
  set_policy(workspace_write());
  const std::string me = std::to_string(::getpid());
  const std::string kill_check = "kill:" + std::to_string(victim) + ":9";
  const auto probe = probe_run({kill_check, "read:/proc/" + me + "/status",
                                "read:/proc/" + std::to_string(victim) + "/status"});
  EXPECT_FALSE(probe.at(kill_check).allowed);
  EXPECT_FALSE(probe.at("read:/proc/" + me + "/status").allowed);
  // Still alive: not reaped, and signal 0 reaches it.
  int status = 0;
  EXPECT_EQ(::waitpid(victim, &status, WNOHANG), 0);
  EXPECT_EQ(::kill(victim, 0), 0);

  // The whole /proc listing inside shows neither this process nor the victim.
  const auto ls = run({"/bin/ls", "/proc"});
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  std::istringstream names(ls.out);
  std::vector<std::string> pids;
  for (std::string name; names >> name;) {
    if (name.find_first_not_of("0123456789") == std::string::npos) pids.push_back(name);
  }
  EXPECT_FALSE(pids.empty());  // the sandbox's own processes are there
  EXPECT_EQ(std::count(pids.begin(), pids.end(), me), 0) << ls.out;
  EXPECT_EQ(std::count(pids.begin(), pids.end(), std::to_string(victim)), 0) << ls.out;

  ::kill(victim, SIGKILL);
  EXPECT_EQ(wait_exit_code(victim), -SIGKILL);
}

// As root on the host, the sandbox's root still cannot remount / read-write
// (no CAP_SYS_ADMIN; mount is refused) and so cannot write outside.
TEST_F(RunConfinementTest, RemountingRootReadWriteFails) {
  ASSERT_EQ(::geteuid(), 0u) << "this test checks root on the host";
  set_policy(workspace_write());
  const std::string target = (outside_ / "after-remount").string();
  const auto result = run({"/bin/sh", "-c",
                           "mount -o remount,rw / 2>/dev/null && exit 30; "
                           "mount -t tmpfs none \"$2\" 2>/dev/null && exit 31; "
                           "echo x > \"$1\" 2>/dev/null && exit 32; exit 0",
                           "sh", target, workspace_.string()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(fs::exists(target));
}

TEST_F(RunConfinementTest, CallerSecretsInTheEnvironmentAreNotPassedIn) {
  set_policy(workspace_write());
  Launch launch;
  launch.env["SECRET_TOKEN"] = "s3cr3t-value";
  launch.env["LANG"] = "C.UTF-8";
  const auto probe = probe_run({"env:SECRET_TOKEN", "env:LANG"}, launch);
  EXPECT_FALSE(probe.at("env:SECRET_TOKEN").allowed);
  EXPECT_TRUE(probe.at("env:LANG").allowed);  // the allow-list still passes
  EXPECT_EQ(probe.at("env:LANG").value, "C.UTF-8");
  const auto env = run({"/usr/bin/env"}, {}, launch);
  EXPECT_EQ(env.out.find("s3cr3t-value"), std::string::npos) << env.out;
}

}  // namespace
}  // namespace holdfast::run::testing
