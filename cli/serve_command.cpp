#include "cli/serve_command.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "launcher/run/trusted_executable.hpp"

extern char** environ;  // NOLINT

namespace holdfast::service {

namespace {

namespace fs = std::filesystem;

// holdfast-serve beside this executable (the build tree), else where the
// package installs it relative to bin/: judged like the bubblewrap a launch
// executes (launcher/run/trusted_executable.hpp), with one owner accepted
// besides root, our own executable's: the service is only as trusted as
// holdfast itself, and whoever could replace it there could replace
// holdfast too. The first candidate that exists decides: an untrusted one
// is refused, never skipped for the next.
launcher::ExecutableLookup find_serve_program() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  struct stat own {};
  if (ec || ::stat("/proc/self/exe", &own) != 0) {
    return {launcher::ExecutableLookup::Result::missing, "holdfast-serve", std::nullopt,
            "cannot find holdfast's own executable (/proc/self/exe)", ""};
  }
  launcher::ExecutableLookup lookup;
  for (const fs::path& candidate :
       {self.parent_path() / "holdfast-serve",
        (self.parent_path() / HOLDFAST_BIN_TO_LIBEXEC / "holdfast" / "holdfast-serve")
            .lexically_normal()}) {
    lookup = launcher::find_trusted_executable(candidate.string(), own.st_uid);
    if (lookup.result != launcher::ExecutableLookup::Result::missing) return lookup;
  }
  return lookup;
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
    const launcher::ExecutableLookup program = find_serve_program();
    if (program.result == launcher::ExecutableLookup::Result::missing) {
      std::cerr << "holdfast: the settings service program (holdfast-serve) is not installed "
                   "beside holdfast or in its libexec directory; reinstall holdfast\n";
      exit_code = 1;
      return;
    }
    if (program.result == launcher::ExecutableLookup::Result::untrusted) {
      std::cerr << "holdfast: refusing to run the settings service " << program.path << ": "
                << program.problem << ". To fix: " << program.remedy << "\n";
      exit_code = 1;
      return;
    }
    std::vector<std::string> args = serve->remaining();
    std::vector<char*> argv;
    std::string name = "holdfast serve";
    argv.push_back(name.data());
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    launcher::execute_descriptor(program.executable->fd.get(), argv.data(), environ);
    std::cerr << "holdfast: cannot execute " << program.path << ": " << std::strerror(errno)
              << "\n";
    exit_code = 1;
  });
  return serve;
}

}  // namespace holdfast::service
