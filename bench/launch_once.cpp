// launch_once PROGRAM ARGS...
//
// One confined start through the library, as a program of its own: the
// settings snapshot, the plan, the start gate, supervision and the launch
// record of `holdfast run`, without holdfast's command line. It is the
// control between two rows of bench/compare-launch.sh:
//   floor-spawn → library-once   the work a launch must do per start
//   library-once → holdfast      what holdfast's command line adds
// Like launch_floor it is linked statically, as holdfast is.
#include <unistd.h>

#include <cstdio>
#include <exception>

#include "launcher/run/launch.hpp"

namespace launcher = holdfast::launcher;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: launch_once PROGRAM ARGS...\n");
    return 2;
  }
  // The library's defaults are the command line's: the state directory from
  // the environment, the configured (trusted) bubblewrap, a launch record.
  launcher::LaunchOptions options;
  options.cwd = std::filesystem::current_path();
  options.workspace = options.cwd;
  options.command.assign(argv + 1, argv + argc);
  try {
    return launcher::launch(options).exit_status;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "launch_once: %s\n", e.what());
    return launcher::kExitRefused;
  }
}
