// The pure rules of the service: who may use it over TCP, what is refused
// from a request's head, where the socket may live, which listen addresses
// are loopback, what an If-Match names, how a query string decodes, and
// the history a scope file keeps.
#include "service/access.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "service/http_message.hpp"
#include "service/listen_socket.hpp"
#include "service/request_rules.hpp"
#include "service/scope_history.hpp"
#include "service/settings_routes.hpp"
#include "service/socket_directory.hpp"
#include "settings/errors.hpp"

namespace {

using holdfast::service::AccessVerdict;
using holdfast::service::check_tcp_access;
using holdfast::service::RequestFacts;
using holdfast::service::TcpAccess;

TcpAccess access_with_session() {
  return TcpAccess{"127.0.0.1:8731", "link", true, std::string("session")};
}

RequestFacts get(const std::string& path) {
  RequestFacts facts;
  facts.method = "GET";
  facts.path = path;
  facts.host = "127.0.0.1:8731";
  facts.authorization = "Bearer session";
  return facts;
}

RequestFacts exchange(const std::string& link) {
  RequestFacts facts;
  facts.method = "POST";
  facts.path = "/api/v1/session";
  facts.host = "127.0.0.1:8731";
  facts.origin = "http://127.0.0.1:8731";
  facts.authorization = "Bearer " + link;
  return facts;
}

TEST(TcpAccess, TheSessionInTheHeaderIsAdmittedInAnyCaseOfTheScheme) {
  const TcpAccess access = access_with_session();
  EXPECT_EQ(check_tcp_access(access, get("/api/v1/settings")).status, 0);
  RequestFacts lower = get("/api/v1/settings");
  lower.authorization = "bearer session";
  EXPECT_EQ(check_tcp_access(access, lower).status, 0);
  lower.authorization = "BEARER   session  ";
  EXPECT_EQ(check_tcp_access(access, lower).status, 0);
  lower.authorization = "Basic session";
  EXPECT_EQ(check_tcp_access(access, lower).status, 401);
  lower.authorization = "Bearersession";
  EXPECT_EQ(check_tcp_access(access, lower).status, 401);
  lower.authorization = "Bearer sessio";
  EXPECT_EQ(check_tcp_access(access, lower).status, 401);
  lower.authorization = "Bearer link";  // the link is no session
  EXPECT_EQ(check_tcp_access(access, lower).status, 401);
}

TEST(TcpAccess, NoSessionBeforeTheLinkIsExchanged) {
  TcpAccess access{"127.0.0.1:8731", "link", false, std::nullopt};
  RequestFacts facts = get("/api/v1/settings");
  EXPECT_EQ(check_tcp_access(access, facts).status, 401);
  facts.authorization = "Bearer ";
  EXPECT_EQ(check_tcp_access(access, facts).status, 401);
}

TEST(TcpAccess, TheLinkIsExchangedOnceForANewSession) {
  TcpAccess access{"127.0.0.1:8731", "link", false, std::nullopt};
  EXPECT_EQ(check_tcp_access(access, exchange("guess")).status, 401);
  RequestFacts no_origin = exchange("link");
  no_origin.origin.reset();
  EXPECT_EQ(check_tcp_access(access, no_origin).status, 403);
  const AccessVerdict ok = check_tcp_access(access, exchange("link"));
  EXPECT_EQ(ok.status, 0);
  ASSERT_TRUE(ok.exchange_link);
  const std::string session = holdfast::service::exchange_link(access);
  EXPECT_EQ(session.size(), 64u);
  EXPECT_NE(session, "link");
  const AccessVerdict again = check_tcp_access(access, exchange("link"));
  EXPECT_EQ(again.status, 401);
  EXPECT_EQ(again.error, "link_used");
  RequestFacts with_session = get("/api/v1/settings");
  with_session.authorization = "Bearer " + session;
  EXPECT_EQ(check_tcp_access(access, with_session).status, 0);
}

TEST(TcpAccess, HostIsCheckedFirst) {
  RequestFacts facts = get("/api/v1/settings");
  facts.host = "evil.example:8731";
  facts.authorization.reset();
  EXPECT_EQ(check_tcp_access(access_with_session(), facts).status, 421);
  facts.host.reset();
  EXPECT_EQ(check_tcp_access(access_with_session(), facts).status, 421);
  RequestFacts page = get("/");
  page.host = "evil.example:8731";
  EXPECT_EQ(check_tcp_access(access_with_session(), page).status, 421);
}

TEST(TcpAccess, ThePageFilesNeedNoCredential) {
  for (const std::string path : {"/", "/page/page.js"}) {
    RequestFacts page = get(path);
    page.authorization.reset();
    const AccessVerdict verdict = check_tcp_access(access_with_session(), page);
    EXPECT_EQ(verdict.status, 0) << path;
    EXPECT_TRUE(verdict.public_file) << path;
  }
  RequestFacts api = get("/api/v1");
  api.authorization.reset();
  EXPECT_EQ(check_tcp_access(access_with_session(), api).status, 401);
  RequestFacts post_page = get("/");
  post_page.method = "POST";
  post_page.origin = "http://127.0.0.1:8731";
  post_page.authorization.reset();
  EXPECT_FALSE(check_tcp_access(access_with_session(), post_page).public_file);
}

TEST(TcpAccess, WritesNeedTheExactOrigin) {
  RequestFacts put = get("/api/v1/scopes/user");
  put.method = "PUT";
  EXPECT_EQ(check_tcp_access(access_with_session(), put).status, 403);
  put.origin = "http://127.0.0.1:8731/";
  EXPECT_EQ(check_tcp_access(access_with_session(), put).status, 403);
  put.origin = "https://127.0.0.1:8731";
  EXPECT_EQ(check_tcp_access(access_with_session(), put).status, 403);
  put.origin = "http://127.0.0.1:8731";
  EXPECT_EQ(check_tcp_access(access_with_session(), put).status, 0);
  put.authorization.reset();  // the Origin alone is not enough
  EXPECT_EQ(check_tcp_access(access_with_session(), put).status, 401);
}

TEST(TcpAccess, TokensAreFreshAndLong) {
  const std::string a = holdfast::service::new_token();
  EXPECT_EQ(a.size(), 64u);
  EXPECT_NE(a, holdfast::service::new_token());
}

holdfast::service::Request request(std::string method,
                                   std::vector<std::pair<std::string, std::string>> headers) {
  holdfast::service::Request r;
  r.method = std::move(method);
  r.path = "/api/v1/scopes/user";
  r.headers = std::move(headers);
  return r;
}

TEST(HeadRefusal, BodiesMustBeDeclaredJsonAndFitASettingsFile) {
  using holdfast::service::head_refusal;
  const std::size_t limit = 1000;
  EXPECT_FALSE(head_refusal(
      request("PUT", {{"Content-Type", "application/json"}, {"Content-Length", "10"}}), limit));
  EXPECT_FALSE(head_refusal(request("PUT", {{"content-type", "Application/JSON; charset=UTF-8"},
                                            {"Content-Length", "10"}}),
                            limit));
  const auto form = head_refusal(
      request("PATCH",
              {{"Content-Type", "application/x-www-form-urlencoded"}, {"Content-Length", "8192"}}),
      100000);
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 415);
  const auto latin = head_refusal(
      request("PUT",
              {{"Content-Type", "application/json; charset=latin1"}, {"Content-Length", "3"}}),
      limit);
  ASSERT_TRUE(latin);
  EXPECT_EQ(latin->status, 415);
  const auto undeclared = head_refusal(request("POST", {{"Content-Length", "3"}}), limit);
  ASSERT_TRUE(undeclared);
  EXPECT_EQ(undeclared->status, 415);
  const auto large = head_refusal(
      request("PUT", {{"Content-Type", "application/json"}, {"Content-Length", "1001"}}), limit);
  ASSERT_TRUE(large);
  EXPECT_EQ(large->status, 413);
  // No body: nothing to declare.
  EXPECT_FALSE(head_refusal(request("POST", {{"Content-Length", "0"}}), limit));
  EXPECT_FALSE(head_refusal(request("GET", {}), limit));
}

