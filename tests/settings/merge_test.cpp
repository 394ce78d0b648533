// Merge rules: deep merge, later scope wins, origins, concatenated
// permission lists, the sandbox policy whole from the highest operator
// scope, and what a workspace may not set.
#include "settings/merge.hpp"

#include <gtest/gtest.h>

#include "settings/key_path.hpp"

namespace holdfast::settings {
namespace {

using nlohmann::json;

ScopeFile scope_file(Scope scope, const std::string& text) {
  ScopeFile file;
  file.scope = scope;
  file.path = "/scopes/" + std::string(scope_name(scope)) + ".json";
  file.exists = true;
  file.bytes = text;
  interpret_scope_bytes(file);
  EXPECT_TRUE(file.valid()) << text;
  return file;
}

Effective merge(const std::vector<ScopeFile>& files) {
  std::vector<const ScopeFile*> pointers;
  for (const auto& f : files) pointers.push_back(&f);
  return merge_scopes(pointers);
}

std::string origin(const Effective& e, const std::string& key) {
  const auto it = e.origins.find(key);
  return it == e.origins.end() ? "(none)" : std::string(scope_name(it->second));
}

TEST(Merge, DeepMergeLaterScopeWinsWithOrigins) {
  const auto e = merge({
      scope_file(Scope::system_defaults,
                 R"j({"launcher": {"launchRecords": false}, "permissions": {"defaultMode": "plan"},
                     "editor": {"a": 1, "b": {"c": 2, "d": 3}}})j"),
      scope_file(Scope::user, R"j({"launcher": {"launchRecords": true},
                                 "editor": {"b": {"d": 4}, "e": 5}})j"),
      scope_file(Scope::system, R"j({"permissions": {"defaultMode": "default"}})j"),
  });
  EXPECT_EQ(e.value["launcher"]["launchRecords"], true);
  EXPECT_EQ(e.value["permissions"]["defaultMode"], "default");
  EXPECT_EQ(e.value["editor"], json::parse(R"j({"a": 1, "b": {"c": 2, "d": 4}, "e": 5})j"));
  EXPECT_EQ(origin(e, "launcher.launchRecords"), "user");
  EXPECT_EQ(origin(e, "permissions.defaultMode"), "system");
  EXPECT_EQ(origin(e, "editor.a"), "system-defaults");
  EXPECT_EQ(origin(e, "editor.b.c"), "system-defaults");
  EXPECT_EQ(origin(e, "editor.b.d"), "user");
  EXPECT_EQ(origin(e, "editor.e"), "user");
  // $revision is per file, never a setting.
  EXPECT_FALSE(e.value.contains("$revision"));
}

TEST(Merge, OrderOfTheInputDoesNotMatter) {
  const auto low =
      scope_file(Scope::system_defaults, R"j({"launcher": {"launchRecords": false}})j");
  const auto high = scope_file(Scope::system, R"j({"launcher": {"launchRecords": true}})j");
  const auto user = scope_file(Scope::user, R"j({"launcher": {"launchRecords": false}})j");
  const auto e = merge({high, user, low});
  EXPECT_EQ(e.value["launcher"]["launchRecords"], true);
  EXPECT_EQ(origin(e, "launcher.launchRecords"), "system");
}

TEST(Merge, AbsentFilesContributeNothing) {
  ScopeFile absent;
  absent.scope = Scope::system;
  absent.document = json::object();
  const auto e =
      merge({scope_file(Scope::user, R"j({"launcher": {"launchRecords": true}})j"), absent});
  EXPECT_EQ(e.value, json::parse(R"j({"launcher": {"launchRecords": true}})j"));
}

