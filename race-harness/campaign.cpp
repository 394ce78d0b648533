#include "race-harness/campaign.hpp"

#include <linux/magic.h>
#include <stdlib.h>
#include <sys/statfs.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "base/files.hpp"
#include "race-harness/documents.hpp"
#include "race-harness/evidence.hpp"
#include "race-harness/external_launcher.hpp"
#include "race-harness/process.hpp"
#include "race-harness/trials.hpp"
#include "race-harness/writers.hpp"
#include "settings/snapshot.hpp"

namespace holdfast::race {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxSamples = 10;
constexpr std::size_t kMaxTimelinePoints = 400;
constexpr auto kWriterReady = std::chrono::seconds(20);
constexpr auto kWriterGrace = std::chrono::seconds(3);

struct PhasePlan {
  std::string name;
  std::string reader;
  std::vector<WriterSpec> writers;
  bool control = false;
  std::vector<ExternalWriter> external;  // the user's writers in this phase
  std::size_t writer_count() const { return writers.size() + external.size(); }
};

std::string format_external_spec(const ExternalWriter& writer) {
  return format_writer_spec({writer.name, writer.rate, std::nullopt});
}

// Who the phases that are not controls race: holdfast, or the user's own.
std::string subject_of(const CampaignOptions& options) {
  if (!options.launcher_command.empty()) return "launcher-cmd";
  if (!options.reader_command.empty()) return "reader-cmd";
  return "holdfast";
}

std::vector<PhasePlan> plan_phases(const CampaignOptions& options) {
  const auto& writers = options.writers;
  std::vector<PhasePlan> phases;
  // A control's writer runs back to back, whatever rate --writers says (its
  // pause is kept): its job is to show that this machine and this harness
  // can see that writer's gap. Every writer that leaves a gap gets one; when
  // none does, rename-backup's (the seeds' writer) shows that the harness
  // sees a race at all.
  for (const auto& w : writers) {
    const WriterKind* kind = find_writer_kind(w.name);
    if (!kind->leaves_gap) continue;
    // A launch's policy never comes from the workspace: there is no gap in
    // it for a naive launcher to fall into.
    if (options.mode == "launch" && kind->target == WriterKind::Target::workspace_files) continue;
    phases.push_back(
        {"naive vs " + w.name + " (control)", "naive", {{w.name, 0, w.pause}}, true, {}});
  }
  // A user's writer may leave a gap or not: it gets a control of its own,
  // back to back, and a campaign whose control never saw a gap proves
  // nothing about readers under that writer.
  for (auto e : options.external_writers) {
    e.rate = 0;
    phases.push_back({"naive vs " + e.name + " (control)", "naive", {}, true, {e}});
  }
  if (phases.empty()) {
    phases.push_back({"naive vs rename-backup (control)",
                      "naive",
                      {{"rename-backup", 0, std::nullopt}},
                      true,
                      {}});
  }
  if (options.controls_only) return phases;
  const std::string subject = subject_of(options);
  const std::size_t count = writers.size() + options.external_writers.size();
  if (!options.mixed_only || count == 1) {
    for (const auto& w : writers) {
      phases.push_back({subject + " vs " + w.name, subject, {w}, false, {}});
    }
    for (const auto& e : options.external_writers) {
      phases.push_back({subject + " vs " + e.name, subject, {}, false, {e}});
    }
  }
  if (count > 1 && !options.skip_mixed) {
    phases.push_back({subject + " vs mixed", subject, writers, false, options.external_writers});
  }
  return phases;
}

// The shared state of one phase's launcher threads.
struct Counters {
  std::atomic<std::uint64_t> claimed{0};
  std::atomic<std::uint64_t> trials{0};
  std::atomic<std::uint64_t> honoured{0};
  std::atomic<std::uint64_t> violated{0};
  std::atomic<std::uint64_t> refused{0};
  std::atomic<std::uint64_t> errors{0};
  std::mutex mutex;  // guards the rest
  std::condition_variable finished_changed;
  int finished = 0;
  double child_seconds = 0;
  double loop_seconds = 0;
  std::vector<std::string> samples;
  std::map<std::string, std::uint64_t> violation_kinds;
  // Where a violation's evidence goes; empty: none is kept (the controls,
  // whose violations are expected).
  fs::path evidence_dir;
  std::vector<Evidence> evidence;
};

// A violation's evidence, written under the counters' lock (at most
// kMaxEvidence files a phase).
void keep(Counters& counters, const Trial& trial) {
  if (counters.evidence_dir.empty() || trial.evidence.is_null() ||
      counters.evidence.size() >= kMaxEvidence) {
    return;
  }
  nlohmann::json record = trial.evidence;
  record["kind"] = trial.kind;
  record["note"] = trial.note;
  const std::string name = "trial-" + std::to_string(counters.evidence.size() + 1) + ".json";
  counters.evidence.push_back(
      {trial.kind, trial.note, keep_evidence(counters.evidence_dir, name, record.dump(1) + "\n")});
}

void record(Counters& counters, const Trial& trial) {
  if (trial.outcome == Outcome::violated) {
    std::lock_guard lock(counters.mutex);
    ++counters.violation_kinds[trial.kind.empty() ? "violated" : trial.kind];
    keep(counters, trial);
  }
  switch (trial.outcome) {
    case Outcome::honoured:
      ++counters.honoured;
      break;
    case Outcome::violated:
      ++counters.violated;
      break;
    case Outcome::refused:
      ++counters.refused;
      break;
    case Outcome::error:
      ++counters.errors;
      break;
  }
  ++counters.trials;
  if (trial.outcome != Outcome::honoured) {
    const char* kind = trial.outcome == Outcome::violated  ? "violated"
                       : trial.outcome == Outcome::refused ? "refused"
                                                           : "error";
    std::lock_guard lock(counters.mutex);
    if (counters.samples.size() < kMaxSamples) {
      counters.samples.push_back(std::string(kind) + ": " + trial.note);
    }
  }
}

struct PhaseDirs {
  TrialSetup setup;
  std::vector<fs::path> workspaces;
};

bool any_writer(const PhasePlan& plan, const std::function<bool(const WriterKind&)>& test) {
  for (const auto& w : plan.writers) {
    if (test(*find_writer_kind(w.name))) return true;
  }
  return false;
}

fs::path workspace_file(const fs::path& workspace) {
  return workspace / ".holdfast" / "settings.json";
}

// The files a writer of `kind` saves in this phase.
std::vector<fs::path> targets_of(const WriterKind& kind, const PhaseDirs& dirs) {
  std::vector<fs::path> targets;
  if (kind.target != WriterKind::Target::workspace_files) targets.push_back(dirs.setup.user_file);
  if (kind.target != WriterKind::Target::user_file) {
    for (const auto& w : dirs.workspaces) targets.push_back(workspace_file(w));
  }
  return targets;
}

PhaseDirs make_phase_dirs(const fs::path& root, const fs::path& workspace_root,
                          const PhasePlan& plan, const CampaignOptions& options,
                          const fs::path& state_dir) {
  PhaseDirs dirs;
  auto& paths = dirs.setup.paths;
  paths.system_dir = root / "system";
  paths.config_dir = root / "config";
  const bool sparse = any_writer(plan, [](const WriterKind& k) { return k.sparse_layout; });
  dirs.setup.workspace_raced = any_writer(
      plan, [](const WriterKind& k) { return k.target == WriterKind::Target::workspace_files; });
  fs::create_directories(paths.config_dir);
  // The other operator scopes exist and are valid, so a reader decides on
  // them at once; only the user file is raced. (A sparse phase has no
  // system directory, as most hosts.)
  if (!sparse) {
    fs::create_directories(paths.system_dir);
    base::write_file(paths.system_dir / "system-defaults.json", "{}\n");
    base::write_file(paths.system_dir / "settings.json", "{}\n");
  }
  dirs.setup.user_file = paths.config_dir / "settings.json";
  std::vector<std::string> writer_names;  // the built-in ones: a symlink writer needs a link
  for (const auto& w : plan.writers) writer_names.push_back(w.name);
  // When the workspace file is raced, the deny rule is there alone.
  create_initial_target(writer_names, dirs.setup.user_file,
                        dirs.setup.workspace_raced ? policy_text_without_deny(0) : policy_text(0));
  dirs.setup.holdfast = options.holdfast;
  dirs.setup.probe = options.probe;
  dirs.setup.state_dir = state_dir;
  paths.state_dir = state_dir;  // the in-process reader remembers what it has seen
  dirs.setup.empty_config_dir = root / "no-user-file";
  dirs.setup.empty_state_dir = root / "state-that-saw-nothing";
  dirs.setup.naive_views_dir = root / "naive-views";
  fs::create_directories(dirs.setup.empty_config_dir);
  fs::create_directories(dirs.setup.empty_state_dir);
  fs::permissions(dirs.setup.empty_state_dir, fs::perms::owner_all);
  for (int i = 0; i < options.launchers; ++i) {
    const fs::path workspace = workspace_root / ("workspace-" + std::to_string(i));
    fs::create_directories(workspace);
    if (!sparse) {
      fs::create_directories(workspace / ".holdfast");
      base::write_file(workspace_file(workspace),
                       dirs.setup.workspace_raced ? workspace_text(0) : std::string("{}\n"));
    }
    base::write_file(workspace / "marker", "the probe must be able to read this\n");
    base::write_file(workspace / kDeniedName, "the operator's policy denies reading this\n");
    // A copy of the probe inside the workspace, the one place below the
    // campaign's root that the sandbox shows (its /tmp is private).
    if (!options.probe.empty()) {
      fs::copy_file(options.probe, workspace / "holdfast-probe",
                    fs::copy_options::overwrite_existing);
    }
    dirs.workspaces.push_back(workspace);
  }
  return dirs;
}

struct RunningWriter {
  std::string name;
  std::unique_ptr<ReportingChild> child;
};

// holdfast's first reading of a phase's settings, before any writer starts.
// Every real installation is in this state once it has launched once after
// the operator saved the policy: holdfast has seen the user file (and keeps
// that in its state directory). Racing a holdfast that has never read the
// settings would test only the very first launch ever.
// (With each workspace: its file is raced in some phases, and read by every
// launch and check in all of them.)
void read_once_before_the_writers(const PhaseDirs& dirs, PhaseResult& result) {
  for (const auto& workspace : dirs.workspaces) {
    settings::ScopePaths paths = dirs.setup.paths;
    paths.workspace = workspace;
    try {
      const auto snapshot = settings::take_snapshot(paths);
      if (is_strict_policy(snapshot.effective.value) &&
          (!dirs.setup.workspace_raced || has_deny_rule(snapshot.effective.value))) {
        continue;
      }
      result.samples.push_back("error: the first reading, before any writer, lacks the policy: " +
                               snapshot.effective.value.dump());
    } catch (const std::exception& e) {
      result.samples.push_back(std::string("error: the first reading, before any writer: ") +
                               e.what());
    }
    ++result.errors;
    return;
  }
}

// Where a phase's evidence goes: DIR/PHASE, or DIR/shard-I-of-N/PHASE.
fs::path evidence_dir_of(const CampaignOptions& options, const std::string& phase) {
  if (options.evidence_dir.empty()) return {};
  fs::path dir = options.evidence_dir;
  if (options.shard.count > 1) {
    dir /= "shard-" + std::to_string(options.shard.index) + "-of-" +
           std::to_string(options.shard.count);
  }
  return dir / slug(phase);
}

PhaseResult run_phase(const PhasePlan& plan, const CampaignOptions& options, int phase_index,
                      const fs::path& state_dir) {
  PhaseResult result;
  result.name = plan.name;
  result.reader = plan.reader;
  result.control = plan.control;
  for (const auto& w : plan.writers) result.writers.push_back(format_writer_spec(w));
  for (const auto& e : plan.external) result.writers.push_back(format_external_spec(e));

  ScratchDir root(options.work_dir, "phase");
  ScratchDir workspaces(options.workspace_dir, "workspaces");
  const PhaseDirs dirs = make_phase_dirs(root.path(), workspaces.path(), plan, options, state_dir);
  read_once_before_the_writers(dirs, result);
  const fs::path evidence_dir = evidence_dir_of(options, plan.name);

  std::vector<RunningWriter> writers;
  for (std::size_t i = 0; i < plan.writers.size(); ++i) {
    const auto& w = plan.writers[i];
    char rate[32];
    std::snprintf(rate, sizeof rate, "%g", w.rate);
    const auto targets = targets_of(*find_writer_kind(w.name), dirs);
    for (std::size_t t = 0; t < targets.size(); ++t) {
      const auto seed =
          derive_seed(options.seed, 1000 * static_cast<std::uint64_t>(phase_index) + 100 * t + i);
      writers.push_back(
          {w.name, std::make_unique<ReportingChild>(std::vector<std::string>{
                       options.self, "writer", w.name, "--target", targets[t].string(), "--rate",
                       rate, "--pause-us", std::to_string(pause_of(w).count()), "--seed",
                       std::to_string(seed)})});
    }
  }
  for (std::size_t i = 0; i < plan.external.size(); ++i) {
    ExternalWriterLoopOptions writer;
    writer.writer = plan.external[i];
    writer.target = dirs.setup.user_file;
    writer.scratch = root.path() / ("documents-" + plan.external[i].name);
    writer.evidence_dir = evidence_dir;
    writer.check = plan.writer_count() == 1;  // another writer's save is no finding
    writer.seed =
        derive_seed(options.seed, 1000 * static_cast<std::uint64_t>(phase_index) + 500 + i);
    writers.push_back({plan.external[i].name, std::make_unique<ReportingChild>(
                                                  external_writer_argv(options.self, writer))});
  }
  bool writers_ready = true;
  for (auto& w : writers) {
    const std::string line = w.child->read_line(kWriterReady);
    if (line != "ready") {
      writers_ready = false;
      result.samples.push_back("error: writer " + w.name + " did not complete a save (said \"" +
                               line + "\")");
    }
  }

  Counters counters;
  if (!plan.control) counters.evidence_dir = evidence_dir;
  std::optional<HostPort> host_port;
  if (plan.reader == "launcher-cmd") host_port.emplace();
  const ExternalSubject subject{
      plan.reader == "launcher-cmd" ? options.launcher_command : options.reader_command,
      options.refusal_exit, host_port ? host_port->port() : 0};
  const std::uint64_t total =
      plan.control && options.control_trials > 0 ? options.control_trials : options.trials;
  const std::uint64_t wanted = options.seconds > 0 ? 0 : shard_share(total, options.shard);
  const auto started = Clock::now();
  const auto deadline =
      started + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(options.seconds > 0 ? options.seconds : 0));
  const auto run_trial = [&](int launcher) {
    if (plan.reader == "launcher-cmd") {
      return external_launch_trial(subject, dirs.setup, dirs.workspaces[launcher]);
    }
    if (plan.reader == "reader-cmd") return external_read_trial(subject, dirs.setup);
    if (options.mode == "launch") {
      return launch_trial(plan.reader, dirs.setup, dirs.workspaces[launcher]);
    }
    if (options.mode == "gatekeeper") {
      return gatekeeper_trial(plan.reader, dirs.setup, dirs.workspaces[launcher]);
    }
    return snapshot_trial(plan.reader, dirs.setup, dirs.workspaces[launcher]);
  };
  std::vector<std::thread> threads;
  const int thread_count = writers_ready ? options.launchers : 0;
  for (int t = 0; t < thread_count; ++t) {
    threads.emplace_back([&, t] {
      double child_seconds = 0;
      const auto loop_started = Clock::now();
      for (;;) {
        if (options.seconds > 0) {
          if (Clock::now() >= deadline) break;
        } else if (counters.claimed.fetch_add(1) >= wanted) {
          break;
        }
        const Trial trial = run_trial(t);
        child_seconds += trial.child_seconds;
        record(counters, trial);
      }
      const double loop_seconds =
          std::chrono::duration<double>(Clock::now() - loop_started).count();
      std::lock_guard lock(counters.mutex);
      counters.child_seconds += child_seconds;
      counters.loop_seconds += loop_seconds;
      ++counters.finished;
      counters.finished_changed.notify_all();
    });
  }

