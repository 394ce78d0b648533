// holdfast-race: the race harness. Runs the settings writers
// against holdfast's reader and launcher, and against the naive reader from
// the seeds as a positive control; kills writers mid-save; merges and
// reports results. Exit codes: see result.hpp (0 pass, 1 violations,
// 2 usage, 3 insensitive control, 4 harness errors).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "race-harness/campaign.hpp"
#include "race-harness/crash.hpp"
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

fs::path default_work_dir() {
  std::error_code ec;
  return fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
}

void progress(const std::string& line) { std::cerr << line << std::endl; }

bool write_json(const std::string& file, const nlohmann::json& json) {
  if (file.empty()) return true;
  std::ofstream out(file, std::ios::trunc);
  out << json.dump(1) << "\n";
  if (!out) {
    std::cerr << "holdfast-race: cannot write " << file << "; check the directory exists\n";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "holdfast-race: races settings writers against holdfast's reader and launcher.\n"
      "Exit codes: 0 pass; 1 violations (holdfast let the policy go); 2 usage error;\n"
      "3 insensitive (the positive control saw no race: the run proves nothing);\n"
      "4 harness errors (unclassifiable trials, a writer that did not run)."};
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
  campaign.holdfast = HOLDFAST_RACE_DEFAULT_HOLDFAST;
  campaign.probe = HOLDFAST_RACE_DEFAULT_PROBE;
  std::string known_writers;
  for (const auto& name : writer_names())
    known_writers += (known_writers.empty() ? "" : ", ") + name;
  auto* run = app.add_subcommand(
      "campaign",
      "Race writers against readers: the naive controls (vs every writer that leaves a gap, or "
      "rename-backup), then holdfast vs each writer alone and all mixed");
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
                  "Trials of each control phase, over all shards (default: as --starts)");
  run->add_option("--seconds", campaign.seconds, "Run each phase this long (per shard) instead")
      ->excludes(starts_opt)
      ->check(CLI::PositiveNumber);
  run->add_option("--seed", campaign.seed, "Seed for writer pacing")->capture_default_str();
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
  run->callback([&] {
    try {
      campaign.writers = parse_writer_specs(writers_spec);
      campaign.shard = parse_shard(shard_text);
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
                << "); build them or pass --holdfast and --probe\n";
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
    campaign.trials = starts > 0                      ? starts
                      : campaign.mode == "launch"     ? 200
                      : campaign.mode == "gatekeeper" ? 500
                                                      : 200000;
    campaign.work_dir = work_dir.empty() ? default_work_dir() : fs::path(work_dir);
    campaign.workspace_dir =
        workspace_dir.empty() ? fs::temp_directory_path() : fs::path(workspace_dir);
    campaign.self = self_path();
    campaign.progress = progress;
    try {
      const CampaignResult result = run_campaign(campaign);
      std::cout << campaign_table(result);
      exit_code = exit_code_of(verdict_of(result));
      if (!write_json(campaign_json, to_json(result)))
        exit_code = static_cast<int>(Verdict::errors);
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
  auto* report = app.add_subcommand(
      "report", "Merge result files (shards), print the tables, and optionally write HTML");
  report->add_option("files", files, "Result files written with --json")->required();
  report->add_option("--html", html_out, "Write an HTML page with SVG charts to OUT");
  report->callback([&] {
    try {
      const Merged merged = merge_files(files);
      for (const auto& c : merged.campaigns) std::cout << campaign_table(c) << "\n";
      for (const auto& c : merged.crashes) std::cout << crash_table(c) << "\n";
      const Verdict verdict = overall_verdict(merged);
      std::cout << "overall verdict: " << verdict_name(verdict) << "\n";
      exit_code = exit_code_of(verdict);
      if (!html_out.empty()) {
        std::ofstream out(html_out, std::ios::trunc);
        out << html_report(merged);
        if (!out) {
          std::cerr << "holdfast-race: cannot write " << html_out << "\n";
          exit_code = kUsage;
        }
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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kUsage;
  }
  return exit_code;
}
