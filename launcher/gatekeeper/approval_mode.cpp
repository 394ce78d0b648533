#include "launcher/gatekeeper/approval_mode.hpp"

namespace holdfast::gatekeeper {

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::plan:
      return "plan";
    case Mode::default_mode:
      return "default";
    case Mode::auto_edit:
      return "auto-edit";
    case Mode::yolo:
      return "yolo";
  }
  return "default";
}

std::optional<Mode> parse_mode(std::string_view name) {
  for (Mode mode : {Mode::plan, Mode::default_mode, Mode::auto_edit, Mode::yolo}) {
    if (mode_name(mode) == name) return mode;
  }
  return std::nullopt;
}

ModeOutcome apply_mode(Mode mode, Decision decision, const ModeFacts& facts) {
  if (decision == Decision::deny) return {decision, ""};
  switch (mode) {
    case Mode::plan:
      if (!facts.read_only) {
        return {Decision::deny, "plan mode refuses anything that is not read-only"};
      }
      break;
    case Mode::default_mode:
      break;
    case Mode::auto_edit:
      if (decision == Decision::ask && facts.workspace_edit && facts.may_be_denied) {
        return {Decision::ask, "auto-edit mode approves nothing that might be denied"};
      }
      if (decision == Decision::ask && facts.workspace_edit) {
        return {Decision::allow, "auto-edit mode approves edits inside the workspace"};
      }
      break;
    case Mode::yolo:
      if (decision == Decision::ask && facts.may_be_denied) {
        return {Decision::ask, "yolo mode approves nothing that might be denied"};
      }
      if (decision == Decision::ask) return {Decision::allow, "yolo mode approves every ask"};
      break;
  }
  return {decision, ""};
}

}  // namespace holdfast::gatekeeper
