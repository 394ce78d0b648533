#include "launcher/sandbox/protection_explain.hpp"

#include <algorithm>

#include "launcher/sandbox/paths.hpp"
#include "launcher/sandbox/resolve.hpp"

namespace holdfast::sandbox {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : " ") + item;
  return out;
}

std::string names_text(const ProtectedNames& names) {
  std::string out =
      "protected names (read-only in every writable directory; lift in an operator scope with "
      "tools.protectedNames.lift):\n";
  for (const auto& name : names.names) {
    out += "  " + written_name(name) + "  (" + origin_text(name.origin) +
           (name.scope == NameScope::home ? "; in the home directory" : "") +
           (name.when_missing == WhenMissing::guard
                ? "; cannot be created at a writable root"
                : "; a new one is reported when the command ends") +
           ") " + name.reason + "\n";
  }
  for (const auto& lifted : names.lifted) {
    out += "  lifted: " + lifted.name + "  (by the " + origin_text(lifted.origin) +
           "): the command may write it, and whoever opens the project later runs what it "
           "wrote there\n";
  }
  return out;
}

std::string stores_text(const CredentialStores& stores) {
  std::string out =
      "credential stores (hidden from the command under every policy, in every home it may "
      "read; lift in an operator scope with tools.credentialStores.lift):\n";
  for (const auto& store : stores.stores) {
    out += "  " + store.name + ": " + joined(store.paths);
    if (!store.keep_readable.empty())
      out += " (kept readable: " + joined(store.keep_readable) + ")";
    out += "  (" + origin_text(store.origin) + ") " + store.reason + "\n";
  }
  for (const auto& lifted : stores.lifted) {
    out += "  lifted: " + lifted.name + "  (by the " + origin_text(lifted.origin) +
           "): readable by the command, and so by whatever reads its output\n";
  }
  return out;
}

std::string host_text(const HostFacts& facts, const std::vector<Rule>& rules) {
  std::string out = "on this host, protection:\n";
  out += "  writable roots walked for protected names and repositories: " +
         std::to_string(facts.tree.directories) + " directories read" +
         (facts.tree.complete
              ? " (limit " + std::to_string(facts.scan_budget) +
                    ", tools.protectedNames.scanLimit; a project with more is "
                    "refused)\n"
              : " (the project has more than the limit of " + std::to_string(facts.scan_budget) +
                    ": the launch is refused, see protection-scan-incomplete)\n");
  for (const auto& walk : facts.tree.partial) {
    out += "  " + walk.root +
           " is writable and wider than the project: walked with what the limit "
           "left, protected names and repositories down to " +
           std::to_string(walk.depth) +
           " levels below it are read-only, deeper ones are not (not covered: a root this wide "
           "gives the command the operator's own files, ~/.local/bin and the like, whatever the "
           "names)\n";
  }
  for (const auto& path : facts.protected_found) {
    const PathFacts& f = facts.at(path);
    if (f.link_target) {
      out += "  " + path + " is a symlink (to " + *f.link_target +
             "): its target is read-only, the link itself can be replaced (not covered)\n";
    }
  }
  for (const auto& dir : facts.bare_repositories) {
    out += "  bare repository " + dir + ": read-only\n";
  }
  if (!facts.git_config_files.empty()) {
    out += "  git configuration read: " + joined(facts.git_config_files) + "\n";
  }
  for (const auto& target : facts.git_targets) {
    const PathFacts& f = facts.at(target.path);
    const bool ruled = std::any_of(rules.begin(), rules.end(), [&](const Rule& r) {
      return r.source == RuleSource::git_config && r.path == f.canonical;
    });
    if (!ruled && !f.exists() && target.first_word && target.kind == GitPathKind::program &&
        resolve(rules, f.canonical).access == Access::write) {
      out += "  " + target.setting + " in " + target.file + " names " + target.path +
             ", which does not exist and whose directory does not either: not covered\n";
    }
  }
  out += "  homes looked at for credential stores: " +
         (facts.homes.empty() ? std::string("none") : joined(facts.homes)) + "\n";
  for (const auto& rule : rules) {
    if (rule.source == RuleSource::credential) {
      out += "  hidden: " + rule.path + " (" + rule.entry + ")\n";
    }
  }
  return out;
}

}  // namespace

std::string explain_protection(const Policy& policy, const HostFacts* facts,
                               const std::vector<Rule>* rules) {
  std::string out = names_text(policy.protected_names) + stores_text(policy.credential_stores);
  if (facts != nullptr && rules != nullptr) out += host_text(*facts, *rules);
  return out;
}

}  // namespace holdfast::sandbox
