// Campaigns whose writer and launcher or reader are the user's own
// programs, given as commands, run for real: the small scripts in
// tests/race/commands/ (one tears its saves, one saves the seeds' way as a
// long-running process, one reads through holdfast) and the naive launcher
// example in race-harness/examples/ (which starts bubblewrap with what one
// ordinary read found). The harness must catch the tearing writer and the
// naive launcher and reader, keep their evidence, and pass holdfast's own
// launcher and reader under the same campaign.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "base/files.hpp"
#include "race-harness/documents.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::race {
namespace {

namespace fs = std::filesystem;

const std::string kCommands = RACE_COMMANDS_DIR;

class ExternalCommandsTest : public ::testing::Test {
 protected:
  struct Run {
    int exit_code = -1;
    std::string out;
    nlohmann::json json;
  };

  Run campaign(std::vector<std::string> args) {
    args.insert(args.begin(), {HOLDFAST_RACE_BINARY, "campaign"});
    args.insert(args.end(),
                {"--json", (dir_ / "result.json").string(), "--evidence",
                 (dir_ / "evidence").string(), "--junit", (dir_ / "junit.xml").string()});
    const auto r = testing::run_command(args, {}, dir_.path());
    Run run{r.exit_code, r.out + r.err, {}};
    std::ifstream in(dir_ / "result.json");
    if (in) run.json = nlohmann::json::parse(in);
    return run;
  }

  // The phase of the last run named `name` (an empty object when none is).
  static nlohmann::json phase(const Run& run, const std::string& name) {
    for (const auto& p : run.json.value("phases", nlohmann::json::array())) {
      if (p["name"] == name) return p;
    }
    ADD_FAILURE() << "no phase " << name << " in " << run.out;
    return nlohmann::json::object();
  }

  // xmllint's exit code for the last run's JUnit file against the schema.
  int junit_lint() const {
    return testing::run_command({"/usr/bin/xmllint", "--noout", "--schema", JUNIT_XSD,
                                 (dir_ / "junit.xml").string()},
                                {})
        .exit_code;
  }

  std::string junit() const { return base::read_file(dir_ / "junit.xml"); }

