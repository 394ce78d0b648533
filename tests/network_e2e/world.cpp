#include "world.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::network_e2e {

namespace world_parts {

using holdfast::testing::CommandResult;

std::string lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

void must(const CommandResult& result, const std::vector<std::string>& argv) {
  if (result.exit_code == 0) return;
  std::string line;
  for (const auto& arg : argv) line += arg + " ";
  fail("world setup: `" + line + "` exited " + std::to_string(result.exit_code) +
       "\nstdout: " + result.out + "\nstderr: " + result.err);
}

void run_or_fail(const std::vector<std::string>& argv,
                 const std::map<std::string, std::string>& env = {},
                 const std::optional<fs::path>& cwd = std::nullopt) {
  must(run_tool(argv, env, cwd), argv);
}

struct State {
  std::unique_ptr<holdfast::testing::TempDir> dir;
  std::optional<World> world;
  std::string missing;
  std::string error;
  bool tried = false;
};

State& state() {
  static State instance;
  return instance;
}

// Starts ARGV (argv[0] a path) in the server namespace NETNS, in a process
// group of its own, with stdout a pipe and stderr LOG; returns once it
// wrote its first line ("ready"), or throws with what it logged.
pid_t start_server(const std::vector<std::string>& argv, int netns, const fs::path& log,
                   bool private_run) {
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) fail(errno_text("pipe2"));
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) fail(errno_text("open " + log.string()));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) fail(errno_text("fork"));
  if (pid == 0) {
    // Dies with the test process, whatever happens to it.
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(120);
    ::setpgid(0, 0);
    if (::setns(netns, CLONE_NEWNET) != 0) ::_exit(121);
    if (private_run) {
      // sshd needs its privilege separation directory /run/sshd: a /run
      // of its own, so that the host's is not touched.
      if (::unshare(CLONE_NEWNS) != 0) ::_exit(122);
      if (::mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0) ::_exit(123);
      if (::mkdir("/run/sshd", 0755) != 0) ::_exit(124);
    }
    const int null = ::open("/dev/null", O_RDONLY);
    if (null < 0 || ::dup2(null, 0) < 0 || ::dup2(ready[1], 1) < 0 || ::dup2(log_fd, 2) < 0) {
      ::_exit(125);
    }
    ::execv(args[0], args.data());
    ::_exit(126);
  }
  ::setpgid(pid, pid);
  ::close(ready[1]);
  ::close(log_fd);
  std::string line;
  char c = 0;
  while (true) {
    const ssize_t n = ::read(ready[0], &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || c == '\n') break;
    line += c;
  }
  ::close(ready[0]);
  if (line != "ready") {
    ::kill(-pid, SIGKILL);
    const int code = holdfast::testing::wait_exit_code(pid);
    fail("world setup: " + argv[0] + " " + (argv.size() > 1 ? argv[1] : "") +
         " did not become ready (exit " + std::to_string(code) + ", said \"" + line +
         "\"); its log:\n" + holdfast::testing::read_file(log));
  }
  return pid;
}

void make_certificates(const World& world) {
  const auto openssl = world.tools.at("openssl");
  const auto ec = std::vector<std::string>{"-newkey", "ec", "-pkeyopt",
                                           "ec_paramgen_curve:prime256v1", "-nodes"};
  std::vector<std::string> ca = {openssl, "req", "-x509"};
  ca.insert(ca.end(), ec.begin(), ec.end());
  ca.insert(ca.end(), {"-keyout", (world.dir / "ca.key").string(), "-out", world.ca.string(),
                       "-days", "2", "-subj", "/CN=holdfast network e2e test CA", "-addext",
                       "basicConstraints=critical,CA:TRUE", "-addext",
                       "keyUsage=critical,keyCertSign,cRLSign"});
  run_or_fail(ca);
  std::vector<std::string> request = {openssl, "req", "-new"};
  request.insert(request.end(), ec.begin(), ec.end());
  request.insert(request.end(), {"-keyout", (world.dir / "server.key").string(), "-out",
                                 (world.dir / "server.csr").string(), "-subj", "/CN=web.test"});
  run_or_fail(request);
  holdfast::testing::write_file(world.dir / "server.ext",
                                "subjectAltName=DNS:web.test,DNS:other.test,DNS:git.test,"
                                "DNS:rebind.test,DNS:meta.test,DNS:self.test,IP:10.213.0.2\n"
                                "extendedKeyUsage=serverAuth\n"
                                "basicConstraints=CA:FALSE\n");
  run_or_fail({openssl, "x509", "-req", "-in", (world.dir / "server.csr").string(), "-CA",
               world.ca.string(), "-CAkey", (world.dir / "ca.key").string(), "-set_serial", "2",
               "-days", "2", "-extfile", (world.dir / "server.ext").string(), "-out",
               (world.dir / "server.pem").string()});
  fs::permissions(world.ca, fs::perms(0644));
}

