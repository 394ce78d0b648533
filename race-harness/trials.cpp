#include "race-harness/trials.hpp"

#include <nlohmann/json.hpp>

#include "race-harness/documents.hpp"
#include "settings/errors.hpp"
#include "settings/snapshot.hpp"
#include "settings/strict_modes.hpp"

namespace holdfast::race {

namespace fs = std::filesystem;

namespace {

constexpr int kRefusedExit = 125;  // holdfast run: holdfast refused or failed

// A message on one line (bwrap's own message comes before holdfast's).
std::string first_line(const std::string& text) {
  std::string line;
  for (const char c : text) line += c == '\n' ? '|' : c;
  while (!line.empty() && line.back() == '|') line.pop_back();
  return line.size() > 400 ? line.substr(0, 400) + "..." : line;
}

std::vector<std::string> probe_args(const TrialSetup& /*setup*/, const fs::path& workspace) {
  // The workspace's own copy of the probe: the sandbox hides the rest of
  // /tmp (and the build tree may be there).
  return {(workspace / "holdfast-probe").string(), "read:" + (workspace / "marker").string(),
          "write:" + (workspace / "probe-write").string(), "socket-inet"};
}

}  // namespace

Trial snapshot_trial(const std::string& reader, const TrialSetup& setup) {
  Trial trial;
  if (reader == "naive") {
    const NaiveReading reading = read_naively(setup.user_file);
    if (naive_runs_unconfined(reading)) {
      trial.outcome = Outcome::violated;
      trial.note = reading.kind == NaiveReading::Kind::missing ? "file missing" : "file damaged";
    } else {
      trial.outcome = Outcome::honoured;
    }
    return trial;
  }
  try {
    const auto snapshot = settings::take_snapshot(setup.paths);
    if (is_strict_policy(snapshot.effective.value)) {
      trial.outcome = Outcome::honoured;
    } else {
      trial.outcome = Outcome::violated;
      trial.note = "snapshot without the policy: " + snapshot.effective.value.dump();
    }
  } catch (const settings::InvalidSettings& e) {
    trial.outcome = Outcome::refused;
    trial.note = first_line(e.what());
  } catch (const settings::SnapshotError& e) {
    trial.outcome = Outcome::refused;
    trial.note = first_line(e.what());
  } catch (const settings::UnsafeSettingsFile& e) {
    trial.outcome = Outcome::refused;
    trial.note = first_line(e.what());
  } catch (const std::exception& e) {
    trial.outcome = Outcome::error;
    trial.note = first_line(e.what());
  }
  return trial;
}

Trial classify_start(const Captured& captured, const fs::path& workspace) {
  Trial trial;
  trial.child_seconds = captured.seconds;
  const int code = exit_status(captured.status);
  if (code == kRefusedExit) {
    trial.outcome = Outcome::refused;
    trial.note = first_line(captured.err);
    return trial;
  }
  if (code != 0) {
    trial.outcome = Outcome::error;
    trial.note = "exit " + std::to_string(code) + ": " + first_line(captured.err);
    return trial;
  }
  const auto output = nlohmann::json::parse(captured.out, nullptr, false);
  if (output.is_discarded() || !output.contains("results")) {
    trial.outcome = Outcome::error;
    trial.note = "no probe output: " + first_line(captured.out);
    return trial;
  }
  bool saw_marker = false;
  bool wrote = false;
  bool inet = false;
  for (const auto& result : output["results"]) {
    const auto check = result.value("check", std::string());
    const bool allowed = result.value("allowed", false);
    if (check == "read:" + (workspace / "marker").string()) saw_marker = allowed;
    if (check.starts_with("write:")) wrote = allowed;
    if (check == "socket-inet") inet = allowed;
  }
  if (!saw_marker) {
    // The probe could not see the workspace: its "cannot write" would mean
    // nothing.
    trial.outcome = Outcome::error;
    trial.note = "the probe could not read the workspace marker: " + first_line(captured.out);
  } else if (wrote || inet) {
    trial.outcome = Outcome::violated;
    trial.note = std::string(wrote ? "workspace writable" : "") + (wrote && inet ? ", " : "") +
                 (inet ? "AF_INET socket allowed" : "");
  } else {
    trial.outcome = Outcome::honoured;
  }
  return trial;
}

Trial launch_trial(const std::string& reader, const TrialSetup& setup, const fs::path& workspace) {
  const std::map<std::string, std::string> environment = {
      {"HOLDFAST_SYSTEM_DIR", setup.paths.system_dir.string()},
      {"HOLDFAST_CONFIG_DIR", setup.paths.config_dir.string()}};
  std::vector<std::string> argv;
  if (reader == "naive" && naive_runs_unconfined(read_naively(setup.user_file))) {
    argv = probe_args(setup, workspace);  // "no policy": the seeds' launcher runs it as is
  } else {
    argv = {setup.holdfast,     "run", "--workspace", workspace.string(), "--cwd",
            workspace.string(), "--"};
    for (auto& arg : probe_args(setup, workspace)) argv.push_back(std::move(arg));
  }
  try {
    return classify_start(run_captured(argv, environment), workspace);
  } catch (const std::exception& e) {
    Trial trial;
    trial.note = first_line(e.what());
    return trial;
  }
}

}  // namespace holdfast::race
