// `holdfast settings ...` as a real program: output, exit codes (0 ok,
// 1 error, 2 usage, 3 revision conflict, 4 invalid settings), and the
// schema it publishes. The binary comes from the build (HOLDFAST_BINARY);
// the scopes live in temp directories named by HOLDFAST_SYSTEM_DIR and
// HOLDFAST_CONFIG_DIR.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "settings/scope_file.hpp"
#include "tests/support/files.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::CommandResult;
using testing::read_file;
using testing::TempDir;
using testing::write_file;

class Cli : public ::testing::Test {
 protected:
  Cli() { fs::create_directories(workspace()); }

  fs::path system_dir() const { return dir_ / "etc"; }
  fs::path config_dir() const { return dir_ / "config"; }
  fs::path workspace() const { return dir_ / "project"; }
  fs::path user_file() const { return config_dir() / "settings.json"; }
  fs::path system_file() const { return system_dir() / "settings.json"; }
  fs::path workspace_file() const { return workspace() / ".holdfast" / "settings.json"; }

  // Runs `holdfast settings ARGS...` in the workspace directory.
  CommandResult settings(std::vector<std::string> args) const {
    args.insert(args.begin(), {HOLDFAST_BINARY, "settings"});
    return testing::run_command(args,
                                {{"HOLDFAST_SYSTEM_DIR", system_dir().string()},
                                 {"HOLDFAST_CONFIG_DIR", config_dir().string()},
                                 {"HOLDFAST_STATE_DIR", (dir_ / "state").string()}},
                                workspace());
  }

  TempDir dir_;
};

TEST_F(Cli, SetThenGet) {
  const auto set = settings({"set", "tools.executionSandbox.network", "\"closed\""});
  EXPECT_EQ(set.exit_code, 0) << set.err;
  EXPECT_EQ(set.out, "");
  const auto get = settings({"get", "tools.executionSandbox.network"});
  EXPECT_EQ(get.exit_code, 0) << get.err;
  EXPECT_EQ(get.out, "closed\n");
  // Non-strings print as JSON.
  EXPECT_EQ(settings({"set", "launcher.launchRecords", "true"}).exit_code, 0);
  EXPECT_EQ(settings({"get", "/launcher/launchRecords"}).out, "true\n");
  const ScopeFile file = detail::read_scope_file_once(Scope::user, user_file());
  EXPECT_EQ(file.revision, 2U);
}

TEST_F(Cli, GetJsonNamesKeyValueScopeAndRevision) {
  ASSERT_EQ(settings({"set", "--scope", "system", "tools.executionSandbox",
                      R"j({"network": "closed", "filesystem": "read-only"})j"})
                .exit_code,
            0);
  ASSERT_EQ(settings({"set", "--scope", "system", "launcher.launchRecords", "false"}).exit_code, 0);
  ASSERT_EQ(settings({"set", "launcher.launchRecords", "true"}).exit_code, 0);

  const auto get = settings({"get", "--json", "tools.executionSandbox.network"});
  ASSERT_EQ(get.exit_code, 0) << get.err;
  EXPECT_EQ(json::parse(get.out), json::parse(R"j({"key": "tools.executionSandbox.network",
      "value": "closed", "scope": "system", "revision": 2})j"));

  // An object: its scope is the one that set what is under it.
  const auto object = settings({"get", "--json", "/tools/executionSandbox"});
  ASSERT_EQ(object.exit_code, 0) << object.err;
  EXPECT_EQ(json::parse(object.out)["value"],
            json::parse(R"j({"network": "closed", "filesystem": "read-only"})j"));
  EXPECT_EQ(json::parse(object.out)["scope"], "system");

  // One scope's own value.
  const auto user = settings({"get", "--json", "--scope", "user", "launcher.launchRecords"});
  ASSERT_EQ(user.exit_code, 0) << user.err;
  EXPECT_EQ(json::parse(user.out), json::parse(R"j({"key": "launcher.launchRecords",
      "value": true, "scope": "user", "revision": 1})j"));
  // The effective one: the system scope overrides the user's.
  EXPECT_EQ(json::parse(settings({"get", "--json", "launcher.launchRecords"}).out)["scope"],
            "system");
}

