// When a refused plan is made again from a fresh snapshot (plan_launch)
// rather than refused: only when everything it refused for says that the
// settings files or a host path changed while it was made.
#include <gtest/gtest.h>

#include "launcher/run/launch_plan.hpp"
#include "launcher/sandbox/refusal.hpp"

namespace holdfast::launcher {
namespace {

sandbox::Refusal refusal(const std::string& rule, const std::string& path) {
  return sandbox::Refusal{rule, path, "", "what was wrong", "what to do"};
}

TEST(PlanAgainAfter, ASettingsFileSavedWhileThePlanWasMadeIsPlannedAgain) {
  EXPECT_TRUE(plan_again_after(sandbox::Refused(
      {refusal("settings-file-changed", "/home/u/.config/holdfast/settings.json")})));
}

// Another user's home removed (userdel) between the look at what to hide
// in it and the opening of its files: nothing of it is left to hide.
TEST(PlanAgainAfter, AHostPathThatChangedWhileThePlanWasMadeIsPlannedAgain) {
  EXPECT_TRUE(plan_again_after(
      sandbox::Refused({refusal("path-changed-during-launch", "/home/gone/.ssh/config")})));
  EXPECT_TRUE(plan_again_after(
      sandbox::Refused({refusal("path-changed-during-launch", "/home/gone/.ssh/config"),
                        refusal("settings-file-changed", "/etc/holdfast/settings.json")})));
}

// A refusal of what the policy or the host is (not of a moment's change)
// stays a refusal, also beside a change.
TEST(PlanAgainAfter, ARefusalOfThePolicyOrTheHostItselfIsNotPlannedAgain) {
  EXPECT_FALSE(
      plan_again_after(sandbox::Refused({refusal("workspace-holds-shared-state", "/tmp")})));
  EXPECT_FALSE(plan_again_after(
      sandbox::Refused({refusal("path-changed-during-launch", "/home/gone/.ssh/config"),
                        refusal("workspace-holds-shared-state", "/tmp")})));
  EXPECT_FALSE(plan_again_after(sandbox::Refused(std::vector<sandbox::Refusal>{})));
}

}  // namespace
}  // namespace holdfast::launcher