void make_repository(const World& world) {
  const auto git = world.tools.at("git");
  const fs::path source = world.dir / "source";
  const std::map<std::string, std::string> env = {
      {"GIT_CONFIG_NOSYSTEM", "1"},    {"GIT_CONFIG_GLOBAL", "/dev/null"},
      {"GIT_AUTHOR_NAME", "world"},    {"GIT_AUTHOR_EMAIL", "world@web.test"},
      {"GIT_COMMITTER_NAME", "world"}, {"GIT_COMMITTER_EMAIL", "world@web.test"}};
  run_or_fail({git, "init", "-q", "-b", "main", source.string()}, env);
  holdfast::testing::write_file(source / "README", kReadmeText);
  run_or_fail({git, "-C", source.string(), "add", "README"}, env);
  run_or_fail({git, "-C", source.string(), "commit", "-q", "-m", "the world's commit"}, env);
  run_or_fail({git, "clone", "-q", "--bare", source.string(), world.repo.string()}, env);
  run_or_fail({git, "--git-dir", world.repo.string(), "update-server-info"}, env);
}

// The ssh keys and sshd's configuration; "" or why sshd cannot run.
std::string prepare_sshd(World& world) {
  for (const auto* tool : {"sshd", "ssh-keygen", "ssh"}) {
    if (!world.tools.contains(tool)) return std::string(tool) + " is not installed";
  }
  const auto keygen = world.tools.at("ssh-keygen");
  run_or_fail({keygen, "-q", "-t", "ed25519", "-N", "", "-C", "world host", "-f",
               (world.dir / "ssh_host_ed25519_key").string()});
  world.ssh_key = world.dir / "id_ed25519";
  run_or_fail({keygen, "-q", "-t", "ed25519", "-N", "", "-C", "world client", "-f",
               world.ssh_key.string()});
  holdfast::testing::write_file(world.dir / "authorized_keys",
                                holdfast::testing::read_file(world.dir / "id_ed25519.pub"));
  holdfast::testing::write_file(world.dir / "sshd_config",
                                "HostKey " + (world.dir / "ssh_host_ed25519_key").string() +
                                    "\n"
                                    "AuthorizedKeysFile " +
                                    (world.dir / "authorized_keys").string() +
                                    "\n"
                                    "PermitRootLogin prohibit-password\n"
                                    "PasswordAuthentication no\n"
                                    "KbdInteractiveAuthentication no\n"
                                    "UsePAM no\n"
                                    "StrictModes no\n"
                                    "PidFile none\n"
                                    "LogLevel VERBOSE\n");
  return "";
}

