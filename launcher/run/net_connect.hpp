// `holdfast net-connect HOST PORT`: the connector that git over ssh uses
// inside a sandbox with a network allow-list (ssh's ProxyCommand, set in
// GIT_SSH_COMMAND, see launcher/sandbox/network_inside.hpp). It connects to
// the launch's proxy on the sandbox's loopback, asks CONNECT HOST:PORT and
// relays its standard input and output through the tunnel, which the proxy
// holds to the allow-list like any other (an SSH identification string
// must come first).
#pragma once

#include <string>

namespace holdfast::launcher {

// Returns the exit status: 0 when the tunnel ended, 1 when the proxy could
// not be reached or refused (said on stderr with the proxy's reason).
int run_connector(const std::string& host, const std::string& port);

}  // namespace holdfast::launcher
