#include "service/launch_routes.hpp"

#include <deque>
#include <fstream>

#include "base/system_error.hpp"
#include "launcher/gatekeeper/check.hpp"
#include "launcher/run/explanation.hpp"
#include "launcher/run/launch_record.hpp"
#include "launcher/run/network_proxy.hpp"
#include "launcher/run/protection_record.hpp"
#include "launcher/sandbox/explain.hpp"
#include "launcher/sandbox/policy.hpp"
#include "launcher/seccomp/rules.hpp"
#include "service/answers.hpp"
#include "service/settings_routes.hpp"
#include "settings/store.hpp"

namespace holdfast::service {

namespace {

using nlohmann::json;

constexpr std::size_t kDefaultLimit = 50;
constexpr std::size_t kMaxLimit = 1000;
// A launch's connections in the launches API: the first ones of a busy
// launch (its audit log has them all).
constexpr std::size_t kMaxConnectionsPerLaunch = 500;

std::size_t limit_from(const Request& request) {
  if (!request.has_param("limit")) return kDefaultLimit;
  const std::string text = request.param("limit");
  if (text.empty() || text.size() > 4 ||
      text.find_first_not_of("0123456789") != std::string::npos || std::stoul(text) == 0 ||
      std::stoul(text) > kMaxLimit) {
    throw settings::UsageError("limit must be a number from 1 to " + std::to_string(kMaxLimit) +
                               ", not \"" + text + "\"");
  }
  return std::stoul(text);
}

std::string string_field(const json& body, const char* name, bool required) {
  if (!body.contains(name)) {
    if (required) throw settings::UsageError(std::string("\"") + name + "\" is required");
    return {};
  }
  if (!body[name].is_string()) {
    throw settings::UsageError(std::string("\"") + name + "\" must be a string");
  }
  return body[name].get<std::string>();
}

std::string origin_name(const std::optional<settings::Scope>& scope) {
  return scope ? std::string(settings::scope_name(*scope)) : "built-in default";
}

// A network allow-list's entries, each as written with its port and the
// scope that wrote it; null without one.
json network_rules_json(const sandbox::Policy& policy) {
  if (policy.network != sandbox::Network::allow_list) return nullptr;
  const auto entries = [](const std::vector<network::HostRule>& rules) {
    json out = json::array();
    for (const auto& rule : rules) {
      out.push_back({{"entry", rule.text},
                     {"port", rule.port ? json(*rule.port) : json()},
                     {"private", rule.private_allowed},
                     {"origin", rule.origin}});
    }
    return out;
  };
  return {{"allow", entries(policy.network_rules.allow)},
          {"deny", entries(policy.network_rules.deny)}};
}

// The policy part by part, each with where it came from ("built-in
// default" included) and what it means for a command.
json policy_json(const sandbox::Policy& policy) {
  json filesystem = json::array();
  for (const auto& entry : policy.filesystem) {
    filesystem.push_back({{"key", entry.key},
                          {"written", entry.written},
                          {"access", std::string(sandbox::access_name(entry.access))},
                          {"origin", origin_name(entry.origin)}});
  }
  return {{"digest", sandbox::policy_digest(policy)},
          {"canonical", sandbox::canonical_json(policy)},
          {"form", std::string(sandbox::form_name(policy.form))},
          {"simpleFilesystem", policy.simple_filesystem},
          {"filesystem", filesystem},
          {"filesystemOrigin", origin_name(policy.filesystem_origin)},
          {"network", std::string(sandbox::network_name(policy.network))},
          {"networkOrigin", origin_name(policy.network_origin)},
          {"networkRules", network_rules_json(policy)},
          {"unixSockets", std::string(sandbox::unix_sockets_name(policy.unix_sockets))},
          {"unixSocketsOrigin", policy.unix_sockets_origin
                                    ? origin_name(policy.unix_sockets_origin)
                                    : "built-in default with the network " +
                                          std::string(sandbox::network_name(policy.network))},
          {"unixSocketsReach", sandbox::unix_sockets_reach(policy)},
          {"limits", sandbox::canonical_json(policy)["limits"]},
          {"limitsOrigin", origin_name(policy.limits_origin)},
          {"limitsText", sandbox::describe_limits(policy.limits)}};
}

// The facts of an explanation as data; the text is the CLI's own.
json explanation_json(const launcher::LaunchPlan& plan) {
  json scopes = json::array();
  for (const auto& file : plan.snapshot.scopes) {
    scopes.push_back({{"scope", std::string(settings::scope_name(file.scope))},
                      {"path", file.path.string()},
                      {"exists", file.exists},
                      {"revision", file.revision}});
  }
  return {{"snapshot", {{"digest", plan.snapshot.digest}, {"scopes", scopes}}},
          {"policy", policy_json(plan.policy)},
          {"seccomp", seccomp::describe_rules(plan.filter)},
          {"bwrapArgv", plan.argv},
          {"createdMountPoints", plan.mounts.created_on_host},
          {"protection", launcher::protection_json(plan)},
          {"text", launcher::explanation_text(plan)}};
}

std::filesystem::path workspace_from(const Request& request) {
  if (!request.has_param("workspace")) {
    throw settings::UsageError("name the workspace: /api/v1/explain?workspace=DIR");
  }
  const std::filesystem::path workspace = request.param("workspace");
  if (!workspace.is_absolute()) {
    throw settings::UsageError("workspace must be an absolute directory");
  }
  return workspace;
}

}  // namespace

std::vector<json> last_launch_records(const std::filesystem::path& file, std::size_t limit,
                                      std::size_t& skipped) {
  skipped = 0;
  std::ifstream in(file);
  if (!in) {
    if (std::filesystem::exists(file)) throw base::SystemError("cannot read", file, errno);
    return {};
  }
  std::deque<json> records;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    json record = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (record.is_discarded()) {
      ++skipped;
      continue;
    }
    records.push_back(std::move(record));
    if (records.size() > limit) records.pop_front();
  }
  return {records.begin(), records.end()};
}