void set_up_namespaces(World& world) {
  if (::unshare(CLONE_NEWNET | CLONE_NEWNS) != 0) {
    fail(errno_text("unshare(CLONE_NEWNET | CLONE_NEWNS) (the tests need root)"));
  }
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    fail(errno_text("mount --make-rprivate /"));
  }
  const std::string server = kServerAddress;
  // The machine's own name stays resolvable from the hosts file, as it
  // usually is (git, for one, looks it up for its default identity).
  std::array<char, 256> hostname{};
  std::string own_name = "localhost";
  if (::gethostname(hostname.data(), hostname.size() - 1) == 0 && hostname[0] != '\0') {
    own_name = hostname.data();
  }
  holdfast::testing::write_file(world.dir / "hosts",
                                "127.0.0.1 localhost\n"
                                "::1 localhost\n"
                                "127.0.1.1 " +
                                    own_name + "\n" + server + " web.test\n" + server +
                                    " other.test\n" + server +
                                    " git.test\n"
                                    "127.0.0.1 rebind.test\n"
                                    "169.254.169.254 meta.test\n"
                                    "10.213.0.1 self.test\n");
  // No name server: a name the hosts file does not list fails at once.
  holdfast::testing::write_file(world.dir / "resolv.conf", "nameserver 127.0.0.1\n");
  for (const auto* name : {"hosts", "resolv.conf"}) {
    fs::permissions(world.dir / name, fs::perms(0644));
    const auto target = fs::path("/etc") / name;
    if (::mount((world.dir / name).c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0) {
      fail(errno_text("bind mount over " + target.string()));
    }
  }
  const auto ip = world.tools.at("ip");
  run_or_fail({ip, "link", "set", "lo", "up"});

  // The holder: a process in the server namespace until we let it go.
  int made[2];
  int hold[2];
  if (::pipe2(made, O_CLOEXEC) != 0 || ::pipe2(hold, O_CLOEXEC) != 0) fail(errno_text("pipe2"));
  const pid_t parent = ::getpid();
  world.holder = ::fork();
  if (world.holder < 0) fail(errno_text("fork"));
  if (world.holder == 0) {
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(120);
    ::close(hold[1]);
    const char ok = ::unshare(CLONE_NEWNET) == 0 ? 'y' : 'n';
    if (::write(made[1], &ok, 1) != 1) ::_exit(121);
    char c = 0;
    while (::read(hold[0], &c, 1) < 0 && errno == EINTR) {
    }
    ::_exit(0);
  }
  ::close(made[1]);
  ::close(hold[0]);
  // hold[1] stays open (close-on-exec) as long as we live.
  char ok = 0;
  const ssize_t n = ::read(made[0], &ok, 1);
  ::close(made[0]);
  if (n != 1 || ok != 'y') fail("the server world's holder could not unshare its network");
  const std::string pid = std::to_string(world.holder);
  const std::string netns = "--net=/proc/" + pid + "/ns/net";
  const auto nsenter = world.tools.at("nsenter");
  run_or_fail({ip, "link", "add", "hf0", "type", "veth", "peer", "name", "hf1", "netns", pid});
  run_or_fail({ip, "addr", "add", std::string(kHostAddress) + "/24", "dev", "hf0"});
  run_or_fail({ip, "link", "set", "hf0", "up"});
  run_or_fail({nsenter, netns, ip, "addr", "add", server + "/24", "dev", "hf1"});
  run_or_fail({nsenter, netns, ip, "link", "set", "hf1", "up"});
  run_or_fail({nsenter, netns, ip, "link", "set", "lo", "up"});
}

