#include "launcher/gatekeeper/approval_mode.hpp"

#include "base/name_table.hpp"

namespace holdfast::gatekeeper {

namespace {

constexpr NameRow<Mode> kModeNames[] = {{Mode::plan, "plan"},
                                        {Mode::default_mode, "default"},
                                        {Mode::auto_edit, "auto-edit"},
                                        {Mode::yolo, "yolo"}};

}  // namespace

std::string_view mode_name(Mode mode) { return name_in(kModeNames, mode); }

std::optional<Mode> parse_mode(std::string_view name) { return parse_in(kModeNames, name); }

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
