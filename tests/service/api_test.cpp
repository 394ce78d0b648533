// The API over the real Unix socket of a real `holdfast serve`: every
// status code a save can answer, a conflict between two clients, reads
// that match the CLI's, request bodies read like settings files, rules
// checked where they are saved, the history of a scope and a way back,
// the effective sandbox, launch records, the gatekeeper and explain.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "settings/schema.hpp"
#include "tests/service/service_process.hpp"
#include "tests/support/files.hpp"

namespace {

using holdfast::testing::HttpAnswer;
using holdfast::testing::HttpConnection;
using holdfast::testing::ServiceProcess;
using nlohmann::json;

json body_of(const std::optional<HttpAnswer>& answer) { return json::parse(answer->body); }

holdfast::testing::Headers if_match(const std::string& revision) {
  return {{"If-Match", revision}};
}

class Api : public ::testing::Test {
 protected:
  ServiceProcess service;
  HttpConnection client = service.unix_client();

  std::filesystem::path user_path() const { return service.config_dir() / "settings.json"; }
  json user_file() const { return json::parse(holdfast::testing::read_file(user_path())); }
};

TEST_F(Api, SchemaIsTheLibrarysSchema) {
  const auto r = client.get("/api/v1/schema");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(body_of(r), holdfast::settings::settings_schema());
}

TEST_F(Api, SettingsShowWhatTheCliSavedWithOriginsRevisionsAndDigest) {
  ASSERT_EQ(
      service.holdfast({"settings", "set", "tools.executionSandbox.network", "\"open\""}).exit_code,
      0);
  const auto r = client.get("/api/v1/settings");
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
    EXPECT_EQ(scope["path"], user_path().string());
    EXPECT_EQ(scope["revision"], 1);
  }
  EXPECT_TRUE(found_user) << body.dump();
}

TEST_F(Api, AnInvalidScopeIsShownWithItsDiagnosticsNotRefused) {
  holdfast::testing::write_file(user_path(),
                                "{\n  \"tools\": {\"executionSandbox\": {\"network\": 42}}\n}\n");
  const auto r = client.get("/api/v1/settings");
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
  const auto r = client.get("/api/v1/scopes/user");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("ETag"), "\"2\"");
  EXPECT_EQ(body_of(r)["revision"], 2);
  EXPECT_EQ(body_of(r)["document"]["model"], "b");
}