TEST(Merge, PermissionListsAreConcatenatedInScopeOrder) {
  const auto e = merge({
      scope_file(Scope::system,
                 R"j({"permissions": {"deny": ["Bash(rm -rf)"], "allow": ["Read"]}})j"),
      scope_file(Scope::system_defaults, R"j({"permissions": {"deny": ["Read(/etc/shadow)"]}})j"),
      scope_file(Scope::user, R"j({"permissions": {"allow": ["Bash(ls)"], "ask": ["Write"]}})j"),
      scope_file(Scope::workspace,
                 R"j({"permissions": {"deny": ["Bash(curl)"], "ask": ["Edit"]}})j"),
  });
  EXPECT_EQ(e.value["permissions"]["deny"],
            json::parse(R"j(["Read(/etc/shadow)", "Bash(curl)", "Bash(rm -rf)"])j"));
  EXPECT_EQ(e.value["permissions"]["allow"], json::parse(R"j(["Bash(ls)", "Read"])j"));
  EXPECT_EQ(e.value["permissions"]["ask"], json::parse(R"j(["Write", "Edit"])j"));
  EXPECT_EQ(origin(e, "permissions.deny.0"), "system-defaults");
  EXPECT_EQ(origin(e, "permissions.deny.1"), "workspace");
  EXPECT_EQ(origin(e, "permissions.deny.2"), "system");
  EXPECT_EQ(origin(e, "permissions.allow.0"), "user");
  EXPECT_EQ(origin(e, "permissions.allow.1"), "system");
  EXPECT_EQ(origin(e, "permissions.ask.1"), "workspace");
}

TEST(Merge, SandboxPolicyWinsWholeFromTheHighestOperatorScope) {
  const auto e = merge({
      scope_file(Scope::system_defaults,
                 R"j({"tools": {"executionSandbox": {"filesystem": "read-only", "network": "closed",
                     "unixSockets": "deny"}}})j"),
      scope_file(Scope::user, R"j({"tools": {"executionSandbox": {"network": "open"}}})j"),
  });
  // The user's policy replaces the defaults' as a whole: no key mixing, so
  // filesystem and unixSockets from the lower scope do not leak in.
  EXPECT_EQ(e.value["tools"]["executionSandbox"], json::parse(R"j({"network": "open"})j"));
  EXPECT_EQ(origin(e, "tools.executionSandbox.network"), "user");
  EXPECT_EQ(origin(e, "tools.executionSandbox.filesystem"), "(none)");
  EXPECT_EQ(origin(e, "tools.executionSandbox.unixSockets"), "(none)");

  const auto with_system = merge({
      scope_file(Scope::user, R"j({"tools": {"executionSandbox": {"network": "open",
                                  "filesystem": {":workspace": "write", "/data": "read"}}}})j"),
      scope_file(Scope::system,
                 R"j({"tools": {"executionSandbox": {"filesystem": {"/data": "deny"}}}})j"),
  });
  EXPECT_EQ(with_system.value["tools"]["executionSandbox"],
            json::parse(R"j({"filesystem": {"/data": "deny"}})j"));
  EXPECT_EQ(origin(with_system, "tools.executionSandbox.filesystem./data"), "system");
  EXPECT_EQ(with_system.origins.count("tools.executionSandbox.filesystem.:workspace"), 0U);
  EXPECT_EQ(with_system.origins.count("tools.executionSandbox.network"), 0U);
}

