// What a launch protected and hid, and what appeared in the workspace
// while the command ran, as the launch record, --report and stderr say it:
// the protected names lifted or added (with origins), the repositories and
// paths git's configuration names made read-only, the credential stores
// hidden and lifted (with origins), and after the command: bare-repository
// layouts, repositories and protected names that were created.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "launcher/run/launch_plan.hpp"
#include "launcher/sandbox/tree_scan.hpp"

namespace holdfast::launcher {

// {"names": {...}, "git": [...], "credentials": {"hidden": [...], "lifted": [...]}}
nlohmann::json protection_json(const LaunchPlan& plan);

// {"bare": [...], "repositories": [...], "names": [...]}; the lists cut
// at kMaxChangesListed (with "more": N).
inline constexpr std::size_t kMaxChangesListed = 20;
nlohmann::json changes_json(const sandbox::TreeChanges& changes);

// One line per kind of change, for stderr (without "holdfast: ").
std::vector<std::string> describe_changes(const sandbox::TreeChanges& changes);

// When a command failed and stores in the caller's home were hidden from
// it: one line naming them and how to see and lift them; empty otherwise.
// holdfast cannot see which file a command tried (a hidden directory is an
// empty tmpfs: a failed lookup in it leaves no trace), so it says what was
// hidden.
std::string hidden_stores_hint(const LaunchPlan& plan, int exit_status);

}  // namespace holdfast::launcher