TEST_F(Cli, DottedKeysWithEscapedDots) {
  ASSERT_EQ(
      settings({"set", "tools.executionSandbox.filesystem./srv/\\.git", "\"deny\""}).exit_code, 0);
  const ScopeFile file = detail::read_scope_file_once(Scope::user, user_file());
  EXPECT_EQ(file.document["tools"]["executionSandbox"]["filesystem"]["/srv/.git"], "deny");
  const auto get = settings({"get", "--json", "/tools/executionSandbox/filesystem/~1srv~1.git"});
  EXPECT_EQ(json::parse(get.out)["key"], "tools.executionSandbox.filesystem./srv/\\.git");
}

TEST_F(Cli, Unset) {
  ASSERT_EQ(settings({"set", "launcher.launchRecords", "true"}).exit_code, 0);
  const auto unset = settings({"unset", "--json", "launcher.launchRecords"});
  EXPECT_EQ(unset.exit_code, 0) << unset.err;
  EXPECT_EQ(json::parse(unset.out)["revision"], 2);
  EXPECT_EQ(json::parse(unset.out)["path"], user_file().string());
  const auto get = settings({"get", "launcher.launchRecords"});
  EXPECT_EQ(get.exit_code, 1);
  EXPECT_NE(get.err.find("launcher.launchRecords is not set in any scope"), std::string::npos)
      << get.err;
  const auto again = settings({"unset", "launcher.launchRecords"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("is not set in the user scope"), std::string::npos) << again.err;
}

TEST_F(Cli, UsageErrorsExitTwo) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"get", "a..b"},
           {"get"},
           {"set", "launcher.launchRecords", "yes please"},  // not JSON
           {"set", "--scope", "everywhere", "launcher.launchRecords", "true"},
           {"set", "--if-revision", "soon", "launcher.launchRecords", "true"},
           {"set", "$revision", "5"},
           {"frobnicate"},
           {}}) {
    const auto result = settings(args);
    EXPECT_EQ(result.exit_code, 2) << ::testing::PrintToString(args) << "\n" << result.err;
    EXPECT_FALSE(result.err.empty()) << ::testing::PrintToString(args);
  }
  EXPECT_FALSE(fs::exists(user_file()));
  const auto value = settings({"set", "launcher.launchRecords", "yes please"});
  EXPECT_NE(value.err.find("the value must be JSON"), std::string::npos) << value.err;
}

TEST_F(Cli, StaleIfRevisionIsAConflictAndTheFileIsUnchanged) {
  ASSERT_EQ(settings({"set", "launcher.launchRecords", "true"}).exit_code, 0);
  ASSERT_EQ(settings({"set", "launcher.launchRecords", "false"}).exit_code, 0);
  const std::string before = read_file(user_file());
  const auto stale = settings({"set", "--if-revision", "1", "launcher.launchRecords", "true"});
  EXPECT_EQ(stale.exit_code, 3) << stale.err;
  EXPECT_NE(stale.err.find("revision conflict: expected revision 1 but the file is at revision 2"),
            std::string::npos)
      << stale.err;
  EXPECT_EQ(read_file(user_file()), before);
  const auto stale_unset = settings({"unset", "--if-revision", "0", "launcher.launchRecords"});
  EXPECT_EQ(stale_unset.exit_code, 3);
  EXPECT_EQ(read_file(user_file()), before);

  const auto current =
      settings({"set", "--json", "--if-revision", "2", "launcher.launchRecords", "true"});
  EXPECT_EQ(current.exit_code, 0) << current.err;
  EXPECT_EQ(json::parse(current.out)["revision"], 3);
}

