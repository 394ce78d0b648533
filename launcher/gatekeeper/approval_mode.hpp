// Approval modes: the last step of a decision. A mode can turn an
// `ask` into `allow`, or (plan) refuse what is not read-only; no mode ever
// turns a `deny` into anything else nor approves an `ask` that might be
// a deny (may_be_denied), and no mode touches the sandbox policy, which is
// not the gatekeeper's to change.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "launcher/gatekeeper/decision.hpp"

namespace holdfast::gatekeeper {

enum class Mode {
  plan,          // anything not read-only is refused
  default_mode,  // ask means ask
  auto_edit,     // edits inside the workspace are approved
  yolo,          // every ask is approved
};

// "plan", "default", "auto-edit", "yolo".
std::string_view mode_name(Mode mode);
std::optional<Mode> parse_mode(std::string_view name);

// What the mode needs to know about the call.
struct ModeFacts {
  bool read_only = false;       // reads (or a web fetch) only, fully analysed
  bool workspace_edit = false;  // an Edit/Write whose target is inside the workspace
  // The call might be something a deny rule denies (a glob, a computed
  // name, a command run by another): no mode approves its ask.
  bool may_be_denied = false;
};

struct ModeOutcome {
  Decision decision;
  std::string reason;  // empty when the mode left the decision alone
};

ModeOutcome apply_mode(Mode mode, Decision decision, const ModeFacts& facts);

}  // namespace holdfast::gatekeeper
