#include "cli/serve_command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace holdfast::service {

namespace {

namespace fs = std::filesystem;

// holdfast-serve beside this executable (the build tree), else where the
// package installs it relative to bin/.
std::optional<fs::path> locate_serve_program() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  for (const fs::path& candidate :
       {self.parent_path() / "holdfast-serve",
        self.parent_path() / HOLDFAST_BIN_TO_LIBEXEC / "holdfast" / "holdfast-serve"}) {
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

}  // namespace

CLI::App* add_serve_cli(CLI::App& app, int& exit_code) {
  auto* serve = app.add_subcommand(
      "serve",
      "Serve the settings to GUIs and scripts over a local HTTP/1.1 + JSON API (Unix socket, "
      "or 127.0.0.1 with a token); `holdfast serve --help` describes it");
  // Everything after `serve`, --help included, is the service's to parse.
  serve->prefix_command();
  serve->set_help_flag();
  serve->callback([serve, &exit_code] {
    const auto program = locate_serve_program();
    if (!program) {
      std::cerr << "holdfast: the settings service program (holdfast-serve) is not installed "
                   "beside holdfast or in its libexec directory; reinstall holdfast\n";
      exit_code = 1;
      return;
    }
    std::vector<std::string> args = serve->remaining();
    std::vector<char*> argv;
    std::string name = "holdfast serve";
    argv.push_back(name.data());
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    execv(program->c_str(), argv.data());
    std::cerr << "holdfast: cannot execute " << program->string() << ": " << std::strerror(errno)
              << "\n";
    exit_code = 1;
  });
  return serve;
}

}  // namespace holdfast::service
