// The `holdfast` executable: one program, one subcommand per job.
#include <CLI/CLI.hpp>

#include "launcher/doctor/doctor_cli.hpp"
#include "launcher/gatekeeper/check_cli.hpp"
#include "launcher/run/run_cli.hpp"
#include "settings/settings_cli.hpp"

int main(int argc, char** argv) {
  CLI::App app{"holdfast: durable settings and confined command launches"};
  app.require_subcommand(1);
  int exit_code = 0;
  holdfast::settings::add_settings_cli(app, exit_code);
  holdfast::gatekeeper::add_check_cli(app, exit_code);
  holdfast::launcher::add_run_cli(app, exit_code);
  holdfast::doctor::add_doctor_cli(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help and version exit 0; any other parse error is a usage error (2).
    return app.exit(e) == 0 ? 0 : 2;
  }
  return exit_code;
}
