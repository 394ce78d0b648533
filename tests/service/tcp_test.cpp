// `holdfast serve --listen 127.0.0.1:0` over real TCP: the one-time link
// and the session it is exchanged for, the Host check against DNS
// rebinding, the Origin check on writes, cookies that count for nothing,
// no CORS, callers that trickle or hold connections, and no non-loopback
// address unless asked.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "tests/service/service_process.hpp"

namespace {

using holdfast::testing::HttpAnswer;
using holdfast::testing::HttpConnection;
using holdfast::testing::ServiceProcess;
using nlohmann::json;

class Tcp : public ::testing::Test {
 protected:
  ServiceProcess service{{"--listen", "127.0.0.1:0"}};
  std::string authority;  // 127.0.0.1:PORT
  std::uint16_t port = 0;
  std::string link;
  std::string session;
  std::optional<HttpConnection> client;

  void SetUp() override {
    std::smatch m;
    const std::string& where = service.where();
    ASSERT_TRUE(std::regex_match(
        where, m, std::regex(R"(http://(127\.0\.0\.1:(\d+))/#token=([0-9a-f]{64}))")))
        << where;
    authority = m[1];
    port = static_cast<std::uint16_t>(std::stoi(m[2]));
    link = m[3];
    client.emplace(connect());
    const auto exchanged = exchange(link);
    ASSERT_TRUE(exchanged);
    ASSERT_EQ(exchanged->status, 201) << exchanged->body;
    session = json::parse(exchanged->body)["session"];
    ASSERT_EQ(session.size(), 64u);
    ASSERT_NE(session, link);
  }

  HttpConnection connect() const { return HttpConnection::tcp("127.0.0.1", port); }
  std::string origin() const { return "http://" + authority; }

  std::optional<HttpAnswer> exchange(const std::string& token) {
    return client->post("/api/v1/session", "",
                        {{"Authorization", "Bearer " + token}, {"Origin", origin()}});
  }

