#include "launcher/sandbox/network_inside.hpp"

#include "base/shell_quote.hpp"
#include "launcher/network/proxy_server.hpp"

namespace holdfast::sandbox {

std::vector<std::pair<std::string, std::string>> proxy_environment(std::string_view connector) {
  const std::string endpoint =
      std::string(network::kSandboxLoopback) + ":" + std::to_string(network::kProxyPort);
  const std::string http = "http://" + endpoint;
  // socks5h: the proxy resolves the name (a client that resolves first
  // gets its answer from the stub, which the proxy then recognises).
  const std::string socks = "socks5h://" + endpoint;
  std::vector<std::pair<std::string, std::string>> env = {
      {"HTTP_PROXY", http},
      {"HTTPS_PROXY", http},
      {"GRPC_PROXY", http},
      {"http_proxy", http},
      {"https_proxy", http},
      {"grpc_proxy", http},
      {"ALL_PROXY", socks},
      {"all_proxy", socks},
      {"NO_PROXY", ""},
      {"no_proxy", ""},
      // The JVM reads no proxy variable; its own properties, for every java.
      {"JAVA_TOOL_OPTIONS", "-Dhttp.proxyHost=" + std::string(network::kSandboxLoopback) +
                                " -Dhttp.proxyPort=" + std::to_string(network::kProxyPort) +
                                " -Dhttps.proxyHost=" + std::string(network::kSandboxLoopback) +
                                " -Dhttps.proxyPort=" + std::to_string(network::kProxyPort)},
  };
  if (!connector.empty()) {
    // git runs GIT_SSH_COMMAND through a shell and appends its own
    // arguments; ssh expands %h and %p in ProxyCommand.
    env.emplace_back("GIT_SSH_COMMAND",
                     "ssh -o " + base::shell_quote("ProxyCommand=" + base::shell_quote(connector) +
                                                   " net-connect %h %p"));
  }
  return env;
}

std::string resolv_conf_text() {
  return "# holdfast: the launch's DNS stub, which answers only the allow-list's names\n"
         "nameserver " +
         std::string(network::kSandboxLoopback) + "\noptions edns0\n";
}

}  // namespace holdfast::sandbox
