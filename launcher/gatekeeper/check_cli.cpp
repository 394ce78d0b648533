#include "launcher/gatekeeper/check_cli.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "launcher/gatekeeper/decide.hpp"
#include "launcher/gatekeeper/path_match.hpp"
#include "launcher/gatekeeper/symlinks.hpp"
#include "settings/errors.hpp"
#include "settings/snapshot.hpp"

namespace holdfast::gatekeeper {

namespace {

struct CheckOptions {
  std::string workspace;
  std::string cwd;
  std::string mode;
  std::string tmp = "/tmp";
  bool json = false;
  std::string tool;
  std::string argument;
};

int exit_for(Decision decision) {
  switch (decision) {
    case Decision::allow:
      return check_allow;
    case Decision::ask:
      return check_ask;
    case Decision::deny:
      return check_deny;
  }
  return check_deny;
}

int run_check(const CheckOptions& options) {
  CheckAnswer answer;
  try {
    answer = answer_check(CheckQuestion{options.workspace, options.cwd, options.mode, options.tmp,
                                        options.tool, options.argument});
  } catch (const settings::UsageError& e) {
    std::cerr << "holdfast: " << e.what() << "\n";
    return check_usage;
  }
  for (const auto& d : answer.warnings) std::cerr << "holdfast: " << d.to_string() << "\n";
  const Verdict& verdict = answer.verdict;
  if (options.json) {
    nlohmann::json out = {
        {"decision", std::string(decision_name(verdict.decision))},
        {"rule", verdict.rule ? nlohmann::json(verdict.rule->text) : nlohmann::json()},
        {"reason", verdict.reason},
        {"tool", options.tool},
        {"argument", options.argument},
        {"mode", std::string(mode_name(answer.mode))},
        {"exit_code", exit_for(verdict.decision)}};
    std::cout << out.dump() << "\n";
  } else {
    std::cout << decision_name(verdict.decision) << "\n";
    std::cout << "rule: " << (verdict.rule ? verdict.rule->text : "(none: tool default)") << "\n";
    std::cout << "reason: " << verdict.reason << "\n";
  }
  return exit_for(verdict.decision);
}

}  // namespace

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

CLI::App* add_check_cli(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<CheckOptions>();
  auto* check = app.add_subcommand(
      "check", "Ask the gatekeeper whether a tool call may run, and which rule decides it");
  check->add_option("--workspace", options->workspace,
                    "Workspace root: / rules and the tool defaults (default: --cwd)");
  check->add_option("--cwd", options->cwd,
                    "Directory the call runs in: relative paths and ./ rules (default: the "
                    "current directory)");
  check
      ->add_option("--mode", options->mode,
                   "Approval mode: plan, default, auto-edit, yolo (default: "
                   "permissions.defaultMode, else default)")
      ->check(CLI::IsMember({"plan", "default", "auto-edit", "yolo"}));
  check->add_option("--tmp", options->tmp, "The private tmp directory (default: /tmp)");
  check->add_flag("--json", options->json,
                  "Print {decision, rule, reason, tool, argument, mode, exit_code} as JSON");
  check
      ->add_option("TOOL", options->tool,
                   "Read, Edit, Write, Bash, WebFetch, Grep, Glob, LS, or any tool name")
      ->required();
  check->add_option("ARGUMENT", options->argument,
                    "The path, the command line or the URL (quote it as one argument)");
  check->footer(
      "Exit codes: 0 allow, 10 ask, 11 deny, 1 error (invalid settings or a rule that does not "
      "parse: nothing is decided), 2 usage.");
  check->callback([options, &exit_code] {
    try {
      exit_code = run_check(*options);
    } catch (const RuleError& e) {
      std::cerr << "holdfast: " << e.what()
                << "\nholdfast: refusing to decide with a rule that cannot be read; fix the "
                   "rule in your settings (holdfast settings show --origin says which file)\n";
      exit_code = check_error;
    } catch (const settings::InvalidSettings& e) {
      for (const auto& d : e.diagnostics()) std::cerr << "holdfast: " << d.to_string() << "\n";
      std::cerr << "holdfast: refusing to decide with invalid settings; fix the file, then run "
                   "`holdfast settings validate`\n";
      exit_code = check_error;
    } catch (const std::exception& e) {
      std::cerr << "holdfast: " << e.what() << "\n";
      exit_code = check_error;
    }
  });
  return check;
}

}  // namespace holdfast::gatekeeper
