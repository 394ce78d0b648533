// Fuzz target: the gatekeeper's permission rules and its decision.
//
// Input, one item per line: the tool of a call, its argument, then rules,
// each after a letter that says its list (a: allow, k: ask, d: deny; s for
// the session's deny list). Every line is also parsed as a rule on its own.
// Paths are taken as written (no symlink resolution), so the target touches
// no file system.
//
// Properties: no approval mode turns a deny into anything else; a call
// that the tool's bare deny rule names is denied.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.hpp"
#include "launcher/gatekeeper/decide.hpp"

using holdfast::fuzz::check;
namespace gatekeeper = holdfast::gatekeeper;

namespace {

void add_rule(std::vector<gatekeeper::Rule>& list, const std::string& text) {
  try {
    list.push_back(gatekeeper::parse_rule(text));
  } catch (const gatekeeper::RuleError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (lines.size() < 2) return 0;

  gatekeeper::Context context;
  context.workspace = "/home/me/project";
  context.cwd = "/home/me/project/src";
  context.home = "/home/me";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    add_rule(context.persistent.ask, lines[i]);  // any line as a rule
    if (i < 2 || lines[i].size() < 2) continue;
    const std::string rule = lines[i].substr(1);
    switch (lines[i][0]) {
      case 'a':
        add_rule(context.persistent.allow, rule);
        break;
      case 'k':
        add_rule(context.persistent.ask, rule);
        break;
      case 'd':
        add_rule(context.persistent.deny, rule);
        break;
      case 's':
        add_rule(context.session.deny, rule);
        break;
      default:
        break;
    }
  }
  gatekeeper::prepare(context);
  const gatekeeper::ToolCall call{lines[0], lines[1]};
  const gatekeeper::Verdict by_default = gatekeeper::decide(call, context);
  for (const auto mode :
       {gatekeeper::Mode::plan, gatekeeper::Mode::auto_edit, gatekeeper::Mode::yolo}) {
    context.mode = mode;
    const gatekeeper::Verdict verdict = gatekeeper::decide(call, context);
    if (by_default.decision == gatekeeper::Decision::deny) {
      check(verdict.decision == gatekeeper::Decision::deny, "no approval mode approves a deny");
    }
  }

  // The tool's bare rule in the deny list denies every call of that tool.
  try {
    const gatekeeper::Rule bare = gatekeeper::parse_rule(call.tool);
    if (!bare.has_specifier && bare.tool == call.tool) {
      context.mode = gatekeeper::Mode::yolo;
      context.persistent.deny.push_back(bare);
      gatekeeper::prepare(context);
      check(gatekeeper::decide(call, context).decision == gatekeeper::Decision::deny,
            "a bare deny rule denies its tool");
    }
  } catch (const gatekeeper::RuleError&) {
  }
  return 0;
}
