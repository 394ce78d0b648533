// The network end-to-end tests' world: the test process moves itself into
// a network and mount namespace of its own (so nothing here touches the
// real host), puts a generated /etc/hosts over the real one there, and
// starts a "server world" in a second network namespace joined to it by a
// veth pair. holdfast, started by the test, sees the test's namespace as
// its host: the servers' address (10.213.0.2) is a private one that is not
// the host's own (10.213.0.1 is).
//
// Names (the generated /etc/hosts):
//   web.test, other.test, git.test  10.213.0.2 (the servers)
//   rebind.test                     127.0.0.1 (loopback)
//   meta.test                       169.254.169.254 (cloud metadata)
//   self.test                       10.213.0.1 (the host's own address)
//
// Servers, each started once it signalled readiness on a pipe:
//   10.213.0.2:80   plain HTTP, answers "host=HOST path=PATH"
//   10.213.0.2:443  HTTPS, the same (certificate for the names above and
//                   10.213.0.2, signed by a CA made with the openssl CLI),
//                   and git's dumb HTTP under /git/repo.git
//   10.213.0.2:22   sshd (-i per connection), root's login by a generated
//                   key: git over ssh to World::repo
//
// Set up once per test process (each gtest test is its own process under
// ctest), torn down by a global test environment.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/process.hpp"

namespace holdfast::network_e2e {

namespace fs = std::filesystem;

inline constexpr const char* kServerAddress = "10.213.0.2";
inline constexpr const char* kHostAddress = "10.213.0.1";
inline constexpr const char* kReadmeText = "hello from the server world\n";

struct World {
  fs::path dir;                              // under /var/tmp, mode 0755: the sandbox reads it
  fs::path ca;                               // the test CA's certificate (PEM)
  fs::path client_script;                    // world_client.py, copied here
  fs::path repo;                             // the bare repository (README: kReadmeText)
  fs::path ssh_key;                          // root's key for git.test, mode 0600 ("" without sshd)
  std::string ssh_missing;                   // why there is no sshd ("" when there is)
  std::map<std::string, std::string> tools;  // name → absolute path, those found
  std::vector<pid_t> servers;                // process group leaders
  pid_t holder = -1;                         // keeps the server namespace
};

// The world, set up on the first call. Nothing when a tool the world needs
// is missing (why: world_missing()); throws std::runtime_error when setting
// it up failed.
const World* world();
const std::string& world_missing();

// Kills the servers (their process groups) and the holder.
void stop_world();

// An absolute path of the tool NAME (/usr/local/sbin … /bin), or "".
std::string find_tool(const std::string& name);

// Runs ARGV (argv[0] a path) with our environment minus every *_proxy
// variable, plus ENV; output captured.
holdfast::testing::CommandResult run_tool(const std::vector<std::string>& argv,
                                          const std::map<std::string, std::string>& env = {},
                                          const std::optional<fs::path>& cwd = std::nullopt);

}  // namespace holdfast::network_e2e
