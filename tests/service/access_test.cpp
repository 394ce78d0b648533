// The pure rules of the service: who may use it over TCP, which listen
// addresses are loopback, what an If-Match names.
#include "service/access.hpp"

#include <gtest/gtest.h>

#include "service/listen_socket.hpp"
#include "service/settings_routes.hpp"
#include "settings/errors.hpp"

namespace {

using holdfast::service::AccessVerdict;
using holdfast::service::check_tcp_access;
using holdfast::service::RequestFacts;
using holdfast::service::TcpAccess;

const TcpAccess kAccess{"secret", "127.0.0.1:8731"};

RequestFacts get(const std::string& path) {
  RequestFacts facts;
  facts.method = "GET";
  facts.path = path;
  facts.host = "127.0.0.1:8731";
  facts.authorization = "Bearer secret";
  return facts;
}

TEST(TcpAccess, TheTokenInAHeaderOrCookieIsAdmitted) {
  EXPECT_EQ(check_tcp_access(kAccess, get("/api/v1/settings")).status, 0);
  RequestFacts cookie = get("/api/v1/settings");
  cookie.authorization.reset();
  cookie.cookie = "theme=dark; holdfast_token=secret";
  EXPECT_EQ(check_tcp_access(kAccess, cookie).status, 0);
  cookie.cookie = "holdfast_token=secre";
  EXPECT_EQ(check_tcp_access(kAccess, cookie).status, 401);
  cookie.cookie = "xholdfast_token=secret";
  EXPECT_EQ(check_tcp_access(kAccess, cookie).status, 401);
}

TEST(TcpAccess, HostIsCheckedBeforeTheToken) {
  RequestFacts facts = get("/api/v1/settings");
  facts.host = "evil.example:8731";
  facts.authorization.reset();
  EXPECT_EQ(check_tcp_access(kAccess, facts).status, 421);
  facts.host.reset();
  EXPECT_EQ(check_tcp_access(kAccess, facts).status, 421);
}

TEST(TcpAccess, WritesNeedTheExactOrigin) {
  RequestFacts put = get("/api/v1/scopes/user");
  put.method = "PUT";
  EXPECT_EQ(check_tcp_access(kAccess, put).status, 403);
  put.origin = "http://127.0.0.1:8731/";
  EXPECT_EQ(check_tcp_access(kAccess, put).status, 403);
  put.origin = "https://127.0.0.1:8731";
  EXPECT_EQ(check_tcp_access(kAccess, put).status, 403);
  put.origin = "http://127.0.0.1:8731";
  EXPECT_EQ(check_tcp_access(kAccess, put).status, 0);
  put.authorization.reset();  // the Origin alone is not enough
  EXPECT_EQ(check_tcp_access(kAccess, put).status, 401);
}

TEST(TcpAccess, TheTokenUrlSetsTheCookieOnlyForTheRightToken) {
  RequestFacts visit = get("/");
  visit.authorization.reset();
  visit.query_token = "secret";
  const AccessVerdict ok = check_tcp_access(kAccess, visit);
  EXPECT_EQ(ok.status, 0);
  ASSERT_TRUE(ok.set_cookie);
  EXPECT_NE(ok.set_cookie->find("SameSite=Strict"), std::string::npos);
  visit.query_token = "guess";
  const AccessVerdict bad = check_tcp_access(kAccess, visit);
  EXPECT_EQ(bad.status, 401);
  EXPECT_FALSE(bad.set_cookie);
}

TEST(TcpAccess, TokensAreFreshAndLong) {
  const std::string a = holdfast::service::new_token();
  EXPECT_EQ(a.size(), 64u);
  EXPECT_NE(a, holdfast::service::new_token());
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
