// `holdfast serve --listen 127.0.0.1:0` over real TCP: the token, the Host
// check against DNS rebinding, the Origin check on writes, the cookie the
// printed URL sets, no CORS, and no non-loopback address unless asked.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "tests/service/service_process.hpp"

namespace {

using holdfast::testing::ServiceProcess;
using nlohmann::json;

class Tcp : public ::testing::Test {
 protected:
  ServiceProcess service{{"--listen", "127.0.0.1:0"}};
  std::string authority;  // 127.0.0.1:PORT
  std::string token;
  std::unique_ptr<httplib::Client> client;

  void SetUp() override {
    std::smatch m;
    const std::string& where = service.where();
    ASSERT_TRUE(std::regex_match(
        where, m, std::regex(R"(http://(127\.0\.0\.1:(\d+))/\?token=([0-9a-f]{64}))")))
        << where;
    authority = m[1];
    token = m[3];
    client = std::make_unique<httplib::Client>("127.0.0.1", std::stoi(m[2]));
  }

  httplib::Headers bearer() const { return {{"Authorization", "Bearer " + token}}; }
  httplib::Headers write_headers(const std::string& origin) const {
    httplib::Headers headers = bearer();
    headers.emplace("If-Match", "0");
    if (!origin.empty()) headers.emplace("Origin", origin);
    return headers;
  }
};

TEST_F(Tcp, WithoutTheTokenIs401) {
  const auto r = client->Get("/api/v1/settings");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(json::parse(r->body)["error"], "token_required");
  const auto wrong =
      client->Get("/api/v1/settings", {{"Authorization", "Bearer " + std::string(64, '0')}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
}

TEST_F(Tcp, TheBearerTokenIsServed) {
  const auto r = client->Get("/api/v1/settings", bearer());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_FALSE(r->has_header("Access-Control-Allow-Origin"));
}

// A page whose host name was rebound to 127.0.0.1 still sends its own name.
TEST_F(Tcp, AnotherHostIs421EvenWithTheToken) {
  for (const std::string& host :
       std::vector<std::string>{"attacker.example", "localhost:" + authority.substr(10), ""}) {
    httplib::Headers headers = bearer();
    headers.emplace("Host", host);
    const auto r = client->Get("/api/v1/settings", headers);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 421) << host;
    EXPECT_EQ(json::parse(r->body)["error"], "wrong_host");
  }
}

TEST_F(Tcp, ThePrintedUrlSetsAStrictCookieThatIsServed) {
  const auto visit = client->Get("/?token=" + token);
  ASSERT_TRUE(visit);
  EXPECT_EQ(visit->status, 303);
  EXPECT_EQ(visit->get_header_value("Location"), "/");
  const std::string cookie = visit->get_header_value("Set-Cookie");
  EXPECT_EQ(cookie, "holdfast_token=" + token + "; Path=/; HttpOnly; SameSite=Strict");

  const auto r = client->Get("/api/v1/settings", {{"Cookie", "holdfast_token=" + token}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  const auto bad = client->Get("/?token=" + std::string(64, 'a'));
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 401);
  EXPECT_FALSE(bad->has_header("Set-Cookie"));
}

TEST_F(Tcp, AWriteNeedsOurOrigin) {
  const std::string body = R"({"set": {"model": "x"}})";
  for (const std::string& origin : std::vector<std::string>{
           "", "http://attacker.example", "http://localhost:" + authority.substr(10), "null"}) {
    const auto r =
        client->Patch("/api/v1/scopes/user", write_headers(origin), body, "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 403) << origin;
    EXPECT_EQ(json::parse(r->body)["error"], "wrong_origin");
  }
  EXPECT_FALSE(std::filesystem::exists(service.config_dir() / "settings.json"));
  const auto r = client->Patch("/api/v1/scopes/user", write_headers("http://" + authority), body,
                               "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
}

TEST(TcpListen, ANonLoopbackAddressIsRefusedUnlessAllowed) {
  ServiceProcess service;  // for its environment
  const auto refused = service.holdfast({"serve", "--listen", "0.0.0.0:0"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("--allow-non-loopback"), std::string::npos) << refused.err;
  const auto named = service.holdfast({"serve", "--listen", "localhost:0"});
  EXPECT_NE(named.exit_code, 0);
  EXPECT_NE(named.err.find("numeric"), std::string::npos) << named.err;

  ServiceProcess allowed{{"--listen", "0.0.0.0:0", "--allow-non-loopback"}};
  EXPECT_EQ(allowed.where().rfind("http://0.0.0.0:", 0), 0u) << allowed.where();
}

}  // namespace