TEST_F(Cli, InvalidFileExitsFourAndIsNeverRewritten) {
  fs::create_directories(config_dir());
  const std::string broken = "{\n  \"tools\": {\"executionSandbox\": {\"network\": \"shut\"}}\n}\n";
  write_file(user_file(), broken);

  const auto get = settings({"get", "launcher.launchRecords"});
  EXPECT_EQ(get.exit_code, 4);
  EXPECT_NE(get.err.find(user_file().string() +
                         ":2:45: error: at tools.executionSandbox.network: expected one of"),
            std::string::npos)
      << get.err;
  const auto set = settings({"set", "tools.executionSandbox.network", "\"closed\""});
  EXPECT_EQ(set.exit_code, 4);
  EXPECT_NE(set.err.find("refusing to save into a file that is invalid"), std::string::npos)
      << set.err;
  EXPECT_EQ(read_file(user_file()), broken);

  const auto validate = settings({"validate"});
  EXPECT_EQ(validate.exit_code, 4);
  EXPECT_NE(validate.err.find(user_file().string() + ":2:45: error:"), std::string::npos)
      << validate.err;
  EXPECT_NE(validate.out.find("user: " + user_file().string() + ": invalid"), std::string::npos)
      << validate.out;
  EXPECT_NE(validate.out.find("system: " + system_file().string() + ": absent"), std::string::npos)
      << validate.out;

  const auto report = settings({"validate", "--json", "--scope", "user"});
  EXPECT_EQ(report.exit_code, 4);
  const json parsed = json::parse(report.out);
  ASSERT_EQ(parsed.size(), 1U);
  EXPECT_EQ(parsed[0]["state"], "invalid");
  EXPECT_EQ(parsed[0]["diagnostics"][0]["line"], 2);
  EXPECT_EQ(parsed[0]["diagnostics"][0]["column"], 45);
  EXPECT_EQ(parsed[0]["diagnostics"][0]["key"], "tools.executionSandbox.network");
  EXPECT_EQ(read_file(user_file()), broken);

  // An empty file is an error too, not "no settings".
  write_file(user_file(), "");
  EXPECT_EQ(settings({"show"}).exit_code, 4);
  EXPECT_EQ(read_file(user_file()), "");
}

