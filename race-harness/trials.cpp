#include "race-harness/trials.hpp"

#include <nlohmann/json.hpp>

#include "base/files.hpp"
#include "race-harness/documents.hpp"
#include "settings/errors.hpp"
#include "settings/snapshot.hpp"
#include "settings/strict_modes.hpp"

namespace holdfast::race {

namespace fs = std::filesystem;

namespace {

// holdfast check's exit codes.
constexpr int kCheckAllow = 0;
constexpr int kCheckError = 1;  // invalid settings or unreadable settings: nothing decided
constexpr int kCheckAsk = 10;
constexpr int kCheckDeny = 11;

// A message on one line (bwrap's own message comes before holdfast's).
std::string first_line(const std::string& text) {
  std::string line;
  for (const char c : text) line += c == '\n' ? '|' : c;
  while (!line.empty() && line.back() == '|') line.pop_back();
  return line.size() > 400 ? line.substr(0, 400) + "..." : line;
}

std::map<std::string, std::string> holdfast_environment(const TrialSetup& setup) {
  return {{"HOLDFAST_SYSTEM_DIR", setup.paths.system_dir.string()},
          {"HOLDFAST_CONFIG_DIR", setup.paths.config_dir.string()},
          {"HOLDFAST_STATE_DIR", setup.state_dir.string()}};
}

// The settings exactly as the naive reader saw its policy, for holdfast to
// decide on: the bytes it read, in a config directory of the launcher's own
// (named after its workspace), with a state directory of its own. The seeds'
// launcher enforces what it read once; asking holdfast with the live
// directory instead would make the control wait out the writer's next gap
// (a control runs its writer back to back) and measure holdfast, not the
// naive reader.
std::map<std::string, std::string> as_the_naive_reader_saw_it(const TrialSetup& setup,
                                                              const fs::path& workspace,
                                                              const NaiveReading& reading) {
  const fs::path view = setup.naive_views_dir / workspace.filename();
  const fs::path config = view / "config";
  const fs::path state = view / "state";
  fs::create_directories(config);
  fs::create_directories(state);
  fs::permissions(state, fs::perms::owner_all);
  // Replaced by a rename, never missing: its state directory remembers it.
  const fs::path temp = config / "settings.json.next";
  base::write_file(temp, reading.bytes);
  fs::rename(temp, config / "settings.json");
  auto environment = holdfast_environment(setup);
  environment["HOLDFAST_CONFIG_DIR"] = config.string();
  environment["HOLDFAST_STATE_DIR"] = state.string();
  return environment;
}

// The trial of a process that ran: its time, and refused when it exited
// with holdfast's refusal code `refused_exit` (stderr says why); otherwise
// still to be classified.
Trial finished(const Captured& captured, int refused_exit) {
  Trial trial;
  trial.child_seconds = captured.seconds;
  if (base::exit_code(captured.status) == refused_exit) {
    trial.outcome = Outcome::refused;
    trial.note = first_line(captured.err);
  }
  return trial;
}

}  // namespace

std::vector<std::string> probe_args(const fs::path& workspace, const std::string& network_check) {
  // The workspace's own copy of the probe: the sandbox hides the rest of
  // /tmp (and the build tree may be there).
  return {(workspace / "holdfast-probe").string(), "read:" + (workspace / "marker").string(),
          "write:" + (workspace / "probe-write").string(), network_check};
}

Trial with_reader_view(Trial trial, const std::string& seen_as) {
  if (trial.outcome == Outcome::violated && !seen_as.empty()) {
    trial.note = seen_as + ", so " + trial.note;
    trial.kind = seen_as;
  }
  return trial;
}

namespace {

fs::path raced_workspace_file(const fs::path& workspace) {
  return workspace / ".holdfast" / "settings.json";
}

// What the naive reader takes the deny-bearing file to say, when the
// workspace file is raced: a missing or damaged file is "no rules" to it.
bool naive_loses_the_workspace_deny(const NaiveReading& reading) { return !reading.denies; }

}  // namespace

Trial snapshot_trial(const std::string& reader, const TrialSetup& setup,
                     const fs::path& workspace) {
  Trial trial;
  if (reader == "naive") {
    const NaiveReading reading =
        read_naively(setup.workspace_raced ? raced_workspace_file(workspace) : setup.user_file);
    if (setup.workspace_raced ? naive_loses_the_workspace_deny(reading)
                              : naive_runs_unconfined(reading)) {
      trial.outcome = Outcome::violated;
      trial.kind = describe(reading);
      trial.note = trial.kind;
    } else {
      trial.outcome = Outcome::honoured;
    }
    return trial;
  }
  try {
    settings::ScopePaths paths = setup.paths;
    if (setup.workspace_raced) paths.workspace = workspace;
    const auto snapshot = settings::take_snapshot(paths);
    if (is_strict_policy(snapshot.effective.value) &&
        (!setup.workspace_raced || has_deny_rule(snapshot.effective.value))) {
      trial.outcome = Outcome::honoured;
    } else {
      trial.outcome = Outcome::violated;
      trial.kind = "snapshot without the policy";
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

Trial classify_start(const Captured& captured, const fs::path& workspace, int refused_exit) {
  Trial trial = finished(captured, refused_exit);
  if (trial.outcome == Outcome::refused) return trial;
  const int code = base::exit_code(captured.status);
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
  trial.evidence = {{"probe", output}};
  bool saw_marker = false;
  bool wrote = false;
  bool inet = false;
  bool reached = false;  // a port on the host's loopback (a user's launcher's probe)
  for (const auto& result : output["results"]) {
    const auto check = result.value("check", std::string());
    const bool allowed = result.value("allowed", false);
    if (check == "read:" + (workspace / "marker").string()) saw_marker = allowed;
    if (check.starts_with("write:")) wrote = allowed;
    if (check == "socket-inet") inet = allowed;
    if (check.starts_with("connect-tcp:")) reached = allowed;
  }
  if (!saw_marker) {
    // The probe could not see the workspace: its "cannot write" would mean
    // nothing.
    trial.outcome = Outcome::error;
    trial.note = "the probe could not read the workspace marker: " + first_line(captured.out);
  } else if (wrote || inet || reached) {
    std::vector<std::string> seen;
    if (wrote) seen.emplace_back("workspace writable");
    if (inet) seen.emplace_back("AF_INET socket allowed");
    if (reached) seen.emplace_back("host network reachable");
    trial.outcome = Outcome::violated;
    trial.kind = seen.front();
    for (const auto& what : seen) trial.note += (trial.note.empty() ? "" : ", ") + what;
  } else {
    trial.outcome = Outcome::honoured;
  }
  return trial;
}

Trial launch_trial(const std::string& reader, const TrialSetup& setup, const fs::path& workspace) {
  auto environment = holdfast_environment(setup);
  std::vector<std::string> argv;
  std::string seen_as;
  if (reader == "naive") {
    const NaiveReading reading = read_naively(setup.user_file);
    if (naive_runs_unconfined(reading)) {
      seen_as = describe(reading);
    } else {
      environment = as_the_naive_reader_saw_it(setup, workspace, reading);
    }
  }
  if (!seen_as.empty()) {
    argv = probe_args(workspace);  // "no policy": the seeds' launcher runs it as is
  } else {
    argv = {setup.holdfast,     "run", "--workspace", workspace.string(), "--cwd",
            workspace.string(), "--"};
    for (auto& arg : probe_args(workspace)) argv.push_back(std::move(arg));
  }
  try {
    return with_reader_view(classify_start(run_captured(argv, environment), workspace), seen_as);
  } catch (const std::exception& e) {
    Trial trial;
    trial.note = first_line(e.what());
    return trial;
  }
}

Trial classify_check(const Captured& captured) {
  Trial trial = finished(captured, kCheckError);
  if (trial.outcome == Outcome::refused) return trial;
  const int code = base::exit_code(captured.status);
  const auto output = nlohmann::json::parse(captured.out, nullptr, false);
  const std::string decision =
      output.is_object() ? output.value("decision", std::string()) : std::string();
  const bool agrees = (code == kCheckDeny && decision == "deny") ||
                      (code == kCheckAllow && decision == "allow") ||
                      (code == kCheckAsk && decision == "ask");
  if (!agrees) {
    trial.outcome = Outcome::error;
    trial.note = "exit " + std::to_string(code) + " with " + first_line(captured.out) + " " +
                 first_line(captured.err);
    return trial;
  }
  if (decision == "deny") {
    trial.outcome = Outcome::honoured;
  } else {
    // The operator's deny was not applied: without it a workspace path is
    // allowed (the tool default), and "ask" is no answer to a deny either.
    trial.outcome = Outcome::violated;
    trial.kind = decision;
    trial.note = decision + ": " + output.value("reason", std::string());
  }
  return trial;
}

Trial gatekeeper_trial(const std::string& reader, const TrialSetup& setup,
                       const fs::path& workspace) {
  auto environment = holdfast_environment(setup);
  std::string seen_as;
  if (reader == "naive" && setup.workspace_raced) {
    // The naive reader found no deny in the workspace file: it decides on
    // no workspace rules at all, and the operator scopes here deny nothing.
    const NaiveReading reading = read_naively(raced_workspace_file(workspace));
    if (naive_loses_the_workspace_deny(reading)) {
      Trial trial;
      trial.outcome = Outcome::violated;
      trial.kind = describe(reading);
      trial.note = trial.kind + ", so the workspace's deny was not applied";
      return trial;
    }
  } else if (reader == "naive") {
    const NaiveReading reading = read_naively(setup.user_file);
    if (naive_runs_unconfined(reading)) {
      environment["HOLDFAST_CONFIG_DIR"] = setup.empty_config_dir.string();
      environment["HOLDFAST_STATE_DIR"] = setup.empty_state_dir.string();
      seen_as = describe(reading);
    } else {
      environment = as_the_naive_reader_saw_it(setup, workspace, reading);
    }
  }
  const std::vector<std::string> argv = {setup.holdfast,
                                         "check",
                                         "--json",
                                         "--workspace",
                                         workspace.string(),
                                         "--cwd",
                                         workspace.string(),
                                         "Read",
                                         (workspace / kDeniedName).string()};
  try {
    return with_reader_view(classify_check(run_captured(argv, environment)), seen_as);
  } catch (const std::exception& e) {
    Trial trial;
    trial.note = first_line(e.what());
    return trial;
  }
}

}  // namespace holdfast::race
