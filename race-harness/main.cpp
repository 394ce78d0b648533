// holdfast-race: the race harness. Runs the settings writers (built-in, or
// the user's own) against holdfast's reader and launcher (or the user's),
// and against the naive reader from the seeds as a positive control; kills
// writers mid-save; merges and reports results. Exit codes: see result.hpp
// (0 pass, 1 violations, 2 usage, 3 insensitive control, 4 harness errors,
// 5 a threshold missed).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "race-harness/campaign.hpp"
#include "race-harness/contract.hpp"
#include "race-harness/crash.hpp"
#include "race-harness/external_writer.hpp"
#include "race-harness/junit.hpp"
#include "race-harness/report.hpp"
#include "race-harness/writers.hpp"

namespace {

namespace fs = std::filesystem;
using namespace holdfast::race;

constexpr int kUsage = 2;

std::string self_path() {
  std::error_code ec;
  const auto path = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("holdfast-race") : path.string();
}

// The holdfast and holdfast-probe that belong with this holdfast-race:
// installed beside it (the package's BINDIR/holdfast and
// LIBEXECDIR/holdfast/holdfast-probe), else the build tree's it was built in.
std::string companion(const std::string& self, const char* beside_self, const char* in_build) {
  const fs::path installed = (fs::path(self).parent_path() / beside_self).lexically_normal();
  return ::access(installed.c_str(), X_OK) == 0 ? installed.string() : std::string(in_build);
}

fs::path default_work_dir() {
  std::error_code ec;
  return fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
}

void progress(const std::string& line) { std::cerr << line << std::endl; }

bool write_text(const std::string& file, const std::string& text) {
  if (file.empty()) return true;
  std::ofstream out(file, std::ios::trunc);
  out << text;
  if (!out) {
    std::cerr << "holdfast-race: cannot write " << file << "; check the directory exists\n";
    return false;
  }
  return true;
}

bool write_json(const std::string& file, const nlohmann::json& json) {
  return write_text(file, json.dump(1) + "\n");
}

// --max-refusal-rate and --violation-bound, on `command`.
void add_threshold_options(CLI::App* command, Thresholds& thresholds) {
  command
      ->add_option_function<double>(
          "--max-refusal-rate", [&](double rate) { thresholds.max_refusal_rate = rate; },
          "Fail (exit 5) when a phase racing the reader or launcher under test refused more "
          "than this share of its trials (0 to 1)")
      ->check(CLI::Range(0.0, 1.0));
  command
      ->add_option_function<double>(
          "--violation-bound", [&](double bound) { thresholds.violation_bound = bound; },
          "Fail (exit 5) unless each such phase bounds its violation rate at most this at 95% "
          "confidence (0 violations in N trials bound it at 3/N)")
      ->check(CLI::Range(0.0, 1.0));
}

// "max" → 0 (back to back), else a positive number of saves a second.
double parse_rate(const std::string& text) {
  if (text == "max") return 0;
  std::size_t used = 0;
  double rate = 0;
  try {
    rate = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(rate > 0)) {
    throw SpecError("bad --writer-cmd-rate \"" + text +
                    "\"; write saves per second (a positive number) or max");
  }
  return rate;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "holdfast-race: races settings writers (built-in, or your own) against holdfast's reader\n"
      "and launcher (or your own).\n"
      "Exit codes: 0 pass; 1 violations (the reader or launcher let the policy go, or a\n"
      "writer left the file wrong); 2 usage error; 3 insensitive (a positive control saw no\n"
      "race: the run proves nothing); 4 harness errors (unclassifiable trials, a writer that\n"
      "did not run); 5 a threshold missed (--max-refusal-rate, --violation-bound)."};
  app.require_subcommand(1);
  int exit_code = 0;

