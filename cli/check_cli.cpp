#include "cli/check_cli.hpp"

#include <iostream>
#include <nlohmann/json.hpp>

#include "settings/errors.hpp"

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