  // Progress points, taken while the launchers work (a measurement, not
  // synchronisation: the loop ends on the launchers' "finished" event).
  auto& timeline = result.timelines[options.shard.index];
  auto interval = std::chrono::milliseconds(100);
  const auto sample = [&] {
    timeline.push_back({std::chrono::duration<double>(Clock::now() - started).count(),
                        counters.trials.load(), counters.violated.load(), counters.refused.load()});
    if (timeline.size() >= kMaxTimelinePoints) {
      std::vector<TimelinePoint> kept;
      for (std::size_t i = 0; i < timeline.size(); i += 2) kept.push_back(timeline[i]);
      timeline = std::move(kept);
      interval *= 2;
    }
  };
  {
    std::unique_lock lock(counters.mutex);
    while (counters.finished < thread_count) {
      counters.finished_changed.wait_for(lock, interval,
                                         [&] { return counters.finished >= thread_count; });
      lock.unlock();
      sample();
      lock.lock();
    }
  }
  for (auto& thread : threads) thread.join();
  if (timeline.empty() || timeline.back().trials != counters.trials.load()) sample();
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();

  for (auto& w : writers) {
    const int status = w.child->stop(kWriterGrace);
    const std::string line = w.child->read_line(kWriterGrace);
    const auto stats = nlohmann::json::parse(line, nullptr, false);
    WriterStats& out = result.writer_stats[w.name];  // summed over the writer's targets
    if (stats.is_object() && stats.contains("saves")) {
      out.saves += stats["saves"].get<std::uint64_t>();
      out.failures += stats["failures"].get<std::uint64_t>();
      out.findings += stats.value("findings", std::uint64_t{0});
      for (const auto& e : stats.value("evidence", nlohmann::json::array())) {
        if (result.evidence.size() < kMaxEvidence) result.evidence.push_back(evidence_from(e));
      }
    } else {
      result.samples.push_back("error: writer " + w.name + " gave no counts (exit " +
                               std::to_string(base::exit_code(status)) + ")");
      ++result.errors;
    }
  }
  if (!writers_ready) ++result.errors;

