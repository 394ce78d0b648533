#include "launcher/run/protection_record.hpp"

#include "launcher/sandbox/paths.hpp"
#include "launcher/sandbox/resolve.hpp"

namespace holdfast::launcher {

namespace {

nlohmann::json origin_json(const std::optional<settings::Scope>& origin) {
  return origin ? nlohmann::json(std::string(settings::scope_name(*origin)))
                : nlohmann::json("built in");
}

nlohmann::json cut(const std::vector<std::string>& items) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < items.size() && i < kMaxChangesListed; ++i) out.push_back(items[i]);
  return out;
}

}  // namespace

nlohmann::json protection_json(const LaunchPlan& plan) {
  const auto& names = plan.policy.protected_names;
  const auto& stores = plan.policy.credential_stores;
  nlohmann::json added = nlohmann::json::array();
  for (const auto& name : names.names) {
    if (name.origin) {
      added.push_back(
          {{"name", sandbox::written_name(name)}, {"origin", origin_json(name.origin)}});
    }
  }
  nlohmann::json lifted_names = nlohmann::json::array();
  for (const auto& name : names.lifted) {
    lifted_names.push_back({{"name", name.name}, {"origin", origin_json(name.origin)}});
  }
  nlohmann::json lifted_stores = nlohmann::json::array();
  for (const auto& store : stores.lifted) {
    lifted_stores.push_back({{"name", store.name}, {"origin", origin_json(store.origin)}});
  }
  nlohmann::json hidden = nlohmann::json::array();
  nlohmann::json git = nlohmann::json::array();
  std::size_t guarded = 0;
  for (const auto& rule : plan.resolved.rules) {
    if (rule.source == sandbox::RuleSource::credential) {
      hidden.push_back({{"store", rule.entry}, {"path", rule.path}});
    } else if (rule.source == sandbox::RuleSource::git_config) {
      git.push_back({{"path", rule.path}, {"named_by", rule.entry}});
    } else if (rule.source == sandbox::RuleSource::protected_name ||
               rule.source == sandbox::RuleSource::protected_below) {
      ++guarded;
    }
  }
  nlohmann::json partial = nlohmann::json::array();
  for (const auto& walk : plan.facts.tree.partial) {
    partial.push_back({{"root", walk.root}, {"levels_seen", walk.depth}});
  }
  return {{"names",
           {{"added", std::move(added)},
            {"lifted", std::move(lifted_names)},
            {"read_only_paths", guarded},
            {"directories_read", plan.facts.tree.directories},
            {"complete", plan.facts.tree.complete},
            {"partial_wide_roots", std::move(partial)}}},
          {"bare_repositories", plan.facts.bare_repositories},
          {"git", std::move(git)},
          {"credentials", {{"hidden", std::move(hidden)}, {"lifted", std::move(lifted_stores)}}}};
}

nlohmann::json changes_json(const sandbox::TreeChanges& changes) {
  nlohmann::json out = {{"bare", cut(changes.bare)},
                        {"repositories", cut(changes.git)},
                        {"names", cut(changes.names)}};
  const std::size_t more = (changes.bare.size() + changes.git.size() + changes.names.size()) -
                           (out["bare"].size() + out["repositories"].size() + out["names"].size());
  if (more > 0) out["more"] = more;
  return out;
}

std::vector<std::string> describe_changes(const sandbox::TreeChanges& changes) {
  const auto list = [](const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size() && i < 5; ++i) out += (i == 0 ? "" : ", ") + items[i];
    if (items.size() > 5) out += " and " + std::to_string(items.size() - 5) + " more";
    return out;
  };
  std::vector<std::string> lines;
  if (!changes.bare.empty()) {
    lines.push_back(
        "the command made a bare git repository layout (HEAD, objects/, refs/) in " +
        list(changes.bare) +
        ": git run there takes the directory for a repository and obeys its config and hooks. "
        "Remove them before running git there, and set git config --global "
        "safe.bareRepository explicit");
  }
  if (!changes.git.empty()) {
    lines.push_back("the command created git repositories at " + list(changes.git) +
                    ": their config and hooks are its own; review them before running git there");
  }
  if (!changes.names.empty()) {
    lines.push_back("the command created protected names " + list(changes.names) +
                    " (configuration that git, editors, shells or agents act on): review them "
                    "before opening or using those directories");
  }
  return lines;
}

std::string hidden_stores_hint(const LaunchPlan& plan, int exit_status) {
  if (exit_status == 0 || plan.facts.tokens.home.empty()) return "";
  std::vector<std::string> names;
  for (const auto& rule : plan.resolved.rules) {
    if (rule.source != sandbox::RuleSource::credential ||
        !sandbox::is_within(rule.path, plan.facts.tokens.home)) {
      continue;
    }
    if (std::find(names.begin(), names.end(), rule.entry) == names.end()) {
      names.push_back(rule.entry);
    }
  }
  if (names.empty()) return "";
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return "the command failed; these credential stores in your home were hidden from it: " + text +
         ". If it needed one, holdfast run --explain shows the paths, and an operator scope "
         "lifts one with tools.credentialStores.lift";
}

}  // namespace holdfast::launcher