void start_servers(World& world) {
  const auto netns_path = "/proc/" + std::to_string(world.holder) + "/ns/net";
  const int netns = ::open(netns_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (netns < 0) fail(errno_text("open " + netns_path));
  const std::string python = world.tools.at("python3");
  const std::string script = NETWORK_E2E_SERVER_SCRIPT;
  const std::string server = kServerAddress;
  world.servers.push_back(start_server({python, script, "http", "--bind", server, "--port", "80"},
                                       netns, world.dir / "http.log", false));
  world.servers.push_back(
      start_server({python, script, "https", "--bind", server, "--port", "443", "--cert",
                    (world.dir / "server.pem").string(), "--key",
                    (world.dir / "server.key").string(), "--root", world.dir.string()},
                   netns, world.dir / "https.log", false));
  if (world.ssh_missing.empty()) {
    world.servers.push_back(start_server(
        {python, script, "inetd", "--bind", server, "--port", "22", "--", world.tools.at("sshd"),
         "-i", "-e", "-f", (world.dir / "sshd_config").string()},
        netns, world.dir / "sshd.log", true));
  }
  ::close(netns);
}

void set_up(State& s) {
  // In place from the start: stop_world stops what a failed setup started.
  World& world = s.world.emplace();
  for (const auto* tool : {"python3", "ip", "nsenter", "openssl", "git", "curl", "sshd",
                           "ssh-keygen", "ssh", "getent"}) {
    // python3 only from /usr/bin (not a user's shim earlier in PATH).
    const auto path = std::string(tool) == "python3"
                          ? (fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "")
                          : find_tool(tool);
    if (!path.empty()) world.tools[tool] = path;
  }
  for (const auto* needed : {"python3", "ip", "nsenter", "openssl", "git"}) {
    if (!world.tools.contains(needed)) {
      s.world.reset();
      s.missing = std::string(needed) + " is not installed (" +
                  (std::string(needed) == "python3" ? "/usr/bin/python3" : needed) +
                  "; scripts/install-deps.sh installs it): the test world needs it";
      return;
    }
  }
  s.dir = std::make_unique<holdfast::testing::TempDir>("/var/tmp");
  world.dir = fs::canonical(s.dir->path());
  world.ca = world.dir / "ca.pem";
  world.client_script = world.dir / "world_client.py";
  world.repo = world.dir / "repo.git";
  fs::copy_file(NETWORK_E2E_CLIENT_SCRIPT, world.client_script);
  fs::permissions(world.client_script, fs::perms(0644));
  set_up_namespaces(world);
  make_certificates(world);
  make_repository(world);
  world.ssh_missing = prepare_sshd(world);
  start_servers(world);
}

}  // namespace world_parts

std::string find_tool(const std::string& name) {
  for (const auto* dir :
       {"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}) {
    const auto path = fs::path(dir) / name;
    if (::access(path.c_str(), X_OK) == 0) return path.string();
  }
  return "";
}

holdfast::testing::CommandResult run_tool(const std::vector<std::string>& argv,
                                          const std::map<std::string, std::string>& env,
                                          const std::optional<fs::path>& cwd) {
  static int serial = 0;
  const holdfast::testing::TempDir capture;
  holdfast::testing::Command command;
  command.argv = argv;
  for (const auto& [name, value] : holdfast::testing::current_environment()) {
    if (world_parts::lower(name).ends_with("_proxy")) continue;
    command.env[name] = value;
  }
  for (const auto& [name, value] : env) command.env[name] = value;
  command.cwd = cwd;
  command.out = capture / ("out." + std::to_string(++serial));
  command.err = capture / ("err." + std::to_string(serial));
  return holdfast::testing::wait_command(holdfast::testing::start_command(command));
}

const World* world() {
  auto& s = world_parts::state();
  if (!s.tried) {
    s.tried = true;
    try {
      world_parts::set_up(s);
    } catch (const std::exception& e) {
      s.error = e.what();
    }
  }
  if (!s.error.empty()) throw std::runtime_error(s.error);
  return s.world ? &*s.world : nullptr;
}

const std::string& world_missing() { return world_parts::state().missing; }

void stop_world() {
  auto& s = world_parts::state();
  if (!s.world) return;
  for (const pid_t pid : s.world->servers) {
    ::kill(-pid, SIGKILL);
    holdfast::testing::wait_status(pid);
  }
  s.world->servers.clear();
  if (s.world->holder > 0) {
    ::kill(s.world->holder, SIGKILL);
    holdfast::testing::wait_status(s.world->holder);
    s.world->holder = -1;
  }
}

namespace world_parts {

class WorldEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { stop_world(); }
};

[[maybe_unused]] const auto* const registered =
    ::testing::AddGlobalTestEnvironment(new WorldEnvironment);

}  // namespace world_parts

}  // namespace holdfast::network_e2e
