// The doctor's network canary: the launch's real proxy (serve_proxy) in a
// network namespace of its own, asked for one connection its allow-list
// allows and one it does not, so that `holdfast doctor` shows the proxy
// deciding on this host rather than assuming it would.
//
// The namespace has loopback and one private address (10.213.255.1, on
// lo) where a small server answers; the canary's allow-list names exactly
// that address and port (ip:10.213.255.1:2222). The allowed connection
// sends an SSH identification string through a CONNECT tunnel and reads
// the server's answer back; the refused one asks CONNECT for a name no
// entry lists and must get 403. Both must leave their audit line.
#pragma once

#include <string>

namespace holdfast::doctor {

struct CanaryResult {
  bool ran = false;  // false: the namespace could not be made (why says so)
  bool allowed_passed = false;
  bool refused_refused = false;
  int audit_lines = 0;
  std::string why;  // what went wrong, for the finding
};

// Forks; the child makes the namespace (a user namespace too when not
// root), serves the proxy in a thread, and reports back.
CanaryResult run_network_canary();

}  // namespace holdfast::doctor
