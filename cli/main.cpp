// The `holdfast` executable: one program, one subcommand per job.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string_view>

#include "cli/check_cli.hpp"
#include "cli/doctor_cli.hpp"
#include "cli/net_connect_cli.hpp"
#include "cli/run_cli.hpp"
#include "cli/serve_cli.hpp"
#include "cli/settings_cli.hpp"

namespace {

struct Subcommand {
  std::string_view name;
  CLI::App* (*add)(CLI::App&, int&);
};

// What `holdfast` alone prints: the three things most people come for, each
// as a command they can paste, before the list of subcommands. A bare
// `holdfast` is still a usage error (exit 2), so a script that forgot its
// subcommand fails; the guide goes to stdout, where a person reads it.
constexpr std::string_view kGuide =
    "holdfast: durable settings and confined command launches\n"
    "\n"
    "Most people do one of three things:\n"
    "\n"
    "  holdfast run -- bash\n"
    "      Start a shell (or any command) confined to the current directory.\n"
    "      With no policy set, the built-in default applies: it may write the\n"
    "      current directory, read the rest, and has no network.\n"
    "\n"
    "  holdfast run --explain -- bash\n"
    "      See what it may read, write and reach, and which settings file\n"
    "      each part came from, without starting it.\n"
    "\n"
    "  holdfast settings set tools.executionSandbox.filesystem '\"read-only\"'\n"
    "      Set a policy in your user settings. The save is atomic; the next\n"
    "      start (and --explain) uses it.\n"
    "\n"
    "Subcommands:";
constexpr std::string_view kGuideEnd =
    ". `holdfast --help` lists them,\n"
    "`holdfast SUBCOMMAND --help` describes one, `holdfast doctor` checks this\n"
    "machine.\n";

constexpr Subcommand kSubcommands[] = {
    {"settings", holdfast::settings::add_settings_cli},
    {"check", holdfast::gatekeeper::add_check_cli},
    {"run", holdfast::launcher::add_run_cli},
    {"serve", holdfast::service::add_serve_cli},
    {"doctor", holdfast::doctor::add_doctor_cli},
    {"net-connect", holdfast::launcher::add_net_connect_cli},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc <= 1) {
    std::cout << kGuide;
    for (const Subcommand& sub : kSubcommands) {
      std::cout << (&sub == kSubcommands ? " " : ", ") << sub.name;
    }
    std::cout << kGuideEnd;
    return 2;
  }
  CLI::App app{"holdfast: durable settings and confined command launches"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "holdfast " HOLDFAST_VERSION);
  int exit_code = 0;
  // `holdfast run` starts for every confined command, and building every
  // subcommand's options costs more than parsing one: when argv[1] names a
  // subcommand, only that one is built. A word that names none is refused
  // with the list; options (--help, --version) get every subcommand built,
  // so the help lists them all.
  const std::string_view first = argc > 1 ? argv[1] : "";
  bool named = false;
  for (const Subcommand& sub : kSubcommands) {
    if (sub.name == first) {
      sub.add(app, exit_code);
      named = true;
    }
  }
  if (!named && !first.empty() && first.front() != '-') {
    std::cerr << "holdfast: unknown subcommand '" << first << "'; the subcommands are";
    for (const Subcommand& sub : kSubcommands) std::cerr << " " << sub.name;
    std::cerr << " (holdfast --help describes them)\n";
    return 2;
  }
  if (!named) {
    for (const Subcommand& sub : kSubcommands) sub.add(app, exit_code);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help and version exit 0; any other parse error is a usage error (2).
    return app.exit(e) == 0 ? 0 : 2;
  }
  return exit_code;
}