TEST(Merge, WorkspaceCannotSetPolicyKeysAndIsWarnedAbout) {
  const auto user = scope_file(
      Scope::user,
      R"j({"tools": {"executionSandbox": {"network": "closed"}}, "permissions": {"defaultMode": "plan", "allow": ["Read"]}})j");
  const auto workspace =
      scope_file(Scope::workspace,
                 "{\n"
                 "  \"tools\": {\"executionSandbox\": {\"network\": \"open\"}},\n"
                 "  \"security\": {\"allowUnconfined\": true},\n"
                 "  \"permissions\": {\n"
                 "    \"allow\": [\"Bash\"],\n"
                 "    \"defaultMode\": \"yolo\",\n"
                 "    \"deny\": [\"Bash(curl)\"]\n"
                 "  },\n"
                 "  \"launcher\": {\"launchRecords\": true}\n"
                 "}\n");
  const auto e = merge({user, workspace});
  EXPECT_EQ(e.value["tools"]["executionSandbox"], json::parse(R"j({"network": "closed"})j"));
  EXPECT_EQ(origin(e, "tools.executionSandbox.network"), "user");
  EXPECT_FALSE(e.value.contains("security"));
  EXPECT_EQ(e.value["permissions"]["allow"], json::parse(R"j(["Read"])j"));
  EXPECT_EQ(e.value["permissions"]["defaultMode"], "plan");
  EXPECT_EQ(origin(e, "permissions.defaultMode"), "user");
  // What a workspace may add still counts.
  EXPECT_EQ(e.value["permissions"]["deny"], json::parse(R"j(["Bash(curl)"])j"));
  // Nor can it turn the records of its launches on or off.
  EXPECT_EQ(find_value(e.value, {"launcher", "launchRecords"}), nullptr);

  // One warning per ignored key, naming the file, the key and its position.
  struct Expected {
    std::string key;
    int line;
    int column;
  };
  const std::vector<Expected> expected = {{"tools.executionSandbox", 2, 33},
                                          {"security", 3, 15},
                                          {"permissions.allow", 5, 14},
                                          {"permissions.defaultMode", 6, 20},
                                          {"launcher.launchRecords", 9, 33}};
  ASSERT_EQ(e.warnings.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const Diagnostic& w = e.warnings[i];
    EXPECT_EQ(w.severity, Severity::warning);
    EXPECT_EQ(w.file, workspace.path);
    EXPECT_EQ(w.key_path, expected[i].key);
    EXPECT_EQ(w.location.line, expected[i].line) << w.to_string();
    EXPECT_EQ(w.location.column, expected[i].column) << w.to_string();
    EXPECT_NE(w.message.find("ignored: only operator scopes"), std::string::npos) << w.message;
    EXPECT_NE(w.to_string().find("/scopes/workspace.json"), std::string::npos);
  }
}

TEST(Merge, WorkspaceAloneSetsNoPolicy) {
  const auto e = merge(
      {scope_file(Scope::workspace, R"j({"tools": {"executionSandbox": {"network": "open"}}})j")});
  EXPECT_EQ(find_value(e.value, {"tools", "executionSandbox"}), nullptr);
  ASSERT_EQ(e.warnings.size(), 1U);
  EXPECT_EQ(e.warnings[0].key_path, "tools.executionSandbox");
}

TEST(Merge, SystemScopeOverridesWorkspaceAndUser) {
  const auto e = merge({
      scope_file(Scope::user, R"j({"launcher": {"launchRecords": false}})j"),
      scope_file(Scope::workspace, R"j({"launcher": {"launchRecords": true}})j"),
      scope_file(Scope::system, R"j({"launcher": {"launchRecords": false}})j"),
  });
  EXPECT_EQ(e.value["launcher"]["launchRecords"], false);
  EXPECT_EQ(origin(e, "launcher.launchRecords"), "system");
}

TEST(Merge, ReplacingAnObjectWithAScalarForgetsItsOrigins) {
  const auto e = merge({
      scope_file(Scope::user, R"j({"editor": {"a": 1, "ab": 2}, "editorx": {"y": 1}})j"),
      scope_file(Scope::system, R"j({"editor": 3})j"),
  });
  EXPECT_EQ(e.value["editor"], 3);
  EXPECT_EQ(origin(e, "editor"), "system");
  EXPECT_EQ(e.origins.count("editor.a"), 0U);
  EXPECT_EQ(e.origins.count("editor.ab"), 0U);
  EXPECT_EQ(origin(e, "editorx.y"), "user");  // a sibling with the same prefix stays
}

}  // namespace
}  // namespace holdfast::settings
