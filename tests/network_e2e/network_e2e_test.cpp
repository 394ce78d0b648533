// The network allow-list end to end: real clients (curl, python3, git over
// https and ssh) inside real sandboxes reach the test world's servers
// (world.hpp) through the launch's proxy and DNS stub, or are refused; and
// every attempt is in the --report's network.connections, allowed or not.
//
// Most cases run twice: as root and as nobody (65534, where the machine
// lets it make user namespaces, which bubblewrap then needs).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "run_support.hpp"
#include "world.hpp"

namespace holdfast::network_e2e {
namespace e2e_parts {

using holdfast::run::testing::kNobody;
using holdfast::run::testing::Launch;
using holdfast::run::testing::Result;
using holdfast::run::testing::RunTest;
using holdfast::run::testing::userns_errno_as;
using nlohmann::json;

// The allow-list most tests launch with: the server world's names, private
// (10.213.0.2 is in RFC 1918), HTTPS and plain HTTP; the rebinding names
// allowed as well, so that only their addresses refuse them.
json allow_list_policy() {
  return {
      {"network",
       {{"allow",
         {"private:web.test", "private:web.test:80", "private:git.test:22", "private:*.web.test",
          "private:rebind.test", "private:rebind.test:80", "private:meta.test",
          "private:meta.test:80", "private:self.test", "private:self.test:80"}},
        {"deny", {"bad.web.test"}}}}};
}

struct Outcome {
  Result result;
  json report;                       // null when holdfast wrote none
  json connections = json::array();  // report.network.connections
  json answer = json::object();      // the client's JSON line, when it printed one
  std::string describe() const {
    return "holdfast exit " + std::to_string(result.exit_code) + "\nstdout: " + result.out +
           "\nstderr: " + result.err + "\nnetwork.connections: " + connections.dump(1);
  }
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string text_of(const json& record, const char* key) {
  return record.contains(key) && record.at(key).is_string() ? record.at(key).get<std::string>()
                                                            : "";
}

std::uint64_t number_of(const json& record, const char* key) {
  return record.contains(key) && record.at(key).is_number_unsigned()
             ? record.at(key).get<std::uint64_t>()
             : 0;
}

// A record of PROTOCOL ("" any) for HOST ("" any) that was refused with a
// reason containing REASON_PART.
::testing::AssertionResult refused_in_audit(const Outcome& outcome, const std::string& protocol,
                                            const std::string& host,
                                            const std::string& reason_part = "") {
  for (const auto& record : outcome.connections) {
    if (!protocol.empty() && text_of(record, "protocol") != protocol) continue;
    if (!host.empty() && text_of(record, "host") != host) continue;
    if (record.value("allowed", true)) continue;
    if (text_of(record, "reason").empty()) continue;
    if (!contains(text_of(record, "reason"), reason_part)) continue;
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "no refused " << (protocol.empty() ? "" : protocol + " ") << "record for \"" << host
         << "\" with a reason containing \"" << reason_part << "\"\n"
         << outcome.describe();
}

// An allowed record of PROTOCOL for HOST:PORT (PORT -1: any) that names its
// rule and, WITH_BYTES, carried bytes both ways.
::testing::AssertionResult allowed_in_audit(const Outcome& outcome, const std::string& protocol,
                                            const std::string& host, int port,
                                            bool with_bytes = true) {
  for (const auto& record : outcome.connections) {
    if (text_of(record, "protocol") != protocol || text_of(record, "host") != host) continue;
    if (port >= 0 && record.value("port", -1) != port) continue;
    if (!record.value("allowed", false)) continue;
    if (with_bytes && (number_of(record, "bytesOut") == 0 || number_of(record, "bytesIn") == 0)) {
      continue;
    }
    if (text_of(record, "rule").empty()) continue;
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "no allowed " << protocol << " record for " << host << ":" << port
         << (with_bytes ? " with bytesOut and bytesIn > 0 and its rule" : " with its rule") << "\n"
         << outcome.describe();
}

// Not one allowed record: the attack got nowhere.
::testing::AssertionResult nothing_allowed(const Outcome& outcome) {
  for (const auto& record : outcome.connections) {
    if (record.value("allowed", false)) {
      return ::testing::AssertionFailure() << "allowed: " << record.dump() << "\n"
                                           << outcome.describe();
    }
  }
  return ::testing::AssertionSuccess();
}

std::size_t refused_count(const Outcome& outcome) {
  std::size_t count = 0;
  for (const auto& record : outcome.connections) {
    if (!record.value("allowed", true) && !text_of(record, "reason").empty()) ++count;
  }
  return count;
}

class NetworkE2eTest : public RunTest {
 protected:
  void SetUp() override {
    RunTest::SetUp();
    try {
      world_ = world();
    } catch (const std::exception& e) {
      FAIL() << e.what();
    }
    if (world_ == nullptr) GTEST_SKIP() << world_missing();
    ASSERT_EQ(::geteuid(), 0u) << "the network end-to-end tests need root";
    reports_ = base_ / "reports";
    fs::create_directory(reports_);
    // The proxy variables of whoever runs the tests do not reach holdfast:
    // inside, they are the launch's own or none.
    for (const auto& [name, value] : holdfast::testing::current_environment()) {
      std::string lower = name;
      for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower.ends_with("_proxy")) launch_.unset.push_back(name);
    }
    launch_.env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  }

  // Runs the rest as nobody: skipped where nobody cannot make the user
  // namespace bubblewrap needs.
  void become_nobody() {
    const int userns = userns_errno_as(kNobody);
    if (userns != 0) {
      GTEST_SKIP() << "uid 65534 cannot create user namespaces here (unshare: "
                   << (userns == 100 ? "could not drop privileges" : std::strerror(userns))
                   << "); bubblewrap needs them to run unprivileged";
    }
    for (const auto& dir : {workspace_, home_, state_dir_, outside_, reports_}) {
      ASSERT_EQ(::chown(dir.c_str(), kNobody, kNobody), 0) << dir;
    }
    launch_.uid = kNobody;
  }

  const std::string& tool(const std::string& name) {
    static const std::string none;
    const auto it = world_->tools.find(name);
    return it == world_->tools.end() ? none : it->second;
  }

  // Skips unless the tools are installed.
  bool missing(std::initializer_list<const char*> names) {
    for (const auto* name : names) {
      if (tool(name).empty()) {
        why_missing_ = std::string(name) +
                       " is not installed (scripts/install-deps.sh installs it): this case runs it";
        return true;
      }
    }
    return false;
  }

  // holdfast run --report FILE -- COMMAND, and what the report says.
  Outcome launch(const std::vector<std::string>& command) {
    Outcome outcome;
    const auto report = reports_ / ("report." + std::to_string(++launches_) + ".json");
    outcome.result = run(command, {"--report", report.string()}, launch_);
    if (fs::exists(report)) {
      outcome.report = json::parse(holdfast::testing::read_file(report), nullptr, false);
      if (outcome.report.is_object() && outcome.report.contains("network") &&
          outcome.report.at("network").is_object() &&
          outcome.report.at("network").contains("connections")) {
        outcome.connections = outcome.report.at("network").at("connections");
      }
    }
    // NETWORK_E2E_VERBOSE=1: every launch's outcome on stderr.
    if (const char* verbose = std::getenv("NETWORK_E2E_VERBOSE"); verbose && *verbose) {
      std::cerr << "launch " << launches_ << ": " << outcome.describe() << "\n";
    }
    const auto line = outcome.result.out.substr(0, outcome.result.out.find('\n'));
    const auto answer = json::parse(line, nullptr, false);
    if (!answer.is_discarded()) outcome.answer = answer;
    return outcome;
  }

  // world_client.py ARGS... (one JSON line: Outcome::answer).
  Outcome client(const std::vector<std::string>& args) {
    std::vector<std::string> command = {tool("python3"), world_->client_script.string()};
    command.insert(command.end(), args.begin(), args.end());
    return launch(command);
  }

  std::vector<std::string> curl(const std::vector<std::string>& args) {
    std::vector<std::string> command = {tool("curl"), "-sS",      "--max-time",
                                        "60",         "--cacert", world_->ca.string()};
    command.insert(command.end(), args.begin(), args.end());
    return command;
  }

  const World* world_ = nullptr;
  Launch launch_;
  fs::path reports_;
  int launches_ = 0;
  std::string why_missing_;
};

enum class Who { root, nobody };

class NetworkE2eAsTest : public NetworkE2eTest, public ::testing::WithParamInterface<Who> {
 protected:
  void SetUp() override {
    NetworkE2eTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (GetParam() == Who::nobody) become_nobody();
  }
};

std::string who_name(const ::testing::TestParamInfo<Who>& info) {
  return info.param == Who::root ? "AsRoot" : "AsNobody";
}

// ---------------------------------------------------------------- allowed

TEST_P(NetworkE2eAsTest, CurlHttpsThroughTheProxy) {
  if (missing({"curl"})) GTEST_SKIP() << why_missing_;
  set_policy(allow_list_policy());
  const auto outcome = launch(curl({"https://web.test/curl"}));
  EXPECT_EQ(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_EQ(outcome.result.out, "host=web.test path=/curl\n") << outcome.describe();
  EXPECT_TRUE(allowed_in_audit(outcome, "connect", "web.test", 443));
}

TEST_P(NetworkE2eAsTest, CurlPlainHttpIsForwarded) {
  if (missing({"curl"})) GTEST_SKIP() << why_missing_;
  set_policy(allow_list_policy());
  const auto outcome = launch(curl({"http://web.test/plain"}));
  EXPECT_EQ(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_EQ(outcome.result.out, "host=web.test path=/plain\n") << outcome.describe();
  EXPECT_TRUE(allowed_in_audit(outcome, "http", "web.test", 80));
}

TEST_P(NetworkE2eAsTest, PythonUrllibHttps) {
  set_policy(allow_list_policy());
  const auto outcome = client({"urllib", "https://web.test/urllib", world_->ca.string()});
  EXPECT_EQ(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_TRUE(outcome.answer.value("ok", false)) << outcome.describe();
  EXPECT_EQ(outcome.answer.value("body", ""), "host=web.test path=/urllib\n") << outcome.describe();
  EXPECT_TRUE(allowed_in_audit(outcome, "connect", "web.test", 443));
}

TEST_P(NetworkE2eAsTest, CurlSocks5Hostname) {
  if (missing({"curl"})) GTEST_SKIP() << why_missing_;
  set_policy(allow_list_policy());
  const auto outcome = launch(curl({"-x", "socks5h://127.0.0.1:3128", "https://web.test/socks"}));
  EXPECT_EQ(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_EQ(outcome.result.out, "host=web.test path=/socks\n") << outcome.describe();
  EXPECT_TRUE(allowed_in_audit(outcome, "socks5", "web.test", 443));
}

TEST_P(NetworkE2eAsTest, TheDnsStubAnswersAllowedNames) {
  set_policy(allow_list_policy());
  // A raw query to the stub itself: the answer can come from nowhere else.
  const auto raw = client({"dns", "web.test"});
  EXPECT_EQ(raw.result.exit_code, 0) << raw.describe();
  EXPECT_TRUE(raw.answer.value("ok", false)) << raw.describe();
  EXPECT_EQ(raw.answer.value("rcode", -1), 0) << raw.describe();
  EXPECT_EQ(raw.answer.value("addresses", json::array()), json::array({kServerAddress}))
      << raw.describe();
  EXPECT_TRUE(allowed_in_audit(raw, "dns", "web.test", -1, false));
  // And the system resolver (the hosts file, then the stub: either way
  // the same answer).
  const auto resolved = client({"getaddrinfo", "web.test", "443"});
  EXPECT_TRUE(resolved.answer.value("ok", false)) << resolved.describe();
  EXPECT_EQ(resolved.answer.value("addresses", json::array()), json::array({kServerAddress}))
      << resolved.describe();
  if (!tool("getent").empty()) {
    const auto getent = launch({tool("getent"), "ahosts", "web.test"});
    EXPECT_EQ(getent.result.exit_code, 0) << getent.describe();
    EXPECT_TRUE(contains(getent.result.out, kServerAddress)) << getent.describe();
  }
}

TEST_P(NetworkE2eAsTest, GitCloneOverHttps) {
  set_policy(allow_list_policy());
  const auto outcome =
      launch({"/bin/sh", "-c",
              "GIT_SSL_CAINFO=\"$1\" \"$2\" clone -q https://web.test/git/repo.git from-https && "
              "cat from-https/README",
              "sh", world_->ca.string(), tool("git")});
  EXPECT_EQ(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_EQ(outcome.result.out, kReadmeText) << outcome.describe();
  EXPECT_TRUE(allowed_in_audit(outcome, "connect", "web.test", 443));
}

TEST_P(NetworkE2eAsTest, GitCloneOverSsh) {
  if (!world_->ssh_missing.empty()) GTEST_SKIP() << world_->ssh_missing;
  set_policy(allow_list_policy());
  // The key, the sandbox's user's own (ssh reads no other's).
  const fs::path key = workspace_ / "id_ed25519";
  fs::copy_file(world_->ssh_key, key);
  const uid_t owner = launch_.uid.value_or(0);
  ASSERT_EQ(::chown(key.c_str(), owner, owner), 0);
  fs::permissions(key, fs::perms(0600));
  const auto outcome = launch(
      {"/bin/sh", "-c",
       "GIT_SSH_COMMAND=\"$GIT_SSH_COMMAND -i $1 -o BatchMode=yes -o StrictHostKeyChecking=no "
       "-o UserKnownHostsFile=/dev/null\" \"$2\" clone -q \"ssh://root@git.test$3\" from-ssh && "
       "cat from-ssh/README",
       "sh", key.string(), tool("git"), world_->repo.string()});
  EXPECT_EQ(outcome.result.exit_code, 0) << outcome.describe() << "\nsshd's log:\n"
                                         << holdfast::testing::read_file(world_->dir / "sshd.log");
  EXPECT_EQ(outcome.result.out, kReadmeText) << outcome.describe();
  EXPECT_TRUE(allowed_in_audit(outcome, "connect", "git.test", 22));
}

TEST_F(NetworkE2eTest, TheEnvironmentNamesTheProxy) {
  set_policy(allow_list_policy());
  const auto outcome = launch({"/bin/sh", "-c", "env; echo ===; cat /etc/resolv.conf"});
  ASSERT_EQ(outcome.result.exit_code, 0) << outcome.describe();
  std::map<std::string, std::string> env;
  std::string line;
  std::istringstream lines(outcome.result.out.substr(0, outcome.result.out.find("===\n")));
  while (std::getline(lines, line)) {
    const auto equals = line.find('=');
    if (equals != std::string::npos) env[line.substr(0, equals)] = line.substr(equals + 1);
  }
  for (const auto* name :
       {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "GRPC_PROXY"}) {
    EXPECT_EQ(env[name], "http://127.0.0.1:3128") << name << "\n" << outcome.describe();
  }
  for (const auto* name : {"ALL_PROXY", "all_proxy"}) {
    EXPECT_EQ(env[name], "socks5h://127.0.0.1:3128") << name << "\n" << outcome.describe();
  }
  for (const auto* name : {"NO_PROXY", "no_proxy"}) {
    EXPECT_EQ(env[name], "") << name << "\n" << outcome.describe();
  }
  // ssh -o 'ProxyCommand=HOLDFAST net-connect %h %p', quoted for a shell.
  const auto& ssh = env["GIT_SSH_COMMAND"];
  EXPECT_TRUE(ssh.starts_with("ssh -o ")) << outcome.describe();
  EXPECT_TRUE(contains(ssh, "ProxyCommand=")) << outcome.describe();
  EXPECT_TRUE(contains(ssh, holdfast_.string())) << outcome.describe();
  EXPECT_TRUE(contains(ssh, " net-connect %h %p")) << outcome.describe();
  const auto resolv = outcome.result.out.substr(outcome.result.out.find("===\n") + 4);
  EXPECT_TRUE(contains(resolv, "nameserver 127.0.0.1")) << resolv;
}

// ---------------------------------------------------------------- refused

TEST_P(NetworkE2eAsTest, AnUnlistedHostIsRefused) {
  if (missing({"curl"})) GTEST_SKIP() << why_missing_;
  set_policy(allow_list_policy());
  const auto https = launch(curl({"https://other.test/"}));
  EXPECT_NE(https.result.exit_code, 0) << https.describe();
  EXPECT_TRUE(contains(https.result.err, "403")) << https.describe();
  EXPECT_FALSE(contains(https.result.out, "host=other.test")) << https.describe();
  EXPECT_TRUE(refused_in_audit(https, "connect", "other.test", "not on the network allow-list"));
  EXPECT_TRUE(nothing_allowed(https));

  const auto plain = launch(curl({"-f", "http://other.test/"}));
  EXPECT_NE(plain.result.exit_code, 0) << plain.describe();
  EXPECT_TRUE(contains(plain.result.err, "403")) << plain.describe();
  EXPECT_FALSE(contains(plain.result.out, "host=other.test")) << plain.describe();
  EXPECT_TRUE(refused_in_audit(plain, "http", "other.test", "not on the network allow-list"));
  EXPECT_TRUE(nothing_allowed(plain));
}

TEST_F(NetworkE2eTest, Socks5ToAnUnlistedHostIsRefused) {
  set_policy(allow_list_policy());
  const auto outcome = client({"socks5", "127.0.0.1:3128", "other.test", "443"});
  EXPECT_EQ(outcome.answer.value("method", ""), "0500") << outcome.describe();
  EXPECT_EQ(outcome.answer.value("reply", -1), 2) << outcome.describe();
  EXPECT_TRUE(refused_in_audit(outcome, "socks5", "other.test", "not on the network allow-list"));
  EXPECT_TRUE(nothing_allowed(outcome));
}

TEST_F(NetworkE2eTest, AnIpLiteralIsRefused) {
  if (missing({"curl"})) GTEST_SKIP() << why_missing_;
  set_policy(allow_list_policy());
  const auto outcome = launch(curl({"https://10.213.0.2/"}));
  EXPECT_NE(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_TRUE(contains(outcome.result.err, "403")) << outcome.describe();
  EXPECT_TRUE(refused_in_audit(outcome, "connect", kServerAddress, "IP address"));
  EXPECT_TRUE(nothing_allowed(outcome));
}

TEST_F(NetworkE2eTest, NumericHostFormsAreRefused) {
  set_policy(allow_list_policy());
  // Raw requests, so that the proxy sees the very spelling (curl would
  // rewrite some of them to 127.0.0.1 first).
  std::vector<Outcome> outcomes;
  for (const std::string form : {"2130706433", "0x7f000001", "127.1", "017700000001"}) {
    outcomes.push_back(client({"connect", "127.0.0.1:3128", form + ":443"}));
    outcomes.push_back(client({"get", "127.0.0.1:3128", "http://" + form + "/", form}));
  }
  for (const auto& outcome : outcomes) {
    EXPECT_EQ(outcome.result.exit_code, 0) << outcome.describe();
    const auto status = outcome.answer.value("status", "");
    EXPECT_TRUE(status.starts_with("HTTP/1.")) << outcome.describe();
    EXPECT_FALSE(contains(status, " 200")) << outcome.describe();
    EXPECT_FALSE(contains(outcome.answer.value("body", ""), "host=")) << outcome.describe();
    EXPECT_EQ(refused_count(outcome), 1u) << outcome.describe();
    EXPECT_TRUE(nothing_allowed(outcome));
  }
  if (!tool("curl").empty()) {
    const auto decimal = launch(curl({"-f", "http://2130706433/"}));
    EXPECT_NE(decimal.result.exit_code, 0) << decimal.describe();
    EXPECT_EQ(refused_count(decimal), 1u) << decimal.describe();
    EXPECT_TRUE(nothing_allowed(decimal));
  }
}

TEST_F(NetworkE2eTest, ANameReboundToLoopbackIsRefused) {
  if (missing({"curl"})) GTEST_SKIP() << why_missing_;
  set_policy(allow_list_policy());
  const auto https = launch(curl({"https://rebind.test/"}));
  EXPECT_NE(https.result.exit_code, 0) << https.describe();
  EXPECT_TRUE(refused_in_audit(https, "connect", "rebind.test", "127.0.0.1 is a loopback"));
  EXPECT_TRUE(nothing_allowed(https));
  const auto plain = launch(curl({"-f", "http://rebind.test/"}));
  EXPECT_NE(plain.result.exit_code, 0) << plain.describe();
  EXPECT_TRUE(refused_in_audit(plain, "http", "rebind.test", "127.0.0.1 is a loopback"));
  EXPECT_TRUE(nothing_allowed(plain));
  // The stub gives no loopback address either.
  const auto dns = client({"dns", "rebind.test"});
  EXPECT_FALSE(contains(dns.answer.dump(), "127.0.0.1")) << dns.describe();
}

TEST_F(NetworkE2eTest, ANameOfTheMetadataAddressIsRefused) {
  if (missing({"curl"})) GTEST_SKIP() << why_missing_;
  set_policy(allow_list_policy());
  const auto outcome = launch(curl({"-f", "http://meta.test/latest/meta-data/"}));
  EXPECT_NE(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_TRUE(
      refused_in_audit(outcome, "http", "meta.test", "169.254.169.254 is a cloud metadata"));
  EXPECT_TRUE(nothing_allowed(outcome));
}

TEST_F(NetworkE2eTest, ANameOfTheHostsOwnAddressIsRefused) {
  if (missing({"curl"})) GTEST_SKIP() << why_missing_;
  set_policy(allow_list_policy());
  const auto outcome = launch(curl({"https://self.test/"}));
  EXPECT_NE(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_TRUE(refused_in_audit(outcome, "connect", "self.test",
                               std::string(kHostAddress) + " is one of this host's own"));
  EXPECT_TRUE(nothing_allowed(outcome));
}

TEST_F(NetworkE2eTest, APrivateAddressNeedsAPrivateEntry) {
  if (missing({"curl"})) GTEST_SKIP() << why_missing_;
  set_policy({{"network", {{"allow", {"web.test"}}}}});
  const auto outcome = launch(curl({"https://web.test/"}));
  EXPECT_NE(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_TRUE(refused_in_audit(outcome, "connect", "web.test", "private"));
  EXPECT_TRUE(nothing_allowed(outcome));
}

TEST_F(NetworkE2eTest, DenyBeatsAllow) {
  if (missing({"curl"})) GTEST_SKIP() << why_missing_;
  set_policy(allow_list_policy());
  const auto outcome = launch(curl({"https://bad.web.test/"}));
  EXPECT_NE(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_TRUE(contains(outcome.result.err, "403")) << outcome.describe();
  EXPECT_TRUE(refused_in_audit(outcome, "connect", "bad.web.test", "denied"));
  EXPECT_TRUE(nothing_allowed(outcome));
}

TEST_P(NetworkE2eAsTest, AServerNameOtherThanTheConnectHostIsRefused) {
  set_policy(allow_list_policy());
  // CONNECT web.test:443, then a ClientHello for other.test (which the
  // server's certificate covers: only the proxy can stop it).
  const auto outcome =
      client({"sni", "127.0.0.1:3128", "web.test:443", "other.test", world_->ca.string()});
  EXPECT_EQ(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_FALSE(outcome.answer.value("tls", true)) << outcome.describe();
  EXPECT_FALSE(contains(outcome.answer.dump(), "host=other.test")) << outcome.describe();
  EXPECT_TRUE(refused_in_audit(outcome, "connect", "web.test", "other.test"));
  EXPECT_TRUE(nothing_allowed(outcome));
  if (!tool("curl").empty()) {
    // The same with curl: --connect-to sends CONNECT web.test:443 with
    // the server name other.test.
    const auto by_curl =
        launch(curl({"--connect-to", "other.test:443:web.test:443", "https://other.test/"}));
    EXPECT_NE(by_curl.result.exit_code, 0) << by_curl.describe();
    EXPECT_FALSE(contains(by_curl.result.out, "host=other.test")) << by_curl.describe();
    EXPECT_TRUE(refused_in_audit(by_curl, "connect", "web.test", "other.test"));
    EXPECT_TRUE(nothing_allowed(by_curl));
  }
}

TEST_F(NetworkE2eTest, ASecondKeptAliveRequestToAnotherHostIsRefused) {
  set_policy(allow_list_policy());
  const auto outcome = client({"keepalive", "127.0.0.1:3128", "http://web.test/first", "web.test",
                               "http://other.test/second", "other.test"});
  EXPECT_EQ(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_TRUE(contains(outcome.answer.value("first_status", ""), " 200")) << outcome.describe();
  EXPECT_EQ(outcome.answer.value("first_body", ""), "host=web.test path=/first\n")
      << outcome.describe();
  EXPECT_FALSE(contains(outcome.answer.value("second_status", ""), " 200")) << outcome.describe();
  EXPECT_FALSE(contains(outcome.answer.value("second_body", ""), "host=other.test"))
      << outcome.describe();
  EXPECT_TRUE(allowed_in_audit(outcome, "http", "web.test", 80));
  EXPECT_TRUE(refused_in_audit(outcome, "http", "other.test", "other.test"));
}

TEST_F(NetworkE2eTest, AHostHeaderOtherThanTheUrlsHostIsNotForwarded) {
  set_policy(allow_list_policy());
  // The URL names an allowed host, the Host header another: the server
  // must never answer as other.test.
  const auto outcome = client({"get", "127.0.0.1:3128", "http://web.test/smuggled", "other.test"});
  EXPECT_EQ(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_FALSE(contains(outcome.answer.value("body", ""), "host=other.test")) << outcome.describe();
  EXPECT_TRUE(refused_in_audit(outcome, "http", "", "other.test"));
  EXPECT_TRUE(nothing_allowed(outcome));
}

TEST_F(NetworkE2eTest, ATunnelCarriesNoPlainHttp) {
  set_policy(allow_list_policy());
  // CONNECT to the allowed web.test:80, then plain HTTP naming another
  // host through the tunnel, where no request would be judged.
  const auto outcome = client({"tunnel", "127.0.0.1:3128", "web.test:80", "other.test"});
  EXPECT_EQ(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_FALSE(contains(outcome.answer.value("body", ""), "host=")) << outcome.describe();
  EXPECT_TRUE(refused_in_audit(outcome, "connect", "web.test", "TLS or SSH"));
  EXPECT_TRUE(nothing_allowed(outcome));
}

TEST_F(NetworkE2eTest, IpEntriesAllowTheirAddressOnly) {
  if (missing({"curl"})) GTEST_SKIP() << why_missing_;
  set_policy({{"network", {{"allow", {"ip:10.213.0.2:80", "ip:10.213.0.2:443"}}}}});
  const auto plain = launch(curl({"http://10.213.0.2/ip"}));
  EXPECT_EQ(plain.result.exit_code, 0) << plain.describe();
  EXPECT_EQ(plain.result.out, "host=10.213.0.2 path=/ip\n") << plain.describe();
  EXPECT_TRUE(allowed_in_audit(plain, "http", kServerAddress, 80));
  const auto tls = launch(curl({"https://10.213.0.2/ip"}));
  EXPECT_EQ(tls.result.exit_code, 0) << tls.describe();
  EXPECT_EQ(tls.result.out, "host=10.213.0.2 path=/ip\n") << tls.describe();
  EXPECT_TRUE(allowed_in_audit(tls, "connect", kServerAddress, 443));
  // The address's names are not entries.
  const auto name = launch(curl({"https://web.test/"}));
  EXPECT_NE(name.result.exit_code, 0) << name.describe();
  EXPECT_TRUE(refused_in_audit(name, "connect", "web.test", "not on the network allow-list"));
  EXPECT_TRUE(nothing_allowed(name));
  // Nor is another port of the address.
  const auto port = client({"connect", "127.0.0.1:3128", "10.213.0.2:22"});
  EXPECT_FALSE(contains(port.answer.value("status", ""), " 200")) << port.describe();
  EXPECT_TRUE(refused_in_audit(port, "connect", kServerAddress));
  EXPECT_TRUE(nothing_allowed(port));
}

TEST_F(NetworkE2eTest, GitOverSshNeedsItsPort) {
  if (!world_->ssh_missing.empty()) GTEST_SKIP() << world_->ssh_missing;
  // git.test on 443 only: ssh's port 22 is not listed.
  set_policy({{"network", {{"allow", {"private:git.test"}}}}});
  const auto outcome = launch(
      {"/bin/sh", "-c",
       "GIT_SSH_COMMAND=\"$GIT_SSH_COMMAND -i $1 -o BatchMode=yes -o StrictHostKeyChecking=no "
       "-o UserKnownHostsFile=/dev/null\" \"$2\" clone -q \"ssh://root@git.test$3\" from-ssh",
       "sh", world_->ssh_key.string(), tool("git"), world_->repo.string()});
  EXPECT_NE(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_FALSE(fs::exists(workspace_ / "from-ssh" / "README"));
  EXPECT_TRUE(refused_in_audit(outcome, "connect", "git.test", "not on the network allow-list"));
  EXPECT_TRUE(nothing_allowed(outcome));
}

TEST_P(NetworkE2eAsTest, ADirectConnectionIsUnreachable) {
  set_policy(allow_list_policy());
  const auto outcome = client({"direct", kServerAddress, "80"});
  EXPECT_EQ(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_FALSE(outcome.answer.value("ok", true)) << outcome.describe();
  EXPECT_EQ(outcome.answer.value("error", ""), "ENETUNREACH") << outcome.describe();
  // It never reached the proxy: nothing to log, and nothing allowed.
  EXPECT_TRUE(nothing_allowed(outcome));
  EXPECT_TRUE(outcome.report.is_object()) << outcome.describe();
}

TEST_F(NetworkE2eTest, UdpPastTheStubIsUnreachable) {
  set_policy(allow_list_policy());
  const auto outcome = client({"udp", kServerAddress, "53"});
  EXPECT_EQ(outcome.result.exit_code, 0) << outcome.describe();
  EXPECT_EQ(outcome.answer.value("error", ""), "ENETUNREACH") << outcome.describe();
  EXPECT_TRUE(nothing_allowed(outcome));
}

TEST_P(NetworkE2eAsTest, TheDnsStubRefusesUnlistedNames) {
  set_policy(allow_list_policy());
  const auto raw = client({"dns", "other.test"});
  EXPECT_TRUE(raw.answer.value("ok", false)) << raw.describe();
  EXPECT_TRUE(raw.answer.value("id_matches", false)) << raw.describe();
  EXPECT_EQ(raw.answer.value("rcode", -1), 5) << raw.describe();  // REFUSED
  EXPECT_EQ(raw.answer.value("addresses", json::array()), json::array()) << raw.describe();
  EXPECT_TRUE(refused_in_audit(raw, "dns", "other.test"));
  EXPECT_TRUE(nothing_allowed(raw));
  // A name no hosts file lists gets no address from the system resolver.
  const auto system = client({"getaddrinfo", "unlisted.test", "443"});
  EXPECT_EQ(system.result.exit_code, 0) << system.describe();
  EXPECT_FALSE(system.answer.value("ok", true)) << system.describe();
  EXPECT_TRUE(refused_in_audit(system, "dns", "unlisted.test"));
  EXPECT_TRUE(nothing_allowed(system));
}

// ---------------------------------------------------------------- control

TEST_F(NetworkE2eTest, AClosedNetworkHasNoProxy) {
  set_policy({{"network", "closed"}});
  const auto env = launch({"/usr/bin/env"});
  EXPECT_EQ(env.result.exit_code, 0) << env.describe();
  for (const auto* name : {"HTTP_PROXY=", "HTTPS_PROXY=", "http_proxy=", "https_proxy=",
                           "ALL_PROXY=", "all_proxy=", "GRPC_PROXY=", "GIT_SSH_COMMAND="}) {
    EXPECT_FALSE(contains(env.result.out, name)) << name << "\n" << env.describe();
  }
  // No proxy to connect to, and no way past it (the closed network's
  // seccomp filter refuses the socket itself: EPERM).
  const auto proxy = client({"direct", "127.0.0.1", "3128"});
  EXPECT_EQ(proxy.result.exit_code, 0) << proxy.describe();
  EXPECT_FALSE(proxy.answer.value("ok", true)) << proxy.describe();
  const auto direct = client({"direct", kServerAddress, "80"});
  EXPECT_EQ(direct.result.exit_code, 0) << direct.describe();
  EXPECT_FALSE(direct.answer.value("ok", true)) << direct.describe();
  if (!tool("curl").empty()) {
    const auto by_curl = launch(curl({"-x", "http://127.0.0.1:3128", "https://web.test/"}));
    EXPECT_NE(by_curl.result.exit_code, 0) << by_curl.describe();
    EXPECT_FALSE(contains(by_curl.result.out, "host=")) << by_curl.describe();
  }
  EXPECT_TRUE(env.connections.empty()) << env.describe();
}

INSTANTIATE_TEST_SUITE_P(Who, NetworkE2eAsTest, ::testing::Values(Who::root, Who::nobody),
                         who_name);

}  // namespace e2e_parts
}  // namespace holdfast::network_e2e
