// Fuzz target: the shell lexer, the readers of the scripts programs take
// (sed, awk, jq), and the analysis of what a command line does, as the
// gatekeeper sees a Bash call.
//
// Properties, with deny rules Bash(rm:*), Bash(curl:*), Read(~/.ssh/**)
// and Edit(//etc/**), with no allow rule or under a bare `allow Bash`
// (which matches every command's prefix):
// * what the analysis says a command line does is decided by the deny
//   rules: running rm or curl, reading under ~/.ssh or writing under /etc
//   is denied in every approval mode;
// * what the analysis says MAY be denied (a command it cannot see, a glob
//   or any-path operation of a kind a deny rule covers, a subtree holding
//   a denied path, a computed program name) is allowed by no mode;
// * no mode allows what yolo does not, and no mode turns a deny into
//   anything else;
// * paths are absolute; a script's file name is empty only when the reader
//   said it could not tell the file.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.hpp"
#include "launcher/gatekeeper/decide.hpp"
#include "launcher/gatekeeper/path_match.hpp"
#include "launcher/gatekeeper/shell_analysis.hpp"
#include "launcher/gatekeeper/shell_lexer.hpp"
#include "launcher/gatekeeper/shell_scripts.hpp"
#include "launcher/gatekeeper/url_host.hpp"

using holdfast::fuzz::check;
namespace gatekeeper = holdfast::gatekeeper;
namespace shell = holdfast::gatekeeper::shell;

namespace {

constexpr std::string_view kWorkspace = "/home/me/project";
constexpr std::string_view kHome = "/home/me";
constexpr std::string_view kSecrets = "/home/me/.ssh";  // Read(~/.ssh/**)
constexpr std::string_view kSystem = "/etc";            // Edit(//etc/**)

bool is_denied_program(std::string_view word) {
  const auto slash = word.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? word : word.substr(slash + 1);
  return name == "rm" || name == "curl";
}

// The path a deny rule guards against this kind of operation, if any.
std::string_view guarded(shell::OpKind kind) {
  switch (kind) {
    case shell::OpKind::read:
      return kSecrets;
    case shell::OpKind::write:
    case shell::OpKind::edit:
      return kSystem;
    case shell::OpKind::fetch:
      break;
  }
  return {};
}

struct Expectation {
  bool denied = false;         // a deny rule matches what the analysis reports
  bool may_be_denied = false;  // no mode may allow it
  bool hides_code = false;     // no mode may allow it unless an allow rule matched
};

Expectation expect(const shell::Analysis& analysis) {
  Expectation e;
  for (const auto& command : analysis.commands) {
    if ((!command.words.empty() && !command.dynamic.at(0) && is_denied_program(command.words[0])) ||
        (!command.typed_words.empty() && command.typed_words[0] == "rm") ||
        (!command.typed_words.empty() && command.typed_words[0] == "curl")) {
      e.denied = true;
    }
    if (!command.runs_unknown.empty()) e.may_be_denied = true;
    if (!command.hidden.empty()) e.hides_code = true;
    if (!command.dynamic.empty() && command.dynamic[0]) e.may_be_denied = true;
    for (const auto& op : command.ops) {
      const std::string_view guard = guarded(op.kind);
      if (guard.empty()) continue;
      switch (op.scope) {
        case shell::Scope::exact:
          e.denied |= gatekeeper::is_within(op.target, guard);
          break;
        case shell::Scope::subtree:
          e.denied |= gatekeeper::is_within(op.target, guard);
          e.may_be_denied |= gatekeeper::is_within(guard, op.target);
          break;
        case shell::Scope::pattern:
        case shell::Scope::anywhere:
          e.may_be_denied = true;
          break;
      }
    }
  }
  return e;
}

void check_script(const holdfast::gatekeeper::shell::detail::ScriptEffects& effects) {
  for (const auto& [kind, name] : effects.files) {
    check(!name.empty() || !effects.unknown.empty() || !effects.runs_unknown.empty(),
          "a script's file is named, or the reader says it cannot tell");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string line(reinterpret_cast<const char*>(data), size);
  const shell::LexResult lexed = shell::lex(line);
  (void)lexed;
  // A host is one a domain rule can judge: lowercase ASCII letters,
  // digits, '-', '.', '_' (or an IPv6 literal's hex digits and ':'), or
  // nothing.
  const std::string host = gatekeeper::url_host(line);
  check(host.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-._:") == std::string::npos,
        "url_host returns only a judgeable host");
  namespace detail = holdfast::gatekeeper::shell::detail;
  check_script(detail::sed_script_effects(line));
  check_script(detail::awk_program_effects(line));
  check_script(detail::jq_filter_effects(line));

  const shell::ShellContext where{std::string(kWorkspace), std::string(kHome)};
  const shell::Analysis analysis = shell::analyse(line, where);
  for (const auto& command : analysis.commands) {
    check(command.dynamic.size() == command.words.size(), "every word says whether it is computed");
    for (const auto& op : command.ops) {
      check(!op.target.empty(), "an operation has a target");
      if (op.kind != shell::OpKind::fetch) check(op.target.front() == '/', "paths are absolute");
    }
  }
  const Expectation expected = expect(analysis);

  gatekeeper::Context context;
  context.workspace = std::string(kWorkspace);
  context.cwd = context.workspace;
  context.home = std::string(kHome);
  for (const char* rule : {"Bash(rm:*)", "Bash(curl:*)", "Read(~/.ssh/**)", "Edit(//etc/**)"}) {
    context.persistent.deny.push_back(gatekeeper::parse_rule(rule));
  }
  // With or without a bare `allow Bash`: one of the two per input (a
  // decision in four modes is most of an input's cost), by its length, which
  // the fuzzer's mutations change all the time.
  {
    const bool allow_bash = size % 2 == 1;
    if (allow_bash) context.persistent.allow.push_back(gatekeeper::parse_rule("Bash"));
    gatekeeper::prepare(context);
    std::array<gatekeeper::Decision, 4> decisions{};
    const gatekeeper::Mode modes[] = {gatekeeper::Mode::plan, gatekeeper::Mode::default_mode,
                                      gatekeeper::Mode::auto_edit, gatekeeper::Mode::yolo};
    for (std::size_t m = 0; m < 4; ++m) {
      context.mode = modes[m];
      decisions[m] = gatekeeper::decide({"Bash", line}, context).decision;
    }
    const gatekeeper::Decision yolo = decisions[3];
    for (const gatekeeper::Decision d : decisions) {
      if (expected.denied) {
        check(d == gatekeeper::Decision::deny, "what a deny rule matches is denied");
      }
      if (expected.may_be_denied) {
        check(d != gatekeeper::Decision::allow, "no mode allows what might be denied");
      }
      if (expected.hides_code && !allow_bash) {
        check(d != gatekeeper::Decision::allow,
              "no mode allows code the analysis cannot see when a deny rule could meet it");
      }
      if (d == gatekeeper::Decision::allow) {
        check(yolo == gatekeeper::Decision::allow, "no mode allows what yolo does not");
      }
    }
    if (decisions[1] == gatekeeper::Decision::deny) {
      check(std::all_of(decisions.begin(), decisions.end(),
                        [](gatekeeper::Decision d) { return d == gatekeeper::Decision::deny; }),
            "no mode turns a deny into anything else");
    }
  }
  return 0;
}
