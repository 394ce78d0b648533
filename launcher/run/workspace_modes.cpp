#include "launcher/run/workspace_modes.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "base/system_error.hpp"
#include "settings/key_path.hpp"

namespace holdfast::launcher {

namespace {

constexpr const char* kRelax =
    "; or, if others must share it, set security.workspaceStrictModes to false in an operator "
    "scope (this weakens every launch)";

}  // namespace

std::optional<sandbox::Refusal> workspace_refusal(const std::filesystem::path& workspace,
                                                  const std::vector<base::PathStep>& steps,
                                                  uid_t caller_uid) {
  for (const base::PathStep& step : steps) {
    const auto problem =
        base::ownership_problem(step, caller_uid, base::StickyDirectories::root_owned);
    if (!problem) continue;
    const bool owner = step.owner != 0 && step.owner != caller_uid;
    return sandbox::Refusal{
        "workspace-unsafe", workspace.string(), "",
        *problem + ", so someone other than root and you (uid " + std::to_string(caller_uid) +
            ") can change what the command and the next launch find in the workspace",
        (owner ? "chown it to yourself or to root (chown " + std::to_string(caller_uid) + " " +
                     step.path + ")"
               : "chmod go-w " + step.path) +
            kRelax};
  }
  return std::nullopt;
}

bool workspace_strict_modes(const settings::Effective& effective) {
  const auto* flag = settings::find_value(effective.value, {"security", "workspaceStrictModes"});
  return flag == nullptr || !flag->is_boolean() || flag->get<bool>();
}

void check_workspace_modes(const std::filesystem::path& workspace,
                           const settings::Effective& effective) {
  if (!workspace_strict_modes(effective)) return;
  std::vector<base::PathStep> steps;
  try {
    steps = base::walk_path(workspace, O_PATH | O_DIRECTORY).steps;
  } catch (const base::SystemError& e) {
    throw sandbox::Refused(
        {sandbox::Refusal{"workspace-unreadable", workspace.string(), "",
                          std::string("the workspace cannot be checked: ") + e.what(),
                          "pass --workspace with an existing directory you can enter"}});
  }
  if (auto refusal = workspace_refusal(workspace, steps, ::getuid())) {
    throw sandbox::Refused({*refusal});
  }
}

}  // namespace holdfast::launcher