TEST_F(Api, PutWithoutIfMatchIs428AndSavesNothing) {
  const auto r = client.put("/api/v1/scopes/user", R"({"model": "x"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 428);
  EXPECT_EQ(body_of(r)["error"], "if_match_required");
  EXPECT_FALSE(std::filesystem::exists(user_path()));
}

TEST_F(Api, PutWithTheCurrentRevisionSavesAndAnswersTheNewOne) {
  const auto r =
      client.put("/api/v1/scopes/user", R"({"model": "x", "$revision": 99})", if_match("\"0\""));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(body_of(r)["revision"], 1);
  EXPECT_EQ(r->header("ETag"), "\"1\"");
  EXPECT_EQ(user_file(), json({{"model", "x"}, {"$revision", 1}}));
}

TEST_F(Api, PutAgainstAnOldRevisionIs412WithTheCurrentDocument) {
  ASSERT_EQ(service.holdfast({"settings", "set", "model", "\"theirs\""}).exit_code, 0);
  const auto r = client.put("/api/v1/scopes/user", R"({"model": "mine"})", if_match("0"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 412);
  EXPECT_EQ(body_of(r)["error"], "revision_conflict");
  EXPECT_EQ(body_of(r)["revision"], 1);
  EXPECT_EQ(body_of(r)["document"]["model"], "theirs");
  EXPECT_EQ(r->header("ETag"), "\"1\"");
  EXPECT_EQ(user_file()["model"], "theirs");
}

TEST_F(Api, AnInvalidDocumentIs422WithKeyExpectedAndFound) {
  const auto r = client.put("/api/v1/scopes/user",
                            R"({"tools": {"executionSandbox": {"network": 42}}})", if_match("0"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 422);
  const json body = body_of(r);
  EXPECT_EQ(body["error"], "invalid_settings");
  ASSERT_FALSE(body["diagnostics"].empty());
  EXPECT_EQ(body["diagnostics"][0]["key"], "tools.executionSandbox.network");
  const std::string message = body["diagnostics"][0]["message"];
  EXPECT_NE(message.find("expected"), std::string::npos) << message;
  EXPECT_NE(message.find("42"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(user_path()));
}

TEST_F(Api, AMalformedBodyIs400SayingWhereItBroke) {
  const auto r = client.put("/api/v1/scopes/user", "{\n  \"model\": \"x\",, }", if_match("0"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(body_of(r)["error"], "malformed_body");
  EXPECT_EQ(body_of(r)["line"], 2);
  EXPECT_EQ(body_of(r)["column"], 16);
}

// The body of a save becomes a settings file, so it is read by the file
// reader: what that refuses (a key twice, a number no double holds, bytes
// that are not UTF-8) is a 400 at its line and column, never a 500, and the
// answer is JSON even when it quotes the bad bytes.
TEST_F(Api, BodiesAreReadLikeSettingsFiles) {
  struct Case {
    std::string body;
    std::string says;
    int line;
    int column;
  };
  for (const Case& c : std::vector<Case>{
           {"{\"model\": \"a\",\n \"model\": \"b\"}", "duplicate key \"model\"", 2, 2},
           {"{\"launcher\": {\"launchRecords\": 1e999}}", "out of range", 1, 32},
           {"{\"model\": \"\xff\xfe\"}", "not valid JSON", 1, 12},
       }) {
    const auto r = client.put("/api/v1/scopes/user", c.body, if_match("0"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << c.body << ": " << r->body;
    ASSERT_TRUE(json::accept(r->body)) << r->body;
    const json body = json::parse(r->body);
    EXPECT_EQ(body["error"], "malformed_body");
    EXPECT_NE(body["message"].get<std::string>().find(c.says), std::string::npos) << r->body;
    EXPECT_EQ(body["line"], c.line) << r->body;
    EXPECT_EQ(body["column"], c.column) << r->body;
    const auto patched =
        client.patch("/api/v1/scopes/user", "{\"set\": " + c.body + "}", if_match("0"));
    ASSERT_TRUE(patched);
    EXPECT_EQ(patched->status, 400) << patched->body;
  }
  EXPECT_FALSE(std::filesystem::exists(user_path()));
}

TEST_F(Api, AFormBodyIs415SayingToSendJson) {
  holdfast::testing::HttpRequest form{"PATCH", "/api/v1/scopes/user", if_match("0"),
                                      "set=" + std::string(8192, 'x'),
                                      "application/x-www-form-urlencoded"};
  const auto r = client.send(form);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 415) << r->body;
  const std::string message = body_of(r)["message"];
  EXPECT_NE(message.find("Content-Type: application/json"), std::string::npos) << message;
  EXPECT_NE(message.find("application/x-www-form-urlencoded"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(user_path()));
}

// An API caller has no command line: no message tells it to pass a flag.
TEST_F(Api, MessagesForApiCallersNameNoCommandLineOptions) {
  const auto workspace = client.get("/api/v1/scopes/workspace");
  ASSERT_TRUE(workspace);
  EXPECT_EQ(workspace->status, 400) << workspace->body;
  const std::string says = body_of(workspace)["message"];
  EXPECT_NE(says.find("?workspace="), std::string::npos) << says;
  EXPECT_EQ(says.find("--"), std::string::npos) << says;

  const auto save =
      client.patch("/api/v1/scopes/workspace", R"({"set": {"model": "x"}})", if_match("0"));
  ASSERT_TRUE(save);
  EXPECT_EQ(save->status, 400) << save->body;
  EXPECT_EQ(save->body.find("--"), std::string::npos) << save->body;

  const auto explain = client.get("/api/v1/explain?workspace=/");
  ASSERT_TRUE(explain);
  EXPECT_EQ(explain->status, 409) << explain->body;
  EXPECT_NE(explain->body.find("workspace-is-root"), std::string::npos) << explain->body;
  EXPECT_EQ(explain->body.find("--workspace"), std::string::npos) << explain->body;
}

TEST_F(Api, RulesThatDoNotParseAre422AndNotSaved) {
  const auto put =
      client.put("/api/v1/scopes/user", R"j({"permissions": {"deny": ["Bash("]}})j", if_match("0"));
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 422) << put->body;
  EXPECT_EQ(body_of(put)["diagnostics"][0]["key"], "permissions.deny.0");
  for (const std::string rule : {R"j("bash(rm:*)")j", R"j("Bash(rm\u0000x)")j"}) {
    const auto patch = client.patch(
        "/api/v1/scopes/user", R"({"set": {"permissions.ask": [)" + rule + "]}}", if_match("0"));
    ASSERT_TRUE(patch);
    EXPECT_EQ(patch->status, 422) << rule << ": " << patch->body;
    EXPECT_EQ(body_of(patch)["diagnostics"][0]["key"], "permissions.ask.0");
  }
  EXPECT_FALSE(std::filesystem::exists(user_path()));
}

TEST_F(Api, PatchSetsAndUnsetsInOneSave) {
  ASSERT_EQ(service.holdfast({"settings", "set", "model", "\"old\""}).exit_code, 0);
  const auto r =
      client.patch("/api/v1/scopes/user",
                   R"({"set": {"tools.executionSandbox.network": "closed"}, "unset": ["model"]})",
                   if_match("\"1\""));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(body_of(r)["revision"], 2);
  EXPECT_EQ(user_file(), json::parse(R"({"tools": {"executionSandbox": {"network": "closed"}},
                                          "$revision": 2})"));
}

TEST_F(Api, PatchWithoutIfMatchIs428) {
  const auto r = client.patch("/api/v1/scopes/user", R"({"set": {"model": "x"}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 428);
}

TEST_F(Api, OfTwoClientsThatReadTheSameRevisionTheSecondToSaveGets412) {
  auto other = service.unix_client();
  const std::string seen = client.get("/api/v1/scopes/user")->header("ETag");
  ASSERT_EQ(other.get("/api/v1/scopes/user")->header("ETag"), seen);

  const auto first =
      client.patch("/api/v1/scopes/user", R"({"set": {"model": "first"}})", if_match(seen));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  const auto second =
      other.patch("/api/v1/scopes/user", R"({"set": {"model": "second"}})", if_match(seen));
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 412);
  EXPECT_EQ(body_of(second)["document"]["model"], "first");
  EXPECT_EQ(user_file()["model"], "first");
}

TEST_F(Api, BadRequestsAnswerJsonErrors) {
  const auto scope = client.get("/api/v1/scopes/nonsense");
  ASSERT_TRUE(scope);
  EXPECT_EQ(scope->status, 400);
  EXPECT_NE(body_of(scope)["message"].get<std::string>().find("unknown scope"), std::string::npos);

  const auto relative = client.get("/api/v1/settings?workspace=relative/dir");
  ASSERT_TRUE(relative);
  EXPECT_EQ(relative->status, 400);

  const auto events = client.get("/api/v1/events?workspace=relative/dir");
  ASSERT_TRUE(events);
  EXPECT_EQ(events->status, 400);

  const auto escape = client.get("/api/v1/settings?workspace=%zz");
  ASSERT_TRUE(escape);
  EXPECT_EQ(escape->status, 400);

  const auto missing = client.get("/api/v1/nothing");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(body_of(missing)["error"], "not_found");

  const auto method = client.send({"DELETE", "/api/v1/scopes/user", {}, "", ""});
  ASSERT_TRUE(method);
  EXPECT_EQ(method->status, 405);
  EXPECT_EQ(method->header("Allow"), "GET, PUT, PATCH");
}

TEST_F(Api, WorkspaceScopeIsReadAndSavedForTheNamedWorkspace) {
  const auto workspace = service.dir() / "project";
  std::filesystem::create_directories(workspace);
  const std::string query = "?workspace=" + workspace.string();
  const auto saved = client.patch("/api/v1/scopes/workspace" + query, R"({"set": {"model": "ws"}})",
                                  if_match("0"));
  ASSERT_TRUE(saved);
  ASSERT_EQ(saved->status, 200) << saved->body;
  const auto settings = client.get("/api/v1/settings" + query);
  EXPECT_EQ(body_of(settings)["origins"]["model"], "workspace");
  EXPECT_TRUE(std::filesystem::exists(workspace / ".holdfast" / "settings.json"));
}

// Waits (on the event stream, not a clock) until the service has seen the
// user scope at `revision`.
void wait_for_revision(HttpConnection& events, int revision) {
  for (;;) {
    const auto event = events.next_event();
    ASSERT_TRUE(event) << "no event for revision " << revision;
    const json data = json::parse(holdfast::testing::event_data(*event));
    if (data["revisions"]["user"] == revision) return;
  }
}

// The saves the service saw, newest first, with the keys each changed; an
// earlier one goes back as an ordinary save with If-Match: a new revision
// holding the earlier document.
TEST_F(Api, HistoryListsTheSavesSeenAndAnEarlierOneGoesBackThroughIfMatch) {
  HttpConnection events = service.unix_client();
  const auto stream = events.open_stream({"GET", "/api/v1/events", {}, "", ""});
  ASSERT_TRUE(stream);
  ASSERT_EQ(stream->status, 200);
  ASSERT_TRUE(events.next_event());  // the state it starts from
  ASSERT_EQ(service.holdfast({"settings", "set", "tools.executionSandbox.network", "\"closed\""})
                .exit_code,
            0);
  wait_for_revision(events, 1);
  ASSERT_EQ(
      service.holdfast({"settings", "set", "tools.executionSandbox.network", "\"open\""}).exit_code,
      0);
  // (Saves closer together than the watcher looks may show as the last.)
  wait_for_revision(events, 2);
  ASSERT_EQ(service.holdfast({"settings", "set", "model", "\"m\""}).exit_code, 0);
  wait_for_revision(events, 3);

  const auto history = client.get("/api/v1/scopes/user/history");
  ASSERT_TRUE(history);
  ASSERT_EQ(history->status, 200) << history->body;
  const json entries = body_of(history)["entries"];
  // Newest first, back to the file's absence when the service started.
  ASSERT_EQ(entries.size(), 4u) << entries.dump();
  EXPECT_EQ(entries[0]["revision"], 3);
  EXPECT_EQ(entries[0]["keys"], json::array({"model"}));
  EXPECT_EQ(entries[1]["revision"], 2);
  EXPECT_EQ(entries[1]["keys"], json::array({"tools.executionSandbox.network"}));
  EXPECT_EQ(entries[2]["revision"], 1);
  EXPECT_FALSE(entries[3]["exists"].get<bool>());

  const auto first = client.get("/api/v1/scopes/user/history/" + entries[2]["id"].dump());
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  const json earlier = body_of(first)["document"];
  EXPECT_EQ(earlier, json::parse(R"({"tools": {"executionSandbox": {"network": "closed"}}})"));

  // Back, against a stale revision: refused like any save.
  const auto stale = client.put("/api/v1/scopes/user", earlier.dump(), if_match("2"));
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->status, 412);
  const auto back = client.put("/api/v1/scopes/user", earlier.dump(), if_match("3"));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->status, 200) << back->body;
  json expected = earlier;
  expected["$revision"] = 4;
  EXPECT_EQ(user_file(), expected);
}

// What a command may read, write and reach, part by part with where it
// came from, without a workspace, the built-in default included.
TEST_F(Api, TheEffectiveSandboxSaysWhereEachPartCameFrom) {
  const auto none = client.get("/api/v1/sandbox");
  ASSERT_TRUE(none);
  ASSERT_EQ(none->status, 200) << none->body;
  const json policy = body_of(none)["policy"];
  EXPECT_EQ(policy["form"], "built-in default");
  EXPECT_EQ(policy["network"], "closed");
  EXPECT_EQ(policy["networkOrigin"], "built-in default");
  EXPECT_EQ(policy["unixSockets"], "pairs");
  EXPECT_NE(std::find(policy["filesystem"].begin(), policy["filesystem"].end(),
                      json({{"key", ":workspace"},
                            {"written", ":workspace"},
                            {"access", "write"},
                            {"origin", "built-in default"}})),
            policy["filesystem"].end())
      << policy.dump();

  // The network opened in the user scope: Unix sockets follow, and say so.
  ASSERT_EQ(
      service.holdfast({"settings", "set", "tools.executionSandbox.network", "\"open\""}).exit_code,
      0);
  const json open = body_of(client.get("/api/v1/sandbox"))["policy"];
  EXPECT_EQ(open["networkOrigin"], "user");
  EXPECT_EQ(open["unixSockets"], "allow");
  EXPECT_EQ(open["unixSocketsOrigin"], "built-in default with the network open");
  EXPECT_NE(open["unixSocketsReach"].get<std::string>().find("every host Unix socket"),
            std::string::npos);
}

TEST_F(Api, LaunchesAreTheLastRecordsOfTheLog) {
  holdfast::testing::write_file(service.state_dir() / "launches.jsonl",
                                "{\"n\": 1}\n{\"n\": 2}\nnot json\n{\"n\": 3}\n");
  const auto r = client.get("/api/v1/launches?limit=2");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(body_of(r)["records"], json::parse(R"([{"n": 2}, {"n": 3}])"));
  EXPECT_EQ(body_of(r)["skipped"], 1);
  EXPECT_EQ(client.get("/api/v1/launches?limit=0")->status, 400);
}

// A launch with a network allow-list carries its connections, read from
// the audit log its record names, but only from the state directory's
// network/: a record pointing anywhere else gets none (records are text).
TEST_F(Api, LaunchesCarryTheirConnectionsFromTheStateDirectoryOnly) {
  const auto audit = service.state_dir() / "network" / "1-2-1.jsonl";
  std::filesystem::create_directories(audit.parent_path());
  holdfast::testing::write_file(audit,
                                "{\"host\": \"github.com\", \"allowed\": true}\n"
                                "{\"host\": \"evil.example\", \"allowed\": false}\n");
  const auto elsewhere = service.state_dir() / "elsewhere.jsonl";
  holdfast::testing::write_file(elsewhere, "{\"host\": \"secret\"}\n");
  const json ours = {{"n", 1}, {"network", {{"audit", audit.string()}}}};
  const json theirs = {{"n", 2}, {"network", {{"audit", elsewhere.string()}}}};
  const json dotted = {
      {"n", 3},
      {"network",
       {{"audit", (service.state_dir() / "network" / ".." / "elsewhere.jsonl").string()}}}};
  holdfast::testing::write_file(service.state_dir() / "launches.jsonl",
                                ours.dump() + "\n" + theirs.dump() + "\n" + dotted.dump() + "\n");
  const auto r = client.get("/api/v1/launches");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json records = body_of(r)["records"];
  ASSERT_EQ(records.size(), 3u);
  ASSERT_TRUE(records[0]["network"].contains("connections")) << records[0].dump();
  ASSERT_EQ(records[0]["network"]["connections"].size(), 2u) << records[0].dump();
  EXPECT_EQ(records[0]["network"]["connections"][1]["host"], "evil.example");
  EXPECT_FALSE(records[1]["network"].contains("connections")) << records[1].dump();
  EXPECT_FALSE(records[2]["network"].contains("connections")) << records[2].dump();
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
    const auto r = client.post("/api/v1/check", json({{"tool", c.tool},
                                                      {"argument", c.argument},
                                                      {"workspace", workspace},
                                                      {"cwd", workspace}})
                                                    .dump());
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(body_of(r)["decision"], c.decision) << c.tool << " " << c.argument;
    EXPECT_EQ(body_of(r)["rule"], c.rule) << c.tool << " " << c.argument;
    const auto cli = service.holdfast(
        {"check", "--json", "--workspace", workspace, "--cwd", workspace, c.tool, c.argument});
    ASSERT_TRUE(json::accept(cli.out))
        << "holdfast check exited " << cli.exit_code << ": " << cli.err;
    const json expected = json::parse(cli.out);
    EXPECT_EQ(expected["decision"], c.decision) << c.tool << " " << c.argument;
    EXPECT_EQ(body_of(r)["reason"], expected["reason"]);
  }
  const auto missing = client.post("/api/v1/check", R"({"argument": "x"})");
  EXPECT_EQ(missing->status, 400);
}

TEST_F(Api, ExplainCarriesTheTextOfRunExplain) {
  const auto workspace = service.dir() / "project";
  std::filesystem::create_directories(workspace);
  const auto r = client.get("/api/v1/explain?workspace=" + workspace.string());
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

// The page's effective-sandbox view lists what is hidden, as data: a
// credential store made in the service's home is among the hidden paths.
TEST_F(Api, ExplainListsTheHiddenCredentialStores) {
  const auto workspace = service.dir() / "project";
  std::filesystem::create_directories(workspace);
  std::filesystem::create_directories(service.dir() / "home" / ".aws");
  const auto r = client.get("/api/v1/explain?workspace=" + workspace.string());
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json hidden = body_of(r)["protection"]["credentials"]["hidden"];
  const auto aws = std::filesystem::canonical(service.dir() / "home" / ".aws").string();
  EXPECT_NE(std::find(hidden.begin(), hidden.end(), json{{"store", "aws"}, {"path", aws}}),
            hidden.end())
      << hidden.dump();
}

}  // namespace
