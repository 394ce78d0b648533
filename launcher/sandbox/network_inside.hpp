// What a command sees of the network allow-list inside its sandbox: the
// proxy and DNS stub on its own loopback (the launch makes their sockets
// there before the command starts, launcher/run/network_proxy.hpp), and
// the settings that point tools at them. Pure: data in, data out.
//
//   HTTP_PROXY, HTTPS_PROXY, GRPC_PROXY (and http_proxy, https_proxy,
//     grpc_proxy)          http://127.0.0.1:3128   (CONNECT and plain HTTP)
//   ALL_PROXY, all_proxy   socks5h://127.0.0.1:3128 (names resolved by the proxy)
//   NO_PROXY, no_proxy     empty: nothing bypasses the proxy (nothing could)
//   JAVA_TOOL_OPTIONS      the JVM's http(s).proxyHost and proxyPort
//   GIT_SSH_COMMAND        ssh with holdfast's connector as its ProxyCommand,
//                          so git over ssh goes through the proxy too
//   /etc/resolv.conf       nameserver 127.0.0.1 (the stub answers only
//                          allowed names)
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace holdfast::sandbox {

// The variables above. CONNECTOR is the holdfast executable as the sandbox
// sees it (it runs `CONNECTOR net-connect HOST PORT`); empty leaves
// GIT_SSH_COMMAND out.
std::vector<std::pair<std::string, std::string>> proxy_environment(std::string_view connector);

// Where the generated resolv.conf goes (a data_file of the mount plan).
inline constexpr std::string_view kResolvConf = "/etc/resolv.conf";

// The generated /etc/resolv.conf.
std::string resolv_conf_text();

}  // namespace holdfast::sandbox
