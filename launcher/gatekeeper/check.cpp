#include "launcher/gatekeeper/check.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "launcher/gatekeeper/path_match.hpp"
#include "launcher/gatekeeper/symlinks.hpp"
#include "settings/errors.hpp"
#include "settings/snapshot.hpp"

namespace holdfast::gatekeeper {

CheckAnswer answer_check(const CheckQuestion& question) {
  namespace fs = std::filesystem;
  const std::string here = fs::current_path().string();
  Context context;
  context.cwd = normalize_path(question.cwd.empty() ? here : question.cwd, here);
  context.workspace =
      normalize_path(question.workspace.empty() ? context.cwd : question.workspace, here);
  const char* home = std::getenv("HOME");  // NOLINT(concurrency-mt-unsafe): read at start-up
  if (home == nullptr || *home == '\0' || home[0] != '/') {
    throw std::runtime_error(
        "HOME is not set to an absolute path; ~ in rules and commands needs it. Set HOME and "
        "try again");
  }
  context.home = normalize_path(home);
  context.tmp = normalize_path(question.tmp, here);
  context.resolve = resolve_symlinks;

  // The same consistent, settled reading a launch takes: a policy file
  // caught mid-save is waited for, never read as "no rules".
  const settings::Snapshot snapshot =
      settings::take_snapshot(settings::scope_paths_from_environment(fs::path(context.workspace)));
  const settings::Effective& effective = snapshot.effective;
  context.persistent = rules_from_settings(effective.value);

  std::string mode_text = question.mode;
  if (mode_text.empty()) {
    const auto& value = effective.value;
    if (value.contains("permissions") && value["permissions"].is_object() &&
        value["permissions"].contains("defaultMode") &&
        value["permissions"]["defaultMode"].is_string()) {
      mode_text = value["permissions"]["defaultMode"].get<std::string>();
    } else {
      mode_text = "default";
    }
  }
  const auto mode = parse_mode(mode_text);
  if (!mode) {
    throw settings::UsageError("unknown approval mode \"" + mode_text +
                               "\"; use one of plan, default, auto-edit, yolo");
  }
  context.mode = *mode;
  prepare(context);
  return CheckAnswer{decide({question.tool, question.argument}, context), context.mode,
                     effective.warnings};
}

}  // namespace holdfast::gatekeeper