  holdfast::testing::Headers bearer() const { return {{"Authorization", "Bearer " + session}}; }
  holdfast::testing::Headers write_headers(const std::string& origin_header) const {
    holdfast::testing::Headers headers = bearer();
    headers.emplace_back("If-Match", "0");
    if (!origin_header.empty()) headers.emplace_back("Origin", origin_header);
    return headers;
  }
};

TEST_F(Tcp, WithoutTheSessionIs401) {
  const auto r = client->get("/api/v1/settings");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(json::parse(r->body)["error"], "session_required");
  auto again = connect();
  const auto wrong =
      again.get("/api/v1/settings", {{"Authorization", "Bearer " + std::string(64, '0')}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
}

TEST_F(Tcp, TheSessionIsServedWhateverTheCaseOfItsScheme) {
  for (const std::string scheme : {"Bearer", "bearer", "BEARER"}) {
    const auto r = client->get("/api/v1/settings", {{"Authorization", scheme + " " + session}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << scheme << ": " << r->body;
    EXPECT_FALSE(r->has_header("Access-Control-Allow-Origin"));
  }
}

// The printed link is exchanged once; a copy of it (in the history, say)
// opens nothing, and is no session itself.
TEST_F(Tcp, TheLinkWorksOnceAndIsNoSession) {
  const auto second = exchange(link);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 401);
  EXPECT_EQ(json::parse(second->body)["error"], "link_used");
  auto again = connect();
  const auto as_session = again.get("/api/v1/settings", {{"Authorization", "Bearer " + link}});
  ASSERT_TRUE(as_session);
  EXPECT_EQ(as_session->status, 401);
}

// What a browser attaches by itself is no credential: a cookie holding the
// session opens nothing, and a cookie someone else set shadows nothing.
TEST_F(Tcp, CookiesCountForNothing) {
  auto with_cookie = connect();
  const auto cookie_only =
      with_cookie.get("/api/v1/settings",
                      {{"Cookie", "holdfast_token=" + session + "; holdfast_session=" + session}});
  ASSERT_TRUE(cookie_only);
  EXPECT_EQ(cookie_only->status, 401);
  auto shadowed = connect();
  auto headers = bearer();
  headers.emplace_back("Cookie", "holdfast_token=junk; holdfast_session=junk");
  const auto r = shadowed.get("/api/v1/settings", headers);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
}

// A page that rebinds its host name to 127.0.0.1 still sends its name.
TEST_F(Tcp, AnotherHostIs421EvenWithTheSession) {
  for (const std::string& host :
       std::vector<std::string>{"attacker.example", "localhost:" + authority.substr(10), ""}) {
    auto connection = connect();
    auto headers = bearer();
    headers.emplace_back("Host", host);
    const auto r = connection.get("/api/v1/settings", headers);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 421) << host;
    EXPECT_EQ(json::parse(r->body)["error"], "wrong_host");
  }
}

TEST_F(Tcp, ThePageHoldsNoSecretAndNeedsNone) {
  auto stranger = connect();
  for (const std::string path : {"/", "/page/page.js", "/page/session.js"}) {
    const auto r = stranger.get(path);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << path;
    EXPECT_EQ(r->body.find(link), std::string::npos);
    EXPECT_EQ(r->body.find(session), std::string::npos);
    EXPECT_FALSE(r->has_header("Set-Cookie"));
  }
}

TEST_F(Tcp, AWriteNeedsOurOrigin) {
  const std::string body = R"({"set": {"model": "x"}})";
  for (const std::string& origin_header : std::vector<std::string>{
           "", "http://attacker.example", "http://localhost:" + authority.substr(10), "null"}) {
    auto connection = connect();
    const auto r = connection.patch("/api/v1/scopes/user", body, write_headers(origin_header));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 403) << origin_header;
    EXPECT_EQ(json::parse(r->body)["error"], "wrong_origin");
  }
  EXPECT_FALSE(std::filesystem::exists(service.config_dir() / "settings.json"));
  const auto r = client->patch("/api/v1/scopes/user", body, write_headers(origin()));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
}

// Callers without the session that hold connections open, trickling a
// byte of a request head now and then, and the owner's own forty event
// streams: the owner's reads and saves are answered all the same, and
// each trickling connection is closed by the server (its head never
// completes within the deadline, however it trickles).
TEST_F(Tcp, TheOwnerIsServedWhileOthersHoldConnections) {
  std::vector<HttpConnection> streams;
  for (int i = 0; i < 40; ++i) {
    streams.push_back(connect());
    const auto head = streams.back().open_stream({"GET", "/api/v1/events", bearer(), "", ""});
    ASSERT_TRUE(head) << "stream " << i;
    ASSERT_EQ(head->status, 200) << "stream " << i << ": " << head->body;
    ASSERT_TRUE(streams.back().next_event()) << "stream " << i << " got no first event";
  }
  std::vector<HttpConnection> hostile;
  for (int i = 0; i < 64; ++i) {
    hostile.push_back(connect());
    ASSERT_TRUE(hostile.back().connect());
    ASSERT_EQ(send(hostile.back().fd(), "G", 1, MSG_NOSIGNAL), 1);
  }

  auto owner = connect();
  const auto read = owner.get("/api/v1/settings", bearer());
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 200);
  const auto saved =
      owner.patch("/api/v1/scopes/user", R"({"set": {"model": "x"}})", write_headers(origin()));
  ASSERT_TRUE(saved);
  EXPECT_EQ(saved->status, 200) << saved->body;

  // One more byte to each every second (the attack's pace, not a wait for
  // anything: poll returns as soon as the server closes a connection),
  // until the server has closed them all. The bound only ends a failing
  // test.
  std::vector<bool> closed(hostile.size(), false);
  std::size_t open = hostile.size();
  for (int round = 0; open > 0 && round < 180; ++round) {
    std::vector<pollfd> fds;
    for (std::size_t i = 0; i < hostile.size(); ++i) {
      if (!closed[i]) fds.push_back({hostile[i].fd(), POLLIN, 0});
    }
    poll(fds.data(), fds.size(), 1000);
    for (std::size_t i = 0, f = 0; i < hostile.size(); ++i) {
      if (closed[i]) continue;
      const pollfd& p = fds[f++];
      char byte = 0;
      if ((p.revents & (POLLIN | POLLHUP | POLLERR)) != 0 &&
          recv(p.fd, &byte, 1, MSG_DONTWAIT) <= 0) {
        closed[i] = true;
        --open;
      } else if (send(p.fd, "E", 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && errno != EAGAIN) {
        closed[i] = true;
        --open;
      }
    }
  }
  EXPECT_EQ(open, 0u) << "connections that never completed a request head were kept open";
  // The streams are still there.
  ASSERT_EQ(service.holdfast({"settings", "set", "model", "\"y\""}).exit_code, 0);
  for (auto& stream : streams) {
    const auto event = stream.next_event();
    ASSERT_TRUE(event);
  }
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
