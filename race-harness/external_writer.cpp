#include "race-harness/external_writer.hpp"

#include <fcntl.h>
#include <signal.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>

#include "base/fd.hpp"
#include "base/files.hpp"
#include "base/process.hpp"
#include "base/system_error.hpp"
#include "race-harness/contract.hpp"
#include "race-harness/documents.hpp"
#include "race-harness/evidence.hpp"
#include "race-harness/process.hpp"
#include "race-harness/stop_signal.hpp"

namespace holdfast::race {

namespace fs = std::filesystem;

namespace {

// How long a long-running writer has to say it saved a document.
constexpr auto kDaemonAnswer = std::chrono::seconds(10);
// Failed saves before any save was made, after which the campaign is told.
constexpr int kFailuresBeforeTelling = 3;

// Waits `seconds` of the writer's pace; a SIGTERM cuts it short.
void wait_for(double seconds) {
  if (seconds <= 0) return;
  const auto whole = static_cast<time_t>(seconds);
  const timespec pause{whole, static_cast<long>((seconds - static_cast<double>(whole)) * 1e9)};
  ::nanosleep(&pause, nullptr);
}

struct SaveOutcome {
  bool saved = false;
  std::string why;     // for a failed save: what the command said
  bool ended = false;  // the long-running writer is gone: no more saves
};

std::map<std::string, std::vector<std::string>> placeholders(const fs::path& target,
                                                             const fs::path& document) {
  std::map<std::string, std::vector<std::string>> values = {
      {"{settings}", {target.string()}}, {"{settings_dir}", {target.parent_path().string()}}};
  if (!document.empty()) values["{file}"] = {document.string()};
  return values;
}

SaveOutcome save_by_command(const ExternalWriterLoopOptions& options, std::uint64_t generation,
                            std::uint64_t number) {
  const fs::path document = options.scratch / "document.json";
  base::write_file(document, policy_text(generation), 0644);
  const base::UniqueFd input(::open(document.c_str(), O_RDONLY | O_CLOEXEC));
  if (!input.valid()) base::throw_errno("cannot open", document);
  auto environment = contract_environment(options.target);
  environment[kEnvDocument] = document.string();
  environment[kEnvSave] = std::to_string(number);
  const std::string command =
      expand_command(options.writer.command, placeholders(options.target, document));
  const base::Captured run = base::run_captured(
      {{"/bin/sh", "-c", command}, base::environment_with(environment), {}, {{input.get(), 0}}});
  const int code = base::exit_code(run.status);
  if (code == 0) return {true, {}, false};
  return {false, "exit " + std::to_string(code) + ": " + printable(run.err, 300), false};
}

SaveOutcome save_by_daemon(ReportingChild& daemon, std::uint64_t generation) {
  if (!daemon.write_line(policy_document(generation).dump())) {
    return {false, "it no longer reads its input (it ended?)", true};
  }
  const std::string answer = daemon.read_line(kDaemonAnswer);
  if (answer == "ok") return {true, {}, false};
  if (answer.empty()) {
    return {false, "no answer within 10 s (it must print \"ok\" after each save)", true};
  }
  return {false, "it said: " + printable(answer, 300), false};
}

std::optional<std::string> read_if_present(const fs::path& path) {
  std::string bytes;
  if (!read_whole_file(path, bytes)) return std::nullopt;
  return bytes;
}

void write_line_to(int fd, const std::string& line) {
  try {
    base::write_all(fd, line + "\n", "the campaign's pipe");
  } catch (const base::SystemError&) {
    // The campaign is gone: nobody to tell.
  }
}

}  // namespace

std::optional<SaveFinding> check_after_save(const std::optional<std::string>& on_disk,
                                            std::uint64_t generation, bool saved,
                                            std::uint64_t before) {
  const std::string expected = saved ? "document " + std::to_string(generation)
                                     : "document " + std::to_string(generation) + " or " +
                                           std::to_string(before) + " (the save failed)";
  if (!on_disk) {
    return SaveFinding{"missing after save",
                       "no settings file after the save; expected " + expected};
  }
  const auto document = nlohmann::json::parse(*on_disk, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object()) {
    return SaveFinding{"torn", "the file holds " + std::to_string(on_disk->size()) +
                                   " bytes that are not a JSON document; expected " + expected +
                                   "; it holds: " + printable(*on_disk)};
  }
  const NaiveReading reading = reading_of(*on_disk);
  if (!reading.has_generation || document != policy_document(reading.generation) ||
      reading.generation > generation) {
    return SaveFinding{"not a document it was given",
                       "the file holds a JSON document the writer was never given; expected " +
                           expected + "; it holds: " + printable(*on_disk)};
  }
  const std::uint64_t found = reading.generation;
  if (found == generation || (!saved && found == before)) return std::nullopt;
  return SaveFinding{"lost save", "the file holds document " + std::to_string(found) +
                                      ", an older one; expected " + expected};
}

int run_external_writer(const ExternalWriterLoopOptions& options) {
  stop_on_term_or_interrupt();
  ::signal(SIGPIPE, SIG_IGN);  // a long-running writer that ended: EPIPE, not death

  std::unique_ptr<ReportingChild> daemon;
  if (!options.writer.daemon) fs::create_directories(options.scratch);
  if (options.writer.daemon) {
    daemon = std::make_unique<ReportingChild>(
        std::vector<std::string>{
            "/bin/sh", "-c",
            expand_command(options.writer.command, placeholders(options.target, {}))},
        contract_environment(options.target), /*with_input=*/true);
  }
  std::mt19937_64 random(options.seed);
  std::exponential_distribution<double> gap(options.writer.rate > 0 ? options.writer.rate : 1.0);
  std::uint64_t saves = 0;
  std::uint64_t failures = 0;
  std::uint64_t findings = 0;
  auto evidence = nlohmann::json::array();
  bool announced = false;
  bool ended = false;
  std::uint64_t on_disk = 0;  // the phase starts with document 0
  std::uint64_t generation = options.seed % 1'000'000 * 1'000'000;
  for (std::uint64_t number = 1; !stop_requested() && !ended; ++number) {
    ++generation;
    SaveOutcome outcome;
    try {
      outcome = daemon ? save_by_daemon(*daemon, generation)
                       : save_by_command(options, generation, number);
    } catch (const std::exception& e) {
      outcome = {false, e.what(), false};
    }
    ended = outcome.ended;
    if (outcome.saved) {
      ++saves;
    } else {
      ++failures;
    }
    if (options.check) {
      const auto bytes = read_if_present(options.target);
      if (const auto finding = check_after_save(bytes, generation, outcome.saved, on_disk)) {
        ++findings;
        if (evidence.size() < kMaxEvidence) {
          const std::string file = bytes ? keep_evidence(options.evidence_dir,
                                                         options.writer.name + "-save-" +
                                                             std::to_string(number) + ".bytes",
                                                         *bytes)
                                         : std::string();
          evidence.push_back(to_json(Evidence{
              finding->kind,
              options.writer.name + " save " + std::to_string(number) + ": " + finding->note,
              file}));
        }
      }
      const NaiveReading reading = bytes ? reading_of(*bytes) : NaiveReading{};
      if (reading.has_generation) on_disk = reading.generation;
    } else if (outcome.saved) {
      on_disk = generation;
    }
    if (!announced && saves > 0) {
      write_line_to(options.report_fd, "ready");
      announced = true;
    } else if (!announced && (failures == kFailuresBeforeTelling || ended)) {
      write_line_to(
          options.report_fd,
          "error: " + option_of(options.writer.daemon ? Role::writer_daemon : Role::writer) + " " +
              options.writer.name + " made no save in " + std::to_string(failures) +
              " tries; the last: " + outcome.why);
      announced = true;
    }
    if (options.writer.rate > 0) wait_for(gap(random));
  }
  // A long-running writer that ended early: nothing more to do but wait
  // to be stopped (the campaign stops every writer when its phase ends).
  while (!stop_requested()) wait_for(0.1);
  if (daemon) {
    daemon->close_input();
    daemon->stop(std::chrono::seconds(2));
  }
  const nlohmann::json stats = {
      {"saves", saves}, {"failures", failures}, {"findings", findings}, {"evidence", evidence}};
  write_line_to(options.report_fd, stats.dump());
  return 0;
}

std::vector<std::string> external_writer_argv(const std::string& self,
                                              const ExternalWriterLoopOptions& options) {
  char rate[32];
  std::snprintf(rate, sizeof rate, "%g", options.writer.rate);
  std::vector<std::string> argv = {self,
                                   "writer-cmd",
                                   options.writer.name,
                                   "--command",
                                   options.writer.command,
                                   "--target",
                                   options.target.string(),
                                   "--scratch",
                                   options.scratch.string(),
                                   "--evidence",
                                   options.evidence_dir.string(),
                                   "--rate",
                                   rate,
                                   "--seed",
                                   std::to_string(options.seed)};
  if (options.writer.daemon) argv.emplace_back("--daemon");
  if (!options.check) argv.emplace_back("--no-check");
  return argv;
}

}  // namespace holdfast::race