void attach_connections(json& record, const std::filesystem::path& state_dir) {
  const json* network = record.contains("network") ? &record["network"] : nullptr;
  if (network == nullptr || !network->is_object() || !network->contains("audit") ||
      !(*network)["audit"].is_string()) {
    return;
  }
  // Only a log holdfast itself keeps: a plain name in the state
  // directory's network/ (a record is text anyone with the state
  // directory could have edited).
  const std::filesystem::path audit = (*network)["audit"].get<std::string>();
  const std::string name = audit.filename().string();
  if (audit != state_dir / "network" / name || name.empty() || name.front() == '.' ||
      !name.ends_with(".jsonl")) {
    return;
  }
  record["network"]["connections"] =
      launcher::read_audit_lines(state_dir / "network" / name, kMaxConnectionsPerLaunch);
}

void add_launch_routes(Router& router) {
  router.add("GET", "/api/v1/launches", [](Request& request) {
    const std::size_t limit = limit_from(request);
    const auto file = launcher::launch_log_path();
    std::size_t skipped = 0;
    auto records = file ? last_launch_records(*file, limit, skipped) : std::vector<json>{};
    if (file) {
      for (auto& record : records) attach_connections(record, file->parent_path());
    }
    return json_response(200, {{"path", file ? json(file->string()) : json()},
                               {"records", records},
                               {"skipped", skipped}});
  });

  router.add("POST", "/api/v1/check", [](Request& request) {
    const json body = parse_body(request);
    if (!body.is_object()) {
      throw settings::UsageError("a check is {\"tool\", \"argument\", \"mode\", \"workspace\"}");
    }
    gatekeeper::CheckQuestion question;
    question.tool = string_field(body, "tool", true);
    question.argument = string_field(body, "argument", false);
    question.mode = string_field(body, "mode", false);
    question.workspace = string_field(body, "workspace", true);
    question.cwd = string_field(body, "cwd", false);
    if (!std::filesystem::path(question.workspace).is_absolute() ||
        (!question.cwd.empty() && !std::filesystem::path(question.cwd).is_absolute())) {
      throw settings::UsageError("workspace and cwd must be absolute directories");
    }
    const gatekeeper::CheckAnswer result = gatekeeper::answer_check(question);
    const gatekeeper::Verdict& verdict = result.verdict;
    return json_response(200,
                         {{"decision", std::string(gatekeeper::decision_name(verdict.decision))},
                          {"rule", verdict.rule ? json(verdict.rule->text) : json()},
                          {"reason", verdict.reason},
                          {"tool", question.tool},
                          {"argument", question.argument},
                          {"mode", std::string(gatekeeper::mode_name(result.mode))},
                          {"warnings", diagnostics_json(result.warnings)}});
  });

  router.add("GET", "/api/v1/explain", [](Request& request) {
    return json_response(200,
                         explanation_json(launcher::plan_for_explanation(workspace_from(request))));
  });

  // The sandbox a command would get from the settings now, without a
  // workspace (tokens such as :workspace stay tokens): what it may read,
  // write and reach, and where each part came from.
  router.add("GET", "/api/v1/sandbox", [](Request& request) {
    const settings::Store store(paths_for_request(request));
    const settings::Snapshot snapshot = store.snapshot();
    const sandbox::Policy policy = sandbox::policy_from_settings(snapshot.effective);
    return json_response(200, {{"snapshot", snapshot.digest},
                               {"policy", policy_json(policy)},
                               {"text", sandbox::explain(policy)}});
  });
}

}  // namespace holdfast::service