  testing::TempDir dir_;
};

// The seeds' writer, holding its gap open for 50 ms at 20 saves a second:
// the settings file is missing about half the time.
const std::vector<std::string> kSeedsWriter = {
    "--mode", "launch", "--writers", "rename-backup:20@50ms", "--starts", "24"};

TEST_F(ExternalCommandsTest, TheNaiveLauncherExampleIsCaughtWithTheTrialsEvidence) {
  auto args = kSeedsWriter;
  args.insert(args.end(), {"--launcher-cmd", std::string(NAIVE_LAUNCHER) + " {probe}"});
  const Run r = campaign(args);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const auto subject = phase(r, "launcher-cmd vs rename-backup");
  EXPECT_EQ(subject["reader"], "launcher-cmd");
  ASSERT_GT(subject["violated"].get<int>(), 0) << r.out;
  // When it found the policy, its empty network namespace kept the probe
  // from the host's port, and the read-only root from the workspace.
  EXPECT_GT(subject["honoured"].get<int>(), 0) << r.out;
  // It went ahead with no policy, and the probe reached what it must not.
  EXPECT_GT(subject["violation_kinds"].value("no policy read", 0), 0) << subject.dump(1);
  ASSERT_FALSE(subject["evidence"].empty());
  const auto& evidence = subject["evidence"][0];
  EXPECT_EQ(evidence["kind"], "no policy read");
  const auto kept = nlohmann::json::parse(base::read_file(evidence["file"].get<std::string>()));
  EXPECT_EQ(kept["reported_policy"], "nothing (no settings found)");
  EXPECT_EQ(kept["exit"], 0);
  bool wrote = false;
  for (const auto& result : kept["probe"]["results"]) {
    if (result["check"].get<std::string>().starts_with("write:")) wrote = result["allowed"];
  }
  EXPECT_TRUE(wrote) << kept.dump(1);
  EXPECT_EQ(junit_lint(), 0) << junit();
  EXPECT_NE(junit().find("type=\"violations\""), std::string::npos) << junit();
}

TEST_F(ExternalCommandsTest, HoldfastRunUnderTheSameCampaignPasses) {
  auto args = kSeedsWriter;
  args.insert(args.end(), {"--launcher-cmd", std::string(HOLDFAST_BINARY) +
                                                 " run --workspace {workspace} -- {probe}"});
  const Run r = campaign(args);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto subject = phase(r, "launcher-cmd vs rename-backup");
  EXPECT_EQ(subject["violated"], 0);
  EXPECT_EQ(subject["errors"], 0);
  EXPECT_GT(subject["honoured"].get<int>(), 0);
  EXPECT_GT(phase(r, "naive vs rename-backup (control)")["violated"].get<int>(), 0);
  EXPECT_EQ(junit_lint(), 0) << junit();
}

TEST_F(ExternalCommandsTest, ATearingWriterIsAFindingWithTheBytesItLeftKept) {
  const Run r = campaign({"--mode", "snapshot", "--writer-cmd",
                          kCommands + "/tearing-writer.sh {file} {settings}", "--writer-cmd-rate",
                          "50", "--starts", "300", "--control-starts", "20000"});
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const auto subject = phase(r, "holdfast vs cmd-1");
  // holdfast's reader refused the torn file or waited it out: never a violation.
  EXPECT_EQ(subject["violated"], 0) << r.out;
  // at(): a key the report lacks is a failure, not a read past the end.
  const auto& stats = subject.at("writer_stats").at("cmd-1");
  const auto findings = stats.value("findings", 0);
  const auto saves = stats.at("saves").get<int>();
  // Saves 1, 4, 7, ... are torn (the last save may be cut short by the
  // stop); the first comes before the trials start.
  EXPECT_GE(findings, 1) << r.out;
  EXPECT_GE(findings, (saves + 2) / 3 - 1) << r.out;
  ASSERT_FALSE(subject.at("evidence").empty()) << r.out;
  const auto& evidence = subject.at("evidence").at(0);
  EXPECT_EQ(evidence.at("kind"), "torn");
  const std::string note = evidence.at("note");
  EXPECT_TRUE(note.starts_with("cmd-1 save 1: ")) << note;
  // The kept bytes are exactly the first half of the document it was given.
  const auto at = note.find("expected document ") + std::string("expected document ").size();
  const std::string document = policy_text(std::stoull(note.substr(at)));
  EXPECT_EQ(base::read_file(evidence.at("file").get<std::string>()),
            document.substr(0, document.size() / 2));
  // The naive reader, under the same writer, read the torn file.
  EXPECT_GT(phase(r, "naive vs cmd-1 (control)")["violation_kinds"].value("file damaged", 0), 0);
  EXPECT_EQ(junit_lint(), 0) << junit();
  EXPECT_NE(junit().find("type=\"writer-findings\""), std::string::npos) << junit();
}

TEST_F(ExternalCommandsTest, HoldfastsReaderUnderTheContractPassesANaiveReaderIsCaught) {
  const std::vector<std::string> writer = {"--writers", "rename-backup:20@50ms", "--control-starts",
                                           "20000"};
  auto holdfast = writer;
  holdfast.insert(holdfast.end(),
                  {"--starts", "12", "--reader-cmd",
                   kCommands + "/holdfast-reader.sh " + std::string(HOLDFAST_BINARY)});
  const Run passed = campaign(holdfast);
  ASSERT_EQ(passed.exit_code, 0) << passed.out;
  EXPECT_EQ(passed.json["mode"], "snapshot");  // the mode --reader-cmd implies
  const auto subject = phase(passed, "reader-cmd vs rename-backup");
  EXPECT_EQ(subject["violated"], 0);
  EXPECT_GT(subject["honoured"].get<int>(), 0);

  // Half a second, not a number of trials: 30 trials of cat take 25 ms on
  // an idle machine, all of them before the writer's first gap opens.
  auto naive = writer;
  naive.insert(naive.end(),
               {"--seconds", "0.5", "--reader-cmd", "cat {settings} >&3 2>/dev/null; exit 0"});
  const Run caught = campaign(naive);
  ASSERT_EQ(caught.exit_code, 1) << caught.out;
  EXPECT_GT(
      phase(caught, "reader-cmd vs rename-backup")["violation_kinds"].value("no policy read", 0), 0)
      << caught.out;
}

TEST_F(ExternalCommandsTest, ALongRunningWritersGapIsSeenByItsControl) {
  const Run r =
      campaign({"--mode", "snapshot", "--writer-daemon", kCommands + "/backup-writer-daemon.sh",
                "--starts", "300", "--control-starts", "20000"});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto control = phase(r, "naive vs daemon-1 (control)");
  EXPECT_GT(control["violation_kinds"].value("file missing", 0), 0) << r.out;
  const auto subject = phase(r, "holdfast vs daemon-1");
  EXPECT_EQ(subject["violated"], 0);
  EXPECT_GT(subject["writer_stats"]["daemon-1"]["saves"].get<int>(), 0);
  EXPECT_EQ(subject["writer_stats"]["daemon-1"].value("findings", 0), 0);
}

TEST_F(ExternalCommandsTest, AnAtomicWriterLeavesTheControlNothingAndTheCampaignSaysSo) {
  const Run r = campaign({"--mode", "snapshot", "--writer-cmd",
                          "cp {file} {settings}.new && mv {settings}.new {settings}", "--starts",
                          "300", "--control-starts", "20000"});
  ASSERT_EQ(r.exit_code, 3) << r.out;
  EXPECT_EQ(phase(r, "naive vs cmd-1 (control)")["violated"], 0);
  EXPECT_EQ(phase(r, "holdfast vs cmd-1")["writer_stats"]["cmd-1"].value("findings", 0), 0);
  EXPECT_NE(r.out.find("INSENSITIVE: the positive control \"naive vs cmd-1 (control)\" saw "
                       "nothing"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("If cmd-1 saves atomically"), std::string::npos) << r.out;
  EXPECT_NE(junit().find("type=\"insensitive-control\""), std::string::npos) << junit();
}

TEST_F(ExternalCommandsTest, ThresholdsOnTheExitCodeInCampaignAndReport) {
  const Run r = campaign({"--mode", "snapshot", "--writers", "rename-backup:100@1ms", "--starts",
                          "1000", "--control-starts", "20000", "--violation-bound", "1e-6"});
  ASSERT_EQ(r.exit_code, 5) << r.out;
  EXPECT_NE(r.out.find("THRESHOLD MISSED: holdfast vs rename-backup: the 95% upper bound"),
            std::string::npos)
      << r.out;
  const auto report = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {HOLDFAST_RACE_BINARY, "report",
                                     (dir_ / "result.json").string(), "--junit",
                                     (dir_ / "junit.xml").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return testing::run_command(argv, {}).exit_code;
  };
  EXPECT_EQ(report({}), 0);
  EXPECT_EQ(report({"--violation-bound", "0.01"}), 0);
  EXPECT_EQ(report({"--violation-bound", "1e-6"}), 5);
  EXPECT_EQ(junit_lint(), 0) << junit();
  EXPECT_NE(junit().find("type=\"threshold\""), std::string::npos) << junit();
}

TEST_F(ExternalCommandsTest, MisusedCommandsAreUsageErrors) {
  EXPECT_EQ(campaign({"--launcher-cmd", "x {file}"}).exit_code, 2);
  EXPECT_EQ(campaign({"--writer-daemon", "x {file}"}).exit_code, 2);
  EXPECT_EQ(campaign({"--reader-cmd", "x", "--mode", "launch"}).exit_code, 2);
  EXPECT_EQ(campaign({"--launcher-cmd", "x", "--mode", "snapshot"}).exit_code, 2);
  EXPECT_EQ(campaign({"--launcher-cmd", "x", "--reader-cmd", "y"}).exit_code, 2);
  EXPECT_EQ(campaign({"--writer-cmd", "x", "--writer-cmd-rate", "fast"}).exit_code, 2);
  EXPECT_EQ(campaign({"--reader-cmd", "x", "--max-refusal-rate", "2"}).exit_code, 2);
}

}  // namespace
}  // namespace holdfast::race
