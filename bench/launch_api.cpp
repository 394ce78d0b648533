// A confined start through the library (launcher::launch, what an agent or
// a GUI that links holdfast calls) against the same process spawning bare
// bubblewrap with the same argv and seccomp program, in alternation:
//
//   library  launcher::launch() of /bin/true: snapshot, plan, descriptor
//            binds, start gate, supervision, cleanup (no launch record, as
//            the bare start writes none either)
//   bwrap    posix_spawn of bwrap with the argv of `holdfast run --dry-run`
//            and its seccomp program on fd 3, then waitpid
//
// Reports each one's median and the median of the paired ratio
// library / bwrap over rounds. Run it through bench/compare-launch-api.sh,
// which sets up the settings and the workspace.
//
//   launch_api ROUNDS
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "launcher/run/launch.hpp"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;
namespace launcher = holdfast::launcher;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n == 0 ? 0 : (n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2);
}

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[static_cast<std::size_t>(p * (values.size() - 1))];
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// One bare start: bwrap with `argv`, the program on fd 3, output discarded.
double bare_bwrap(const std::vector<std::string>& argv, int program_fd, int null_fd) {
  const auto start = Clock::now();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, program_fd, 3);
  posix_spawn_file_actions_adddup2(&actions, null_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, null_fd, 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int failed = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (failed != 0 || ::waitpid(pid, &status, 0) != pid || status != 0) return -1;
  return ms_since(start);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
  const auto workspace = std::filesystem::current_path();
  if (rounds <= 0) {
    std::fprintf(stderr, "usage: launch_api ROUNDS\n");
    return 2;
  }
  const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);

  launcher::LaunchOptions options;
  options.workspace = workspace;
  options.cwd = workspace;
  options.command = {"/bin/true"};
  options.record = false;
  options.stdout_fd = null_fd;
  options.stderr_fd = null_fd;

  // The bare start's argv and program: the plan of the same launch, with
  // paths instead of descriptors (as --dry-run prints it).
  const launcher::LaunchPlan plan =
      launcher::plan_launch(launcher::plan_request(options, /*will_run=*/false));
  std::vector<std::string> bare_argv = plan.argv;
  for (std::size_t i = 0; i + 1 < bare_argv.size(); ++i) {
    if (bare_argv[i] == "--seccomp") bare_argv[i + 1] = std::to_string(3);
  }

  std::vector<double> library;
  std::vector<double> bare;
  std::vector<double> ratios;
  for (int round = 0; round < rounds; ++round) {
    const auto start = Clock::now();
    const auto result = launcher::launch(options);
    const double library_ms = ms_since(start);
    ::lseek(plan.seccomp_fd.get(), 0, SEEK_SET);
    const double bare_ms = bare_bwrap(bare_argv, plan.seccomp_fd.get(), null_fd);
    if (result.exit_status != 0 || bare_ms < 0) {
      std::fprintf(stderr, "round %d: a start failed (library exit %d)\n", round,
                   result.exit_status);
      return 1;
    }
    library.push_back(library_ms);
    bare.push_back(bare_ms);
    ratios.push_back(library_ms / bare_ms);
  }
  std::printf("%-10s %10s %10s\n", "start", "median ms", "p90 ms");
  std::printf("%-10s %10.2f %10.2f\n", "library", median(library), percentile(library, 0.9));
  std::printf("%-10s %10.2f %10.2f\n", "bwrap", median(bare), percentile(bare, 0.9));
  std::printf("paired ratio library/bwrap over %d rounds: median %.3f\n", rounds, median(ratios));
  return 0;
}
