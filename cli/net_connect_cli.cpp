#include "cli/net_connect_cli.hpp"

#include <memory>
#include <string>

#include "launcher/run/net_connect.hpp"

namespace holdfast::launcher {

CLI::App* add_net_connect_cli(CLI::App& app, int& exit_code) {
  struct Target {
    std::string host;
    std::string port;
  };
  auto target = std::make_shared<Target>();
  auto* cmd = app.add_subcommand(
      "net-connect",
      "Inside `holdfast run` with a network allow-list: tunnel standard input and output to "
      "HOST:PORT through the launch's proxy (ssh's ProxyCommand for git over ssh)");
  cmd->add_option("host", target->host, "The host, as the allow-list names it")->required();
  cmd->add_option("port", target->port, "The port")->required()->check(CLI::Range(1, 65535));
  cmd->footer(
      "Set up by holdfast itself: GIT_SSH_COMMAND inside the sandbox is ssh -o "
      "'ProxyCommand=holdfast net-connect %h %p'. Exit status 1 when the proxy refused (its "
      "reason on stderr).");
  cmd->callback([target, &exit_code] { exit_code = run_connector(target->host, target->port); });
  return cmd;
}

}  // namespace holdfast::launcher
