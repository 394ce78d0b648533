// Verdicts, the upper bound, and merging shards through JSON.
#include "race-harness/result.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "race-harness/report.hpp"
#include "tests/race/phase_fixture.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::race {
namespace {

CampaignResult campaign(std::vector<PhaseResult> phases) {
  CampaignResult r;
  r.mode = "snapshot";
  r.settings_dir = "/dev/shm";
  r.settings_fs = "tmpfs";
  r.phases = std::move(phases);
  return r;
}

TEST(UpperBound, RuleOfThreeWithoutViolations) {
  EXPECT_DOUBLE_EQ(upper_bound_95(0, 1000), 0.003);
  EXPECT_DOUBLE_EQ(upper_bound_95(0, 0), 1.0);
  const double bound = upper_bound_95(10, 1000);
  EXPECT_GT(bound, 0.01);
  EXPECT_LT(bound, 0.02);
}

TEST(Verdict, PassNeedsASensitiveControlAndNoViolations) {
  EXPECT_EQ(verdict_of(campaign({phase("c", true, 90, 10), phase("h", false, 100, 0, 5)})),
            Verdict::pass);
}

TEST(Verdict, RefusalsAreNotViolations) {
  EXPECT_EQ(verdict_of(campaign({phase("c", true, 90, 10), phase("h", false, 1, 0, 99)})),
            Verdict::pass);
}

TEST(Verdict, AnyHoldfastViolationFails) {
  EXPECT_EQ(verdict_of(campaign({phase("c", true, 90, 10), phase("h", false, 99, 1)})),
            Verdict::violations);
}

TEST(Verdict, AControlThatSawNothingIsInsensitiveNotAPass) {
  EXPECT_EQ(verdict_of(campaign({phase("c", true, 100, 0), phase("h", false, 100, 0)})),
            Verdict::insensitive);
  EXPECT_EQ(verdict_of(campaign({phase("h", false, 100, 0)})), Verdict::insensitive);
}

TEST(Verdict, EveryStartRefusedOrAWriterThatNeverSavedIsAnError) {
  EXPECT_EQ(verdict_of(campaign({phase("c", true, 90, 10), phase("h", false, 0, 0, 100)})),
            Verdict::errors);
  auto idle = phase("h", false, 100, 0);
  idle.writer_stats["rename-backup"].saves = 0;
  EXPECT_EQ(verdict_of(campaign({phase("c", true, 90, 10), idle})), Verdict::errors);
}

TEST(Merge, ShardsAddUpThroughJson) {
  auto first = campaign({phase("c", true, 90, 10), phase("h", false, 100, 0, 3)});
  first.shard_count = 2;
  auto second = first;
  second.shard_index = 2;
  for (auto& p : second.phases) p.timelines = {{2, p.timelines[1]}};
  CampaignResult merged = campaign_from_json(to_json(first));
  merge_into(merged, campaign_from_json(to_json(second)));
  ASSERT_EQ(merged.phases.size(), 2u);
  EXPECT_EQ(merged.phases[0].violated, 20u);
  EXPECT_EQ(merged.phases[1].trials, 206u);
  EXPECT_EQ(merged.phases[1].refused, 6u);
  EXPECT_EQ(merged.phases[1].writer_stats["rename-backup"].saves, 200u);
  EXPECT_EQ(merged.phases[1].timelines.size(), 2u);
  EXPECT_EQ(verdict_of(merged), Verdict::pass);
}

TEST(Verdict, EveryControlMustFire) {
  // One control per writer that leaves a gap: one silent control is enough
  // to make the run prove nothing about that writer.
  EXPECT_EQ(verdict_of(campaign(
                {phase("c1", true, 90, 10), phase("c2", true, 100, 0), phase("h", false, 100, 0)})),
            Verdict::insensitive);
  EXPECT_EQ(verdict_of(campaign({phase("c1", true, 90, 10), phase("c2", true, 1, 99)})),
            Verdict::pass);  // --controls-only
}

TEST(Merge, ViolationKindsAndWritersSurviveJsonAndAddUp) {
  auto first = campaign({phase("c", true, 90, 10)});
  first.writers = {"dir-swap:100@1ms", "rename-prev:4"};
  first.phases[0].violation_kinds = {{"directory missing", 9}, {"file missing", 1}};
  auto second = first;
  second.shard_index = 2;
  second.phases[0].violation_kinds = {{"directory missing", 4}};
  CampaignResult merged = campaign_from_json(to_json(first));
  EXPECT_EQ(merged.writers, first.writers);
  merge_into(merged, campaign_from_json(to_json(second)));
  EXPECT_EQ(merged.phases[0].violation_kinds["directory missing"], 13u);
  EXPECT_EQ(merged.phases[0].violation_kinds["file missing"], 1u);
}

TEST(Report, CampaignsWithOtherWritersStayApart) {
  const testing::TempDir dir;
  const auto save = [&](const std::string& name, const CampaignResult& result) {
    std::ofstream(dir / name) << to_json(result).dump();
    return (dir / name).string();
  };
  auto files_writers =
      campaign({phase("c", true, 90, 10), phase("holdfast vs mixed", false, 5, 0)});
  files_writers.writers = {"holdfast:2000", "in-place:2000"};
  auto gap_writers = files_writers;
  gap_writers.writers = {"dir-swap:100@1ms", "symlink-flip:4@100ms"};
  auto second_shard = gap_writers;
  second_shard.shard_index = 2;
  const Merged merged = merge_files(
      {save("a.json", files_writers), save("b.json", gap_writers), save("c.json", second_shard)});
  ASSERT_EQ(merged.campaigns.size(), 2u);
  EXPECT_EQ(merged.campaigns[0].phases[1].trials, 5u);
  EXPECT_EQ(merged.campaigns[1].phases[1].trials, 10u);  // the two shards of one campaign
  EXPECT_NE(campaign_table(merged.campaigns[1]).find("writers dir-swap:100@1ms,"),
            std::string::npos);
}

TEST(Crash, HoldfastMustBeCleanAndTheControlMustLose) {
  CrashResult r;
  r.cells.push_back({"holdfast", "rename", 10, 10, 0, 0, 0, 0, 0, 0});
  r.cells.push_back({"rename-backup", "rename_to_backup", 10, 0, 10, 0, 0, 10, 0, 0});
  EXPECT_EQ(verdict_of(r), Verdict::pass);
  r.cells[0].leftovers = 1;
  EXPECT_EQ(verdict_of(r), Verdict::violations);
  r.cells[0].leftovers = 0;
  r.cells[1].missing = 0;
  r.cells[1].old_or_new = 10;
  EXPECT_EQ(verdict_of(r), Verdict::insensitive);
  const CrashResult round_trip = crash_from_json(to_json(r));
  ASSERT_EQ(round_trip.cells.size(), 2u);
  EXPECT_EQ(round_trip.cells[1].leftovers, 10u);
}

}  // namespace
}  // namespace holdfast::race