  // campaign
  CampaignOptions campaign;
  std::string writers_spec = "holdfast:2000,rename-backup:2000,copy-backup:2000,in-place:2000";
  std::string shard_text = "1/1";
  std::string campaign_json;
  std::string work_dir;
  std::string workspace_dir;
  std::uint64_t starts = 0;
  std::vector<std::string> writer_commands;
  std::vector<std::string> writer_daemons;
  std::string writer_command_rate = "20";
  std::string evidence_dir;
  std::string campaign_junit;
  Thresholds campaign_thresholds;
  const std::string self = self_path();
  campaign.holdfast =
      companion(self, HOLDFAST_RACE_INSTALLED_HOLDFAST, HOLDFAST_RACE_DEFAULT_HOLDFAST);
  campaign.probe = companion(self, HOLDFAST_RACE_INSTALLED_PROBE, HOLDFAST_RACE_DEFAULT_PROBE);
  std::string known_writers;
  for (const auto& name : writer_names())
    known_writers += (known_writers.empty() ? "" : ", ") + name;
  auto* run = app.add_subcommand(
      "campaign",
      "Race writers against readers: the naive controls (vs every writer that leaves a gap, or "
      "rename-backup), then holdfast (or your launcher or reader) vs each writer alone and all "
      "mixed");
  run->footer(contract_help());
  auto* writers_opt =
      run->add_option("--writers", writers_spec,
                      "Writers, rates and pauses, NAME[:RATE|max][@PAUSE],... with RATE saves/s or "
                      "max and PAUSE how long the writer holds its gap open (250us, 100ms, 1s). "
                      "Names: " +
                          known_writers)
          ->capture_default_str();
  auto* mixed_only =
      run->add_flag("--mixed-only", campaign.mixed_only,
                    "Run the controls and the mixed phase only, not each writer alone");
  auto* skip_mixed = run->add_flag(
      "--skip-mixed", campaign.skip_mixed,
      "No mixed phase: each writer alone only (a writer that pauses cannot finish a save while a "
      "directory writer replaces its directory)");
  skip_mixed->excludes(mixed_only);
  run->add_flag("--controls-only", campaign.controls_only,
                "Run the naive controls only (does this machine see each writer's gap?)")
      ->excludes(mixed_only)
      ->excludes(skip_mixed);
  run->add_option("--launchers", campaign.launchers, "Concurrent starts (snapshot mode: readers)")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  auto* starts_opt = run->add_option("--starts", starts,
                                     "Trials per phase, over all shards (default: launch 200, "
                                     "gatekeeper 500, snapshot 200000)");
  run->add_option("--control-starts", campaign.control_trials,
                  "Trials of each control phase, over all shards (default: as --starts; with "
                  "--reader-cmd 200000)");
  run->add_option("--seconds", campaign.seconds, "Run each phase this long (per shard) instead")
      ->excludes(starts_opt)
      ->check(CLI::PositiveNumber);
  run->add_option("--seed", campaign.seed, "Seed for writer pacing")->capture_default_str();
  auto* mode_opt =
      run->add_option("--mode", campaign.mode,
                      "launch: real holdfast run starts; snapshot: the reader alone; gatekeeper: "
                      "holdfast check of a path the policy denies")
          ->check(CLI::IsMember({"launch", "snapshot", "gatekeeper"}))
          ->capture_default_str();
  run->add_option("--shard", shard_text, "Run shard I of N (trials split, seeds derived)")
      ->capture_default_str();
  run->add_option("--json", campaign_json, "Write the result (for report) to FILE");
  run->add_option("--dir", work_dir, "Where the settings dirs go (default /dev/shm, tmpfs)");
  run->add_option("--workspaces", workspace_dir,
                  "Where launch mode's workspaces go (default: the temp directory)");
  run->add_option("--holdfast", campaign.holdfast, "The holdfast executable")
      ->capture_default_str();
  run->add_option("--probe", campaign.probe, "The holdfast-probe executable")
      ->capture_default_str();
  run->add_option("--writer-cmd", writer_commands,
                  "Your writer, run once per save with the document on stdin and in {file} "
                  "(repeatable; named cmd-1, cmd-2, ...; the contract is below)");
  run->add_option("--writer-daemon", writer_daemons,
                  "Your long-running writer: one document a line on its stdin, \"ok\" a line on "
                  "its stdout per save (repeatable; named daemon-1, ...)");
  run->add_option("--writer-cmd-rate", writer_command_rate,
                  "Saves a second of each --writer-cmd and --writer-daemon outside its control "
                  "phase, or max")
      ->capture_default_str();
  auto* launcher_opt = run->add_option(
      "--launcher-cmd", campaign.launcher_command,
      "Your launcher, raced instead of holdfast run (launch mode): it starts {probe} confined to "
      "{workspace}");
  auto* reader_opt = run->add_option(
      "--reader-cmd", campaign.reader_command,
      "Your reader, raced instead of holdfast's (snapshot mode; the default mode with it): it "
      "reports the policy it read on descriptor 3");
  launcher_opt->excludes(reader_opt);
  run->add_option("--refusal-exit", campaign.refusal_exit,
                  "The exit code with which your launcher or reader refuses (fails closed)")
      ->capture_default_str()
      ->check(CLI::Range(1, 255));
  run->add_option("--evidence", evidence_dir,
                  "Where violations and writer findings keep their evidence (default: "
                  "holdfast-race-evidence in the current directory, made when needed)");
  run->add_option("--junit", campaign_junit, "Write JUnit XML (a test case per phase) to FILE");
  add_threshold_options(run, campaign_thresholds);
  run->callback([&] {
    try {
      if (writers_opt->count() > 0 || (writer_commands.empty() && writer_daemons.empty())) {
        campaign.writers = parse_writer_specs(writers_spec);
      }
      campaign.shard = parse_shard(shard_text);
      const double rate = parse_rate(writer_command_rate);
      for (const auto& command : writer_commands) {
        check_command(command, Role::writer);
        campaign.external_writers.push_back(
            {"cmd-" + std::to_string(campaign.external_writers.size() + 1), command, false, rate});
      }
      for (std::size_t i = 0; i < writer_daemons.size(); ++i) {
        check_command(writer_daemons[i], Role::writer_daemon);
        campaign.external_writers.push_back(
            {"daemon-" + std::to_string(i + 1), writer_daemons[i], true, rate});
      }
      if (!campaign.launcher_command.empty()) {
        check_command(campaign.launcher_command, Role::launcher);
        if (campaign.mode != "launch") throw SpecError("--launcher-cmd is for --mode launch");
      }
      if (!campaign.reader_command.empty()) {
        check_command(campaign.reader_command, Role::reader);
        if (mode_opt->count() == 0) campaign.mode = "snapshot";
        if (campaign.mode != "snapshot") throw SpecError("--reader-cmd is for --mode snapshot");
      }
    } catch (const SpecError& e) {
      std::cerr << "holdfast-race: " << e.what() << "\n";
      exit_code = kUsage;
      return;
    }
    if (campaign.mode == "launch" && (campaign.holdfast.empty() || campaign.probe.empty() ||
                                      ::access(campaign.holdfast.c_str(), X_OK) != 0 ||
                                      ::access(campaign.probe.c_str(), X_OK) != 0)) {
      std::cerr << "holdfast-race: launch mode needs the holdfast and holdfast-probe executables ("
                << campaign.holdfast << ", " << campaign.probe
                << "); the holdfast package installs them beside holdfast-race "
                   "(/usr/bin/holdfast, /usr/libexec/holdfast/holdfast-probe); in a build "
                   "tree, build them; or pass --holdfast and --probe\n";
      exit_code = kUsage;
      return;
    }
    if (campaign.mode == "gatekeeper" &&
        (campaign.holdfast.empty() || ::access(campaign.holdfast.c_str(), X_OK) != 0)) {
      std::cerr << "holdfast-race: gatekeeper mode needs the holdfast executable ("
                << campaign.holdfast << "); build it or pass --holdfast\n";
      exit_code = kUsage;
      return;
    }
    // A user's reader is a process a trial; the naive control reads in
    // process, as fast as ever.
    campaign.trials = starts > 0                         ? starts
                      : campaign.mode == "launch"        ? 200
                      : campaign.mode == "gatekeeper"    ? 500
                      : !campaign.reader_command.empty() ? 500
                                                         : 200000;
    if (!campaign.reader_command.empty() && campaign.control_trials == 0) {
      campaign.control_trials = 200000;
    }
    campaign.evidence_dir = fs::absolute(evidence_dir.empty() ? fs::path("holdfast-race-evidence")
                                                              : fs::path(evidence_dir));
    campaign.work_dir = work_dir.empty() ? default_work_dir() : fs::path(work_dir);
    campaign.workspace_dir =
        workspace_dir.empty() ? fs::temp_directory_path() : fs::path(workspace_dir);
    campaign.self = self;
    campaign.progress = progress;
    try {
      const CampaignResult result = run_campaign(campaign);
      std::cout << campaign_table(result, campaign_thresholds);
      exit_code = exit_code_of(verdict_of(result, campaign_thresholds));
      if (!write_json(campaign_json, to_json(result)) ||
          !write_text(campaign_junit, junit_xml({{result}, {}}, campaign_thresholds))) {
        exit_code = static_cast<int>(Verdict::errors);
      }
    } catch (const std::exception& e) {
      std::cerr << "holdfast-race: " << e.what() << "\n";
      exit_code = static_cast<int>(Verdict::errors);
    }
  });