TEST(HeadRefusal, AHeaderThatDecidesAccessMaySeeOnlyOnce) {
  const auto twice = holdfast::service::head_refusal(
      request("GET", {{"Authorization", "Bearer a"}, {"authorization", "Bearer b"}}), 10);
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice->status, 400);
  EXPECT_TRUE(twice->close);
  EXPECT_FALSE(
      holdfast::service::head_refusal(request("GET", {{"Accept", "a"}, {"Accept", "b"}}), 10));
}

TEST(Query, DecodesEscapesAndPlusAndRefusesBrokenEscapes) {
  using holdfast::service::parse_query;
  const auto q = parse_query("workspace=%2Fhome%2Fme+x&limit=2&&flag");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->find("workspace")->second, "/home/me x");
  EXPECT_EQ(q->find("limit")->second, "2");
  EXPECT_EQ(q->find("flag")->second, "");
  EXPECT_FALSE(parse_query("a=%2"));
  EXPECT_FALSE(parse_query("a=%zz"));
}

TEST(SocketDirectory, OnlyTheOwnerAndRootMayWriteOnThePath) {
  using holdfast::service::directory_problem;
  using holdfast::service::DirectoryFacts;
  using holdfast::service::DirectoryRole;
  const uid_t me = 1000;
  const auto problem = [&](uid_t owner, mode_t mode, DirectoryRole role) {
    return directory_problem(DirectoryFacts{"/d", owner, S_IFDIR | mode, true}, role, me);
  };
  EXPECT_FALSE(problem(me, 0700, DirectoryRole::on_the_path));
  EXPECT_FALSE(problem(0, 0755, DirectoryRole::on_the_path));
  EXPECT_FALSE(problem(0, 01777, DirectoryRole::on_the_path));  // /tmp
  EXPECT_TRUE(problem(0, 0777, DirectoryRole::on_the_path));
  EXPECT_TRUE(problem(me, 0770, DirectoryRole::on_the_path));
  EXPECT_TRUE(problem(2000, 0700, DirectoryRole::on_the_path));
  EXPECT_NE(problem(0, 0777, DirectoryRole::on_the_path)->find("chmod go-w /d"), std::string::npos);
  // The runtime directory must be the user's own, and private.
  EXPECT_FALSE(problem(me, 0700, DirectoryRole::runtime_dir));
  EXPECT_TRUE(problem(0, 0700, DirectoryRole::runtime_dir));
  EXPECT_TRUE(problem(me, 01777, DirectoryRole::runtime_dir));
  EXPECT_NE(problem(2000, 0700, DirectoryRole::runtime_dir)->find("belongs to uid 2000"),
            std::string::npos);
  EXPECT_TRUE(directory_problem(DirectoryFacts{"/f", me, S_IFREG | 0600, false},
                                DirectoryRole::on_the_path, me));
}