// A permission rule that the gatekeeper could not read is refused where it
// is saved and reported by validate, at its line and column: saved, it
// would stop every `holdfast check`.
TEST_F(Cli, RulesThatDoNotParseAreRefusedWhenSavedAndByValidate) {
  for (const std::string rules : {R"j(["Bash("])j", R"j(["bash(rm:*)"])j",
                                  R"j(["Bash(rm\u0000x)"])j", R"j(["Read($HOME/x)"])j"}) {
    const auto set = settings({"set", "permissions.deny", rules});
    EXPECT_EQ(set.exit_code, 4) << rules << ": " << set.err;
    EXPECT_NE(set.err.find("at permissions.deny.0: expected a permission rule"), std::string::npos)
        << set.err;
    EXPECT_FALSE(fs::exists(user_file())) << rules;
  }
  fs::create_directories(config_dir());
  write_file(user_file(), "{\"permissions\": {\"ask\": [\"Edit\",\n  \"WebFetch(x.org)\"]}}\n");
  const auto validate = settings({"validate", "--scope", "user"});
  EXPECT_EQ(validate.exit_code, 4);
  EXPECT_NE(validate.err.find(user_file().string() +
                              ":2:3: error: at permissions.ask.1: expected a permission rule, "
                              "Tool or Tool(specifier), found \"WebFetch(x.org)\": a WebFetch "
                              "specifier is domain:HOST"),
            std::string::npos)
      << validate.err;
}

// A network allow-list entry that no launch could use is refused where it
// is saved, named by its place in the list; a good one is saved.
TEST_F(Cli, NetworkAllowListEntriesAreCheckedWhenSaved) {
  const auto bad = settings(
      {"set", "tools.executionSandbox.network", R"j({"allow": ["github.com", "*.com"]})j"});
  EXPECT_EQ(bad.exit_code, 4) << bad.err;
  EXPECT_NE(bad.err.find("at tools.executionSandbox.network.allow.1: expected a host entry"),
            std::string::npos)
      << bad.err;
  EXPECT_FALSE(fs::exists(user_file()));
  const auto unknown =
      settings({"set", "tools.executionSandbox.network", R"j({"allowed": ["github.com"]})j"});
  EXPECT_EQ(unknown.exit_code, 4) << unknown.err;
  const auto good =
      settings({"set", "tools.executionSandbox.network",
                R"j({"allow": ["github.com", "**.npmjs.org:443"], "deny": ["gist.github.com"]})j"});
  EXPECT_EQ(good.exit_code, 0) << good.err;
}

TEST_F(Cli, ValidateCleanScopesExitsZeroAndReportsWarnings) {
  ASSERT_EQ(settings({"set", "--scope", "workspace", "permissions.allow", "[\"Bash\"]"}).exit_code,
            0);
  const auto validate = settings({"validate"});
  EXPECT_EQ(validate.exit_code, 0) << validate.err;
  EXPECT_NE(validate.out.find("workspace: " + workspace_file().string() + ": valid"),
            std::string::npos)
      << validate.out;
  // The workspace's permissions.allow is ignored, with a warning naming it.
  const auto get = settings({"get", "permissions.allow"});
  EXPECT_EQ(get.exit_code, 1);
  EXPECT_NE(get.err.find(workspace_file().string() + ":"), std::string::npos) << get.err;
  EXPECT_NE(get.err.find("warning: at permissions.allow: ignored"), std::string::npos) << get.err;
}

TEST_F(Cli, ShowOriginSaysWhereEachValueCameFrom) {
  ASSERT_EQ(settings({"set", "--scope", "system-defaults", "permissions.deny", "[\"Bash(rm)\"]"})
                .exit_code,
            0);
  ASSERT_EQ(
      settings({"set", "--scope", "workspace", "permissions.deny", "[\"Bash(curl)\"]"}).exit_code,
      0);
  ASSERT_EQ(settings({"set", "tools.executionSandbox.network", "\"open\""}).exit_code, 0);
  const auto show = settings({"show", "--origin"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("permissions.deny.0 = \"Bash(rm)\"    # system-defaults (" +
                          (system_dir() / "system-defaults.json").string() + ")"),
            std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("permissions.deny.1 = \"Bash(curl)\"    # workspace (" +
                          workspace_file().string() + ")"),
            std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("tools.executionSandbox.network = \"open\"    # user (" +
                          user_file().string() + ")"),
            std::string::npos)
      << show.out;

  const auto as_json = settings({"show", "--json", "--origin"});
  ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
  const json parsed = json::parse(as_json.out);
  EXPECT_EQ(parsed["effective"]["permissions"]["deny"],
            json::parse(R"j(["Bash(rm)", "Bash(curl)"])j"));
  EXPECT_EQ(parsed["origins"]["permissions.deny.0"], "system-defaults");
  EXPECT_EQ(parsed["origins"]["permissions.deny.1"], "workspace");
  EXPECT_EQ(parsed["origins"]["tools.executionSandbox.network"], "user");

  const auto scope = settings({"show", "--json", "--scope", "workspace"});
  ASSERT_EQ(scope.exit_code, 0) << scope.err;
  EXPECT_EQ(json::parse(scope.out)["path"], workspace_file().string());
  EXPECT_EQ(json::parse(scope.out)["revision"], 1);

  // --workspace points at another project.
  TempDir other;
  const auto elsewhere = settings({"show", "--json", "--workspace", other.path().string()});
  ASSERT_EQ(elsewhere.exit_code, 0) << elsewhere.err;
  EXPECT_EQ(json::parse(elsewhere.out)["effective"]["permissions"]["deny"],
            json::parse(R"j(["Bash(rm)"])j"));
}

TEST_F(Cli, SchemaIsJsonSchemaDraft2020_12) {
  const auto schema = settings({"schema"});
  ASSERT_EQ(schema.exit_code, 0) << schema.err;
  const json parsed = json::parse(schema.out);
  EXPECT_EQ(parsed["$schema"], "https://json-schema.org/draft/2020-12/schema");
  EXPECT_EQ(parsed["type"], "object");
  EXPECT_EQ(parsed["properties"]["tools"]["properties"]["executionSandbox"]["additionalProperties"],
            false);
  EXPECT_EQ(parsed["properties"]["security"]["additionalProperties"], false);
  EXPECT_EQ(parsed["properties"]["$revision"]["minimum"], 0);
}

TEST_F(Cli, ConcurrentSetsFromSeveralProcessesLoseNothing) {
  constexpr int kProcesses = 3;
  constexpr int kSets = 5;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    children.push_back(testing::fork_child([&, p] {
      for (int i = 0; i < kSets; ++i) {
        const auto r = settings({"set", "editor.p" + std::to_string(p), std::to_string(i)});
        if (r.exit_code != 0) return 1;
      }
      return 0;
    }));
  }
  for (pid_t child : children) EXPECT_EQ(testing::wait_status(child), 0);
  const ScopeFile file = detail::read_scope_file_once(Scope::user, user_file());
  EXPECT_EQ(file.revision, static_cast<std::uint64_t>(kProcesses * kSets));
  for (int p = 0; p < kProcesses; ++p) {
    EXPECT_EQ(file.document["editor"]["p" + std::to_string(p)], kSets - 1);
  }
}

TEST_F(Cli, SystemErrorExitsOne) {
  // The user "file" is a directory: reading it fails with a system error.
  fs::create_directories(user_file());
  const auto get = settings({"get", "launcher.launchRecords"});
  EXPECT_EQ(get.exit_code, 1);
  EXPECT_NE(get.err.find(user_file().string()), std::string::npos) << get.err;
}

}  // namespace
}  // namespace holdfast::settings
