// What `holdfast run --explain` and the settings service's explain route
// say about a launch: the settings it read, the policy part by part with
// its origin, the mounts in order, the seccomp filter.
#pragma once

#include <filesystem>
#include <string>

#include "launcher/run/launch.hpp"

namespace holdfast::launcher {

// The plan of a launch in `workspace` as it would be made now (nothing is
// opened for running and nothing runs). Throws like plan_launch, and
// std::runtime_error when bubblewrap is not found.
LaunchPlan plan_for_explanation(const std::filesystem::path& workspace);

// The explanation of `plan`, as text a person reads.
std::string explanation_text(const LaunchPlan& plan);

}  // namespace holdfast::launcher