TEST(ScopeHistory, RecordsEachNewContentWithTheKeysItChanged) {
  holdfast::service::ScopeHistory history(2);
  std::uint64_t next = 1;
  holdfast::settings::ScopeFile file;
  file.exists = true;
  file.revision = 1;
  file.document = nlohmann::json::parse(R"({"a": 1, "$revision": 1})");
  file.identity.sha256 = "one";
  EXPECT_TRUE(history.record(file, 10, next));
  EXPECT_FALSE(history.record(file, 11, next));  // the same bytes again
  file.revision = 2;
  file.document = nlohmann::json::parse(R"({"a": 2, "b": true, "$revision": 2})");
  file.identity.sha256 = "two";
  EXPECT_TRUE(history.record(file, 12, next));
  file.revision = 3;
  file.document = nlohmann::json::parse(R"({"b": true, "$revision": 3})");
  file.identity.sha256 = "three";
  EXPECT_TRUE(history.record(file, 13, next));
  ASSERT_EQ(history.entries().size(), 2u);  // the capacity
  EXPECT_EQ(history.entries().front().revision, 2u);
  EXPECT_EQ(history.entries().back().keys, std::vector<std::string>{"a"});
  EXPECT_EQ(history.entries().back().document, nlohmann::json::parse(R"({"b": true})"));
  const nlohmann::json listed = holdfast::service::history_json(history);
  EXPECT_EQ(listed[0]["revision"], 3);
  EXPECT_FALSE(listed[0].contains("document"));
  EXPECT_EQ(history.find(listed[1]["id"])->revision, 2u);
  EXPECT_EQ(history.find(999), nullptr);
}

TEST(ListenAddress, ParsesNumericAddressesAndKnowsLoopback) {
  using holdfast::service::is_loopback;
  using holdfast::service::parse_tcp_address;
  EXPECT_EQ(parse_tcp_address("127.0.0.1:8731").authority(), "127.0.0.1:8731");
  EXPECT_EQ(parse_tcp_address("[::1]:0").host, "::1");
  EXPECT_EQ(parse_tcp_address("[::1]:80").authority(), "[::1]:80");
  EXPECT_THROW(parse_tcp_address("localhost:80"), holdfast::settings::UsageError);
  EXPECT_THROW(parse_tcp_address("127.0.0.1"), holdfast::settings::UsageError);
  EXPECT_THROW(parse_tcp_address("127.0.0.1:65536"), holdfast::settings::UsageError);
  EXPECT_TRUE(is_loopback("127.0.0.1"));
  EXPECT_TRUE(is_loopback("127.1.2.3"));
  EXPECT_TRUE(is_loopback("::1"));
  EXPECT_FALSE(is_loopback("0.0.0.0"));
  EXPECT_FALSE(is_loopback("192.168.1.1"));
  EXPECT_FALSE(is_loopback("::"));
}

TEST(IfMatch, NamesARevisionOrNothing) {
  using holdfast::service::parse_if_match;
  EXPECT_EQ(parse_if_match(""), std::nullopt);
  EXPECT_EQ(parse_if_match("7"), 7u);
  EXPECT_EQ(parse_if_match("\"7\""), 7u);
  EXPECT_THROW(parse_if_match("*"), holdfast::settings::UsageError);
  EXPECT_THROW(parse_if_match("W/\"7\""), holdfast::settings::UsageError);
  EXPECT_THROW(parse_if_match("-1"), holdfast::settings::UsageError);
  EXPECT_THROW(parse_if_match("9007199254740992"), holdfast::settings::UsageError);
}

}  // namespace
