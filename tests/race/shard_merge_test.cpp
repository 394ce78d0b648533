// A campaign split into shards on "several machines" (here: separate
// holdfast-race processes running at once, each with its own --shard I/N)
// and merged by `holdfast-race report` gives the same counts as one
// unsharded run with the same seed: every phase's trials, holdfast's
// violations and its 95% upper bound, and every crash cell whose outcome
// the kill point decides. This is what lets a CI matrix
// (.github/workflows/race-campaign.yml) stand in for one long run.
//
// What cannot be equal: how many violations a naive control sees, and how
// holdfast's trials split between honoured and refused, depend on where the
// writers happen to be when a reader looks, which no seed fixes; for those
// the test asks what the verdict needs (a control sees violations in both).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using holdfast::testing::Command;
using holdfast::testing::CommandResult;
using holdfast::testing::Started;

constexpr int kShards = 3;
const std::vector<std::string> kCampaign = {
    "campaign",         "--mode",
    "snapshot",         "--mixed-only",
    "--starts",         "3000",
    "--control-starts", "30000",
    "--writers",        "rename-backup:500@100us,in-place:500",
    "--seed",           "7"};
const std::vector<std::string> kCrash = {"crash", "--writer", "holdfast", "--rounds",
                                         "6",     "--seed",   "7"};

class ShardMergeTest : public ::testing::Test {
 protected:
  // Starts `holdfast-race ARGS` in the background.
  Started start(std::vector<std::string> args, const std::string& name) {
    args.insert(args.begin(), HOLDFAST_RACE_BINARY);
    return holdfast::testing::start_command(
        Command{args, holdfast::testing::current_environment(), std::nullopt, std::nullopt,
                dir_ / (name + ".out"), dir_ / (name + ".err")});
  }

  // Runs `base` unsharded (whole-NAME.json) and as kShards shards
  // (NAME-I.json), all at once, as separate processes.
  void run_sharded_and_whole(const std::vector<std::string>& base, const std::string& name) {
    std::vector<std::pair<std::string, Started>> started;
    for (int i = 1; i <= kShards; ++i) {
      std::vector<std::string> args = base;
      const std::string json = (dir_ / (name + "-" + std::to_string(i) + ".json")).string();
      args.insert(args.end(),
                  {"--shard", std::to_string(i) + "/" + std::to_string(kShards), "--json", json});
      started.emplace_back(name + " shard " + std::to_string(i),
                           start(args, name + "-" + std::to_string(i)));
    }
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--json", (dir_ / ("whole-" + name + ".json")).string()});
    started.emplace_back(name + " unsharded", start(args, "whole-" + name));
    for (const auto& [what, process] : started) {
      const CommandResult r = holdfast::testing::wait_command(process);
      // A shard's own control may see nothing in its share (exit 3); the
      // merged report judges the controls. Violations or errors may not be.
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 3) << what << " exit " << r.exit_code << "\n"
                                                        << r.out << r.err;
    }
  }

  CommandResult report(const std::vector<std::string>& files) {
    std::vector<std::string> argv = {HOLDFAST_RACE_BINARY, "report"};
    for (const auto& f : files) argv.push_back((dir_ / f).string());
    return holdfast::testing::run_command(argv, {});
  }

  holdfast::testing::TempDir dir_;
};

// The whitespace-separated columns of the report line that starts with
// `name` and then its numbers ("phase  trials honoured violated ...").
std::vector<std::string> row(const std::string& table, const std::string& name) {
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name, 0) != 0) continue;
    std::istringstream rest(line.substr(name.size()));
    std::vector<std::string> columns;
    for (std::string column; rest >> column;) columns.push_back(column);
    if (!columns.empty() && std::isdigit(static_cast<unsigned char>(columns[0][0]))) {
      return columns;
    }
  }
  return {};
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST_F(ShardMergeTest, ShardsRunApartAndMergedCountAsOneUnshardedRun) {
  run_sharded_and_whole(kCampaign, "campaign");
  run_sharded_and_whole(kCrash, "crash");

  std::vector<std::string> shard_files;
  for (const char* name : {"campaign", "crash"}) {
    for (int i = 1; i <= kShards; ++i)
      shard_files.push_back(std::string(name) + "-" + std::to_string(i) + ".json");
  }
  const CommandResult merged = report(shard_files);
  const CommandResult whole = report({"whole-campaign.json", "whole-crash.json"});
  ASSERT_EQ(merged.exit_code, 0) << merged.out << merged.err;
  ASSERT_EQ(whole.exit_code, 0) << whole.out << whole.err;
  EXPECT_NE(merged.out.find("shards 3"), std::string::npos) << merged.out;

  // Columns: trials honoured violated refused refused% errors 95%-upper trials/s.
  const nlohmann::json campaign = read_json(dir_.path() / "whole-campaign.json");
  ASSERT_EQ(campaign["phases"].size(), 3u);  // two controls and holdfast vs mixed
  for (const auto& phase : campaign["phases"]) {
    const std::string name = phase["name"];
    const auto m = row(merged.out, name);
    const auto w = row(whole.out, name);
    ASSERT_GE(m.size(), 7u) << name << "\n" << merged.out;
    ASSERT_GE(w.size(), 7u) << name << "\n" << whole.out;
    EXPECT_EQ(m[0], phase["control"].get<bool>() ? "30000" : "3000") << name;
    EXPECT_EQ(m[0], w[0]) << name << ": trials";
    if (phase["control"].get<bool>()) {
      EXPECT_NE(m[2], "0") << name << ": the merged control saw the gap";
      EXPECT_NE(w[2], "0") << name << ": the unsharded control saw the gap";
    } else {
      EXPECT_EQ(m[2], "0") << name << ": violations";
      EXPECT_EQ(w[2], "0") << name << ": violations";
      EXPECT_EQ(m[6], w[6]) << name << ": the 95% upper bound";
      EXPECT_EQ(m[6], "0.001") << name << ": 3/3000";
    }
  }

  // Crash cells: killed at a step, the outcome is the step's; at a random
  // point, only the number of rounds is fixed.
  const nlohmann::json crash = read_json(dir_.path() / "whole-crash.json");
  ASSERT_FALSE(crash["cells"].empty());
  for (const auto& cell : crash["cells"]) {
    const std::string name =
        cell["writer"].get<std::string>() + " " + cell["point"].get<std::string>();
    std::string padded = cell["writer"].get<std::string>();
    padded.resize(std::max<std::size_t>(padded.size(), 14), ' ');
    padded += " " + cell["point"].get<std::string>();
    const auto m = row(merged.out, padded);
    const auto w = row(whole.out, padded);
    ASSERT_FALSE(m.empty()) << name << "\n" << merged.out;
    EXPECT_EQ(m[0], "6") << name << ": rounds";
    if (cell["point"] == "random") {
      EXPECT_EQ(m[0], w[0]) << name;
    } else {
      EXPECT_EQ(m, w) << name;
    }
  }
}

}  // namespace
