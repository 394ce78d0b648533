// Whole-process comparison: runs several commands in alternation, N rounds,
// and reports per-command medians and the paired ratio of each command to a
// baseline (the median over rounds of time(command) / time(baseline) in the
// same round). Alternating and pairing cancel slow drifts of the machine.
//
//   launch_compare --rounds 200 --name holdfast -- holdfast run -- /bin/true \;
//                  --name bwrap --fd3 filter.bpf -- /usr/bin/bwrap ... \;
//                  --name true -- /bin/true \;
//
// --gap MS waits MS milliseconds before each run (not timed): launches
// that follow a quiet moment, as an agent's do, instead of back to back;
// the kernel's cost of some steps depends on it (a cgroup join on v1 took
// an RCU grace period after a quiet moment; see launcher/run/cgroup.hpp).
//
// Each command is "--name NAME [--fd3 FILE] [--fd N FILE]... -- ARGV... ;"
// (a lone ";" ends it). --fd3 opens FILE on descriptor 3 for that command
// (the seccomp program for bare bwrap), --fd N on descriptor N (the empty
// files bubblewrap's --ro-bind-data reads for denied files). The first command is the baseline for
// ratios unless --baseline NAME says otherwise. Output: a table, and with --json FILE the raw
// samples. Exit status 1 if any run failed.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

struct Command {
  std::string name;
  std::vector<std::pair<int, std::string>> fd_files;  // descriptor, file
  std::vector<std::string> argv;
  std::vector<double> samples_ms;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n == 0 ? 0 : (n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2);
}

// Runs one command to completion with stdout/stderr to /dev/null; returns
// milliseconds, or a negative value when it did not exit 0.
double run_once(const Command& command) {
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    for (const auto& [target, file] : command.fd_files) {
      const int fd = ::open(file.c_str(), O_RDONLY);
      if (fd < 0 || ::dup2(fd, target) < 0) ::_exit(126);
    }
    std::vector<char*> argv;
    for (const auto& a : command.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ms : -1;
}

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: launch_compare [--rounds N] [--warmup N] [--gap MS] [--baseline NAME]\n"
               "         [--json FILE]\n"
               "         --name NAME [--fd3 FILE] [--fd N FILE]... -- ARGV... ';' ...\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 100;
  int warmup = 5;
  std::chrono::milliseconds gap{0};
  std::string baseline;
  std::string json_file;
  std::vector<Command> commands;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--rounds" && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else if (arg == "--warmup" && i + 1 < argc) {
      warmup = std::atoi(argv[++i]);
    } else if (arg == "--gap" && i + 1 < argc) {
      gap = std::chrono::milliseconds(std::atoi(argv[++i]));
    } else if (arg == "--baseline" && i + 1 < argc) {
      baseline = argv[++i];
    } else if (arg == "--json" && i + 1 < argc) {
      json_file = argv[++i];
    } else if (arg == "--name" && i + 1 < argc) {
      Command command;
      command.name = argv[++i];
      for (;;) {
        if (i + 2 < argc && std::strcmp(argv[i + 1], "--fd3") == 0) {
          command.fd_files.emplace_back(3, argv[i + 2]);
          i += 2;
        } else if (i + 3 < argc && std::strcmp(argv[i + 1], "--fd") == 0) {
          command.fd_files.emplace_back(std::atoi(argv[i + 2]), argv[i + 3]);
          i += 3;
        } else {
          break;
        }
      }
      if (i + 1 >= argc || std::strcmp(argv[++i], "--") != 0) usage();
      while (++i < argc && std::strcmp(argv[i], ";") != 0) command.argv.emplace_back(argv[i]);
      if (command.argv.empty()) usage();
      commands.push_back(std::move(command));
    } else {
      usage();
    }
  }
  if (commands.empty() || rounds <= 0) usage();
  if (baseline.empty()) baseline = commands.front().name;
  const auto base = std::find_if(commands.begin(), commands.end(),
                                 [&](const Command& c) { return c.name == baseline; });
  if (base == commands.end()) usage();

  for (int w = 0; w < warmup; ++w) {
    for (const auto& c : commands) run_once(c);
  }
  bool failed = false;
  for (int r = 0; r < rounds; ++r) {
    // Rotate the order each round so no command always runs first.
    for (std::size_t k = 0; k < commands.size(); ++k) {
      Command& c = commands[(k + static_cast<std::size_t>(r)) % commands.size()];
      std::this_thread::sleep_for(gap);
      const double ms = run_once(c);
      if (ms < 0) {
        std::fprintf(stderr, "launch_compare: %s failed in round %d\n", c.name.c_str(), r);
        failed = true;
      }
      c.samples_ms.push_back(ms);
    }
  }

  std::printf("%-12s %12s %12s %14s\n", "command", "median ms", "p90 ms",
              ("ratio to " + baseline).c_str());
  nlohmann::json out = {{"rounds", rounds},
                        {"gap_ms", gap.count()},
                        {"baseline", baseline},
                        {"commands", nlohmann::json::array()}};
  for (const auto& c : commands) {
    std::vector<double> ratios;
    for (std::size_t r = 0; r < c.samples_ms.size(); ++r) {
      ratios.push_back(c.samples_ms[r] / base->samples_ms[r]);
    }
    std::vector<double> sorted = c.samples_ms;
    std::sort(sorted.begin(), sorted.end());
    const double p90 = sorted[sorted.size() * 9 / 10];
    std::printf("%-12s %12.3f %12.3f %14.3f\n", c.name.c_str(), median(c.samples_ms), p90,
                median(ratios));
    out["commands"].push_back({{"name", c.name},
                               {"argv", c.argv},
                               {"median_ms", median(c.samples_ms)},
                               {"p90_ms", p90},
                               {"paired_ratio_median", median(ratios)},
                               {"samples_ms", c.samples_ms}});
  }
  if (!json_file.empty()) std::ofstream(json_file) << out.dump(2) << "\n";
  return failed ? 1 : 0;
}
