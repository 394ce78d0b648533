// The API over the real Unix socket of a real `holdfast serve`: every
// status code a save can answer, a conflict between two clients, reads
// that match the CLI's, launch records, the gatekeeper and explain.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "settings/schema.hpp"
#include "tests/service/service_process.hpp"
#include "tests/support/files.hpp"

namespace {

using holdfast::testing::ServiceProcess;
using nlohmann::json;

json body_of(const httplib::Result& result) { return json::parse(result->body); }

httplib::Headers if_match(const std::string& revision) { return {{"If-Match", revision}}; }

class Api : public ::testing::Test {
 protected:
  ServiceProcess service;
  std::unique_ptr<httplib::Client> client = service.unix_client();

  json user_file() const {
    return json::parse(holdfast::testing::read_file(service.config_dir() / "settings.json"));
  }
};

TEST_F(Api, SchemaIsTheLibrarysSchema) {
  const auto r = client->Get("/api/v1/schema");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(body_of(r), holdfast::settings::settings_schema());
}

TEST_F(Api, SettingsShowWhatTheCliSavedWithOriginsRevisionsAndDigest) {
  ASSERT_EQ(
      service.holdfast({"settings", "set", "tools.executionSandbox.network", "\"open\""}).exit_code,
      0);
  const auto r = client->Get("/api/v1/settings");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json body = body_of(r);
  EXPECT_EQ(body["effective"]["tools"]["executionSandbox"]["network"], "open");
  EXPECT_EQ(body["origins"]["tools.executionSandbox.network"], "user");
  EXPECT_TRUE(body["valid"].get<bool>());
  EXPECT_EQ(body["digest"].get<std::string>().size(), 64u);
  bool found_user = false;
  for (const auto& scope : body["scopes"]) {
    if (scope["scope"] != "user") continue;
    found_user = true;
    EXPECT_EQ(scope["path"], (service.config_dir() / "settings.json").string());
    EXPECT_EQ(scope["revision"], 1);
  }
  EXPECT_TRUE(found_user) << body.dump();
}

TEST_F(Api, AnInvalidScopeIsShownWithItsDiagnosticsNotRefused) {
  holdfast::testing::write_file(service.config_dir() / "settings.json",
                                "{\n  \"tools\": {\"executionSandbox\": {\"network\": 42}}\n}\n");
  const auto r = client->Get("/api/v1/settings");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json body = body_of(r);
  EXPECT_FALSE(body["valid"].get<bool>());
  EXPECT_TRUE(body["digest"].is_null());
  const json& user = body["scopes"][1];
  EXPECT_EQ(user["scope"], "user");
  EXPECT_FALSE(user["valid"].get<bool>());
  ASSERT_FALSE(user["diagnostics"].empty());
  EXPECT_EQ(user["diagnostics"][0]["key"], "tools.executionSandbox.network");
  EXPECT_EQ(user["diagnostics"][0]["line"], 2);
}

TEST_F(Api, AScopeCarriesItsRevisionAsETag) {
  ASSERT_EQ(service.holdfast({"settings", "set", "model", "\"a\""}).exit_code, 0);
  ASSERT_EQ(service.holdfast({"settings", "set", "model", "\"b\""}).exit_code, 0);
  const auto r = client->Get("/api/v1/scopes/user");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("ETag"), "\"2\"");
  EXPECT_EQ(body_of(r)["revision"], 2);
  EXPECT_EQ(body_of(r)["document"]["model"], "b");
}

TEST_F(Api, PutWithoutIfMatchIs428AndSavesNothing) {
  const auto r = client->Put("/api/v1/scopes/user", R"({"model": "x"})", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 428);
  EXPECT_EQ(body_of(r)["error"], "if_match_required");
  EXPECT_FALSE(std::filesystem::exists(service.config_dir() / "settings.json"));
}

