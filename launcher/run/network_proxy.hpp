// The launch's network proxy process, for a policy with a network
// allow-list (launcher/network/proxy_server.hpp serves; this starts it,
// gives it its sockets and stops it).
//
// Order, so that nothing inside can race the proxy:
//   1. Before bubblewrap starts, holdfast forks the proxy process. It stays
//      in holdfast's own network namespace (the host's), where its outgoing
//      connections are made, and waits.
//   2. bubblewrap builds the sandbox with a network namespace of its own
//      (--unshare-net: loopback only) and stops at the start gate.
//   3. At the gate, holdfast tells the sandbox's pid (its init, which the
//      command has not replaced yet) to a socket maker the proxy forked
//      ahead of time; the maker joins the sandbox's user and network
//      namespaces, makes the listening sockets on the sandbox's 127.0.0.1
//      (proxy port, DNS over UDP and TCP), passes them back (SCM_RIGHTS)
//      and exits. holdfast hands them to the proxy and lets the command
//      start: the sockets listen already, and what the command sends waits
//      in their queues until the proxy takes it. A socket belongs to the
//      namespace it was made in, so the sandbox connects to it there, while
//      the proxy serves it from outside.
//   4. When bubblewrap has exited, holdfast tells the proxy to stop (its
//      control socket hangs up) and waits for it: every connection ends and
//      its audit line is written.
// Any failure on the way refuses the launch: no command runs with a
// network that is not the one the policy describes.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "base/fd.hpp"
#include "launcher/network/network_rules.hpp"

namespace holdfast::launcher {

class NetworkProxy {
 public:
  // Forks the proxy process. AUDIT (O_APPEND, not inherited by bubblewrap)
  // receives one JSON line per connection attempt. Throws
  // base::SystemError when the process cannot be started.
  NetworkProxy(const network::NetworkRules& rules, base::UniqueFd audit);
  ~NetworkProxy();
  NetworkProxy(const NetworkProxy&) = delete;
  NetworkProxy& operator=(const NetworkProxy&) = delete;

  // Step 3, at the start gate. Empty when the sockets are in place and the
  // proxy serves them; otherwise why not (the launch is refused).
  std::string open_inside(long sandbox_pid);

  // Step 4; idempotent. Waits for the proxy to finish its audit lines.
  void stop();

 private:
  pid_t pid_ = -1;
  base::UniqueFd control_;  // to the proxy: the sockets, then (hanging up) stop
  base::UniqueFd maker_;    // to the socket maker: the sandbox's pid, back the sockets
};

// The audit file of one launch: DIR/network/MILLISECONDS-PID-ATTEMPT.jsonl,
// made with mode 0600 (O_EXCL, no symlink followed). Throws
// base::SystemError.
struct AuditFile {
  std::filesystem::path path;
  base::UniqueFd fd;  // O_APPEND | O_RDWR, close-on-exec
};
AuditFile make_audit_file(const std::filesystem::path& state_dir, int attempt);

// The audit lines read back (each a JSON object; a line that is not one is
// skipped), at most LIMIT of them.
nlohmann::json read_audit_lines(const std::filesystem::path& file, std::size_t limit = 10000);

}  // namespace holdfast::launcher