  result.trials = counters.trials;
  result.honoured = counters.honoured;
  result.violated = counters.violated;
  result.refused = counters.refused;
  result.errors += counters.errors;
  result.violation_kinds = counters.violation_kinds;
  result.child_seconds = counters.child_seconds;
  result.loop_seconds = counters.loop_seconds;
  for (auto& s : counters.samples) {
    if (result.samples.size() < kMaxSamples) result.samples.push_back(std::move(s));
  }
  for (auto& e : counters.evidence) {
    if (result.evidence.size() < kMaxEvidence) result.evidence.push_back(std::move(e));
  }
  return result;
}

}  // namespace

std::string file_system_name(const fs::path& path) {
  struct statfs info {};
  if (::statfs(path.c_str(), &info) != 0) return "unknown";
  if (info.f_type == TMPFS_MAGIC) return "tmpfs";
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%lx", static_cast<unsigned long>(info.f_type));
  return hex;
}

ScratchDir::ScratchDir(const fs::path& base, const std::string& tag) {
  std::string pattern = (base / ("holdfast-race-" + tag + ".XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot make a directory in " + base.string() + ": " +
                             std::strerror(errno));
  }
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

CampaignResult run_campaign(const CampaignOptions& options) {
  CampaignResult result;
  result.mode = options.mode;
  result.seed = options.seed;
  result.shard_index = options.shard.index;
  result.shard_count = options.shard.count;
  result.launchers = options.launchers;
  result.settings_dir = options.work_dir.string();
  result.settings_fs = file_system_name(options.work_dir);
  if (options.mode != "snapshot") result.holdfast = options.holdfast;
  if (options.mode == "launch") result.probe = options.probe;
  for (const auto& w : options.writers) result.writers.push_back(format_writer_spec(w));
  for (const auto& e : options.external_writers) {
    result.writers.push_back(format_external_spec(e));
    result.commands[e.name] = e.command;
  }
  if (!options.launcher_command.empty()) result.commands["launcher-cmd"] = options.launcher_command;
  if (!options.reader_command.empty()) result.commands["reader-cmd"] = options.reader_command;
  // holdfast's memory of the settings it has seen, fresh for this campaign
  // (this shard): for the in-process snapshots through our environment,
  // set here before any thread or child starts, and for every holdfast
  // process through the environment each trial passes on.
  ScratchDir state(options.work_dir, "state");
  ::setenv("HOLDFAST_STATE_DIR", state.path().c_str(), 1);
  const auto phases = plan_phases(options);
  for (std::size_t i = 0; i < phases.size(); ++i) {
    PhaseResult phase = run_phase(phases[i], options, static_cast<int>(i), state.path());
    if (options.progress) {
      char line[256];
      std::snprintf(line, sizeof line,
                    "%-36s %8llu trials %6llu violated %6llu refused %4llu errors %7.1f s "
                    "%9.1f/s",
                    phase.name.c_str(), static_cast<unsigned long long>(phase.trials),
                    static_cast<unsigned long long>(phase.violated),
                    static_cast<unsigned long long>(phase.refused),
                    static_cast<unsigned long long>(phase.errors), phase.seconds,
                    phase.seconds > 0 ? phase.trials / phase.seconds : 0.0);
      options.progress(line);
    }
    result.phases.push_back(std::move(phase));
  }
  return result;
}

}  // namespace holdfast::race