TEST_F(Api, PutWithTheCurrentRevisionSavesAndAnswersTheNewOne) {
  const auto r = client->Put("/api/v1/scopes/user", if_match("\"0\""),
                             R"({"model": "x", "$revision": 99})", "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(body_of(r)["revision"], 1);
  EXPECT_EQ(r->get_header_value("ETag"), "\"1\"");
  EXPECT_EQ(user_file(), json({{"model", "x"}, {"$revision", 1}}));
}

TEST_F(Api, PutAgainstAnOldRevisionIs412WithTheCurrentDocument) {
  ASSERT_EQ(service.holdfast({"settings", "set", "model", "\"theirs\""}).exit_code, 0);
  const auto r =
      client->Put("/api/v1/scopes/user", if_match("0"), R"({"model": "mine"})", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 412);
  EXPECT_EQ(body_of(r)["error"], "revision_conflict");
  EXPECT_EQ(body_of(r)["revision"], 1);
  EXPECT_EQ(body_of(r)["document"]["model"], "theirs");
  EXPECT_EQ(r->get_header_value("ETag"), "\"1\"");
  EXPECT_EQ(user_file()["model"], "theirs");
}

TEST_F(Api, AnInvalidDocumentIs422WithKeyExpectedAndFound) {
  const auto r =
      client->Put("/api/v1/scopes/user", if_match("0"),
                  R"({"tools": {"executionSandbox": {"network": 42}}})", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 422);
  const json body = body_of(r);
  EXPECT_EQ(body["error"], "invalid_settings");
  ASSERT_FALSE(body["diagnostics"].empty());
  EXPECT_EQ(body["diagnostics"][0]["key"], "tools.executionSandbox.network");
  const std::string message = body["diagnostics"][0]["message"];
  EXPECT_NE(message.find("expected"), std::string::npos) << message;
  EXPECT_NE(message.find("42"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(service.config_dir() / "settings.json"));
}

TEST_F(Api, AMalformedBodyIs400SayingWhereItBroke) {
  const auto r =
      client->Put("/api/v1/scopes/user", if_match("0"), R"({"model": "x",, })", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(body_of(r)["error"], "malformed_body");
  EXPECT_EQ(body_of(r)["byte"], 15);
}

TEST_F(Api, PatchSetsAndUnsetsInOneSave) {
  ASSERT_EQ(service.holdfast({"settings", "set", "model", "\"old\""}).exit_code, 0);
  const auto r =
      client->Patch("/api/v1/scopes/user", if_match("\"1\""),
                    R"({"set": {"tools.executionSandbox.network": "closed"}, "unset": ["model"]})",
                    "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(body_of(r)["revision"], 2);
  EXPECT_EQ(user_file(), json::parse(R"({"tools": {"executionSandbox": {"network": "closed"}},
                                          "$revision": 2})"));
}

TEST_F(Api, PatchWithoutIfMatchIs428) {
  const auto r =
      client->Patch("/api/v1/scopes/user", R"({"set": {"model": "x"}})", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 428);
}

TEST_F(Api, OfTwoClientsThatReadTheSameRevisionTheSecondToSaveGets412) {
  auto other = service.unix_client();
  const std::string seen = client->Get("/api/v1/scopes/user")->get_header_value("ETag");
  ASSERT_EQ(other->Get("/api/v1/scopes/user")->get_header_value("ETag"), seen);

  const auto first = client->Patch("/api/v1/scopes/user", if_match(seen),
                                   R"({"set": {"model": "first"}})", "application/json");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  const auto second = other->Patch("/api/v1/scopes/user", if_match(seen),
                                   R"({"set": {"model": "second"}})", "application/json");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 412);
  EXPECT_EQ(body_of(second)["document"]["model"], "first");
  EXPECT_EQ(user_file()["model"], "first");
}

TEST_F(Api, BadRequestsAnswerJsonErrors) {
  const auto scope = client->Get("/api/v1/scopes/nonsense");
  ASSERT_TRUE(scope);
  EXPECT_EQ(scope->status, 400);
  EXPECT_NE(body_of(scope)["message"].get<std::string>().find("unknown scope"), std::string::npos);

  const auto workspace = client->Get("/api/v1/scopes/workspace");
  ASSERT_TRUE(workspace);
  EXPECT_EQ(workspace->status, 400) << workspace->body;

  const auto relative = client->Get("/api/v1/settings?workspace=relative/dir");
  ASSERT_TRUE(relative);
  EXPECT_EQ(relative->status, 400);

  const auto events = client->Get("/api/v1/events?workspace=relative/dir");
  ASSERT_TRUE(events);
  EXPECT_EQ(events->status, 400);

  const auto missing = client->Get("/api/v1/nothing");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(body_of(missing)["error"], "not_found");
}

TEST_F(Api, WorkspaceScopeIsReadAndSavedForTheNamedWorkspace) {
  const auto workspace = service.dir() / "project";
  std::filesystem::create_directories(workspace);
  const std::string query = "?workspace=" + workspace.string();
  const auto saved = client->Patch("/api/v1/scopes/workspace" + query, if_match("0"),
                                   R"({"set": {"model": "ws"}})", "application/json");
  ASSERT_TRUE(saved);
  ASSERT_EQ(saved->status, 200) << saved->body;
  const auto settings = client->Get("/api/v1/settings" + query);
  EXPECT_EQ(body_of(settings)["origins"]["model"], "workspace");
  EXPECT_TRUE(std::filesystem::exists(workspace / ".holdfast" / "settings.json"));
}

TEST_F(Api, LaunchesAreTheLastRecordsOfTheLog) {
  holdfast::testing::write_file(service.state_dir() / "launches.jsonl",
                                "{\"n\": 1}\n{\"n\": 2}\nnot json\n{\"n\": 3}\n");
  const auto r = client->Get("/api/v1/launches?limit=2");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(body_of(r)["records"], json::parse(R"([{"n": 2}, {"n": 3}])"));
  EXPECT_EQ(body_of(r)["skipped"], 1);
  EXPECT_EQ(client->Get("/api/v1/launches?limit=0")->status, 400);
}

// The check route answers with the operator's rules, as `holdfast check`
// does: a denied read is denied by its rule, an allowed command allowed by
// its rule, and a fetch no rule covers is asked (the tool default). Each
// answer is stated, so a gatekeeper that allowed everything fails here.
TEST_F(Api, CheckDecidesWithTheRulesAsTheCliDoes) {
  ASSERT_EQ(service
                .holdfast({"settings", "set", "permissions",
                           R"j({"deny": ["Read(//etc/shadow)"], "allow": ["Bash(ls:*)"]})j"})
                .exit_code,
            0);
  // The call runs in the workspace: `ls -l` elsewhere would read a
  // directory outside it, which is asked whatever the allow rule says.
  const std::string workspace = service.dir().string();
  struct Case {
    std::string tool, argument, decision;
    json rule;
  };
  for (const Case& c : std::vector<Case>{{"Read", "/etc/shadow", "deny", "Read(//etc/shadow)"},
                                         {"Bash", "ls -l", "allow", "Bash(ls:*)"},
                                         {"Bash", "curl example.org", "ask", nullptr}}) {
    const auto r = client->Post(
        "/api/v1/check",
        json({{"tool", c.tool},
              {"argument", c.argument},
              {"workspace", workspace},
              {"cwd", workspace}})
            .dump(),
        "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(body_of(r)["decision"], c.decision) << c.tool << " " << c.argument;
    EXPECT_EQ(body_of(r)["rule"], c.rule) << c.tool << " " << c.argument;
    const auto cli =
        service.holdfast({"check", "--json", "--workspace", workspace, "--cwd", workspace, c.tool,
                          c.argument});
    ASSERT_TRUE(json::accept(cli.out)) << "holdfast check exited " << cli.exit_code << ": "
                                       << cli.err;
    const json expected = json::parse(cli.out);
    EXPECT_EQ(expected["decision"], c.decision) << c.tool << " " << c.argument;
    EXPECT_EQ(body_of(r)["reason"], expected["reason"]);
  }
  const auto missing = client->Post("/api/v1/check", R"({"argument": "x"})", "application/json");
  EXPECT_EQ(missing->status, 400);
}

TEST_F(Api, ExplainCarriesTheTextOfRunExplain) {
  const auto workspace = service.dir() / "project";
  std::filesystem::create_directories(workspace);
  const auto r = client->Get("/api/v1/explain?workspace=" + workspace.string());
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json body = body_of(r);
  const auto cli = service.holdfast(
      {"run", "--explain", "--workspace", workspace.string(), "--", "true"}, workspace);
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(body["text"], cli.out);
  EXPECT_EQ(body["policy"]["form"], "built-in default");
  EXPECT_FALSE(body["seccomp"].empty());
}

}  // namespace