  // crash
  CrashOptions crash;
  std::string crash_json;
  std::string crash_shard = "1/1";
  std::string crash_dir;
  auto* crash_cmd = app.add_subcommand(
      "crash", "Kill writers with SIGKILL at every step and at random points; check what is left");
  crash_cmd->add_option("--writer", crash.writers, "Writer to kill (repeatable; default: all four)")
      ->check(CLI::IsMember(crash_writer_names()));
  crash_cmd->add_option("--rounds", crash.rounds, "Rounds per writer and kill point")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  crash_cmd->add_option("--seed", crash.seed, "Seed for random kill points")->capture_default_str();
  crash_cmd->add_option("--shard", crash_shard, "Run shard I of N")->capture_default_str();
  crash_cmd->add_option("--json", crash_json, "Write the result (for report) to FILE");
  crash_cmd->add_option("--dir", crash_dir, "Where the settings files go (default /dev/shm)");
  crash_cmd->callback([&] {
    try {
      crash.shard = parse_shard(crash_shard);
    } catch (const SpecError& e) {
      std::cerr << "holdfast-race: " << e.what() << "\n";
      exit_code = kUsage;
      return;
    }
    if (crash.writers.empty()) crash.writers = crash_writer_names();
    crash.work_dir = crash_dir.empty() ? default_work_dir() : fs::path(crash_dir);
    crash.progress = progress;
    try {
      const CrashResult result = run_crash_campaign(crash);
      std::cout << crash_table(result);
      exit_code = exit_code_of(verdict_of(result));
      if (!write_json(crash_json, to_json(result))) exit_code = static_cast<int>(Verdict::errors);
    } catch (const std::exception& e) {
      std::cerr << "holdfast-race: " << e.what() << "\n";
      exit_code = static_cast<int>(Verdict::errors);
    }
  });

  // report
  std::vector<std::string> files;
  std::string html_out;
  std::string report_junit;
  Thresholds report_thresholds;
  auto* report = app.add_subcommand(
      "report",
      "Merge result files (shards), print the tables, and optionally write HTML and JUnit XML");
  report->add_option("files", files, "Result files written with --json")->required();
  report->add_option("--html", html_out, "Write an HTML page with SVG charts to OUT");
  report->add_option("--junit", report_junit, "Write JUnit XML (a test case per phase) to FILE");
  add_threshold_options(report, report_thresholds);
  report->callback([&] {
    try {
      const Merged merged = merge_files(files);
      for (const auto& c : merged.campaigns) {
        std::cout << campaign_table(c, report_thresholds) << "\n";
      }
      for (const auto& c : merged.crashes) std::cout << crash_table(c) << "\n";
      const Verdict verdict = overall_verdict(merged, report_thresholds);
      std::cout << "overall verdict: " << verdict_name(verdict) << "\n";
      exit_code = exit_code_of(verdict);
      if (!write_text(html_out, html_report(merged, report_thresholds)) ||
          !write_text(report_junit, junit_xml(merged, report_thresholds))) {
        exit_code = kUsage;
      }
    } catch (const std::exception& e) {
      std::cerr << "holdfast-race: " << e.what() << "\n";
      exit_code = kUsage;
    }
  });

  // writer (started by campaign; not for people)
  WriterLoopOptions writer;
  std::string target;
  std::int64_t pause_us = 0;
  auto* writer_cmd = app.add_subcommand("writer", "(internal) One writer process of a campaign");
  writer_cmd->group("");
  writer_cmd->add_option("name", writer.writer)->required()->check(CLI::IsMember(writer_names()));
  writer_cmd->add_option("--target", target)->required();
  writer_cmd->add_option("--rate", writer.rate);
  writer_cmd->add_option("--seed", writer.seed);
  writer_cmd->add_option("--pause-us", pause_us)->check(CLI::NonNegativeNumber);
  writer_cmd->callback([&] {
    writer.target = target;
    writer.pause = std::chrono::microseconds(pause_us);
    exit_code = run_writer(writer);
  });

  // writer-cmd (started by campaign for --writer-cmd and --writer-daemon)
  ExternalWriterLoopOptions external;
  std::string external_target;
  std::string external_scratch;
  std::string external_evidence;
  bool no_check = false;
  auto* external_cmd =
      app.add_subcommand("writer-cmd", "(internal) One user's writer of a campaign");
  external_cmd->group("");
  external_cmd->add_option("name", external.writer.name)->required();
  external_cmd->add_option("--command", external.writer.command)->required();
  external_cmd->add_flag("--daemon", external.writer.daemon);
  external_cmd->add_option("--target", external_target)->required();
  external_cmd->add_option("--scratch", external_scratch)->required();
  external_cmd->add_option("--evidence", external_evidence);
  external_cmd->add_option("--rate", external.writer.rate)->check(CLI::NonNegativeNumber);
  external_cmd->add_option("--seed", external.seed);
  external_cmd->add_flag("--no-check", no_check);
  external_cmd->callback([&] {
    external.target = external_target;
    external.scratch = external_scratch;
    external.evidence_dir = external_evidence;
    external.check = !no_check;
    exit_code = run_external_writer(external);
  });

  // After the subcommands, which would inherit it: the contract is for
  // holdfast-race --help (and its man page) and campaign --help.
  app.footer(contract_help());
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kUsage;
  }
  return exit_code;
}
