// The test world on its own, without holdfast: the servers answer real
// clients in the test's namespace directly. When these fail, the
// end-to-end tests' failures say nothing about holdfast.
#include "world.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::network_e2e {
namespace world_test_parts {

class WorldTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      world_ = world();
    } catch (const std::exception& e) {
      FAIL() << e.what();
    }
    if (world_ == nullptr) GTEST_SKIP() << world_missing();
  }

  std::string tool(const std::string& name) {
    const auto it = world_->tools.find(name);
    return it == world_->tools.end() ? "" : it->second;
  }

  const World* world_ = nullptr;
};

TEST_F(WorldTest, TheHostsFileNamesTheWorld) {
  if (tool("getent").empty()) GTEST_SKIP() << "getent is not installed";
  const auto hosts = run_tool({tool("getent"), "hosts", "web.test", "rebind.test"});
  EXPECT_EQ(hosts.exit_code, 0) << hosts.err;
  EXPECT_NE(hosts.out.find("10.213.0.2"), std::string::npos) << hosts.out;
  EXPECT_NE(hosts.out.find("127.0.0.1"), std::string::npos) << hosts.out;
}

TEST_F(WorldTest, PlainHttpAnswersWithTheHostAsked) {
  if (tool("curl").empty()) GTEST_SKIP() << "curl is not installed";
  const auto web = run_tool({tool("curl"), "-sS", "--noproxy", "*", "http://web.test/a"});
  EXPECT_EQ(web.exit_code, 0) << web.err;
  EXPECT_EQ(web.out, "host=web.test path=/a\n");
  const auto other = run_tool({tool("curl"), "-sS", "--noproxy", "*", "http://other.test/b"});
  EXPECT_EQ(other.exit_code, 0) << other.err;
  EXPECT_EQ(other.out, "host=other.test path=/b\n");
}

TEST_F(WorldTest, HttpsWithTheTestCa) {
  if (tool("curl").empty()) GTEST_SKIP() << "curl is not installed";
  for (const std::string host : {"web.test", "other.test"}) {
    const auto answer = run_tool({tool("curl"), "-sS", "--noproxy", "*", "--cacert",
                                  world_->ca.string(), "https://" + host + "/tls"});
    EXPECT_EQ(answer.exit_code, 0) << answer.err;
    EXPECT_EQ(answer.out, "host=" + host + " path=/tls\n");
  }
}

TEST_F(WorldTest, TheClientScriptReachesTheServers) {
  const auto answer = run_tool({world_->tools.at("python3"), world_->client_script.string(),
                                "urllib", "https://web.test/py", world_->ca.string()});
  EXPECT_EQ(answer.exit_code, 0) << answer.err;
  EXPECT_NE(answer.out.find("host=web.test path=/py"), std::string::npos) << answer.out;
}

TEST_F(WorldTest, GitCloneOverDumbHttps) {
  const holdfast::testing::TempDir into;
  const auto clone = run_tool({world_->tools.at("git"), "clone", "-q",
                               "https://web.test/git/repo.git", (into / "out").string()},
                              {{"GIT_SSL_CAINFO", world_->ca.string()},
                               {"GIT_CONFIG_NOSYSTEM", "1"},
                               {"GIT_CONFIG_GLOBAL", "/dev/null"}});
  ASSERT_EQ(clone.exit_code, 0) << clone.err;
  EXPECT_EQ(holdfast::testing::read_file(into / "out" / "README"), kReadmeText);
}

TEST_F(WorldTest, GitCloneOverSsh) {
  if (!world_->ssh_missing.empty()) GTEST_SKIP() << world_->ssh_missing;
  const holdfast::testing::TempDir into;
  const auto clone =
      run_tool({world_->tools.at("git"), "clone", "-q",
                "ssh://root@git.test" + world_->repo.string(), (into / "out").string()},
               {{"GIT_SSH_COMMAND", world_->tools.at("ssh") + " -i " + world_->ssh_key.string() +
                                        " -o BatchMode=yes -o StrictHostKeyChecking=no"
                                        " -o UserKnownHostsFile=/dev/null"},
                {"GIT_CONFIG_NOSYSTEM", "1"},
                {"GIT_CONFIG_GLOBAL", "/dev/null"}});
  ASSERT_EQ(clone.exit_code, 0) << clone.err << "\nsshd's log:\n"
                                << holdfast::testing::read_file(world_->dir / "sshd.log");
  EXPECT_EQ(holdfast::testing::read_file(into / "out" / "README"), kReadmeText);
}

// The raw clients the attack tests use do what they say: straight to the
// server (which takes absolute-form requests too), the second request of a
// kept-alive connection reaches another virtual host, so only a proxy that
// judges every request stops it.
TEST_F(WorldTest, TheRawClientsWorkWithoutAProxy) {
  const auto python = world_->tools.at("python3");
  const auto script = world_->client_script.string();
  const auto keepalive =
      run_tool({python, script, "keepalive", "10.213.0.2:80", "http://web.test/first", "web.test",
                "http://other.test/second", "other.test"});
  EXPECT_EQ(keepalive.exit_code, 0) << keepalive.err;
  EXPECT_NE(keepalive.out.find(R"("first_body": "host=web.test path=http://web.test/first\n")"),
            std::string::npos)
      << keepalive.out;
  EXPECT_NE(keepalive.out.find(R"("second_body": "host=other.test)"), std::string::npos)
      << keepalive.out;
  const auto direct = run_tool({python, script, "direct", "10.213.0.2", "80"});
  EXPECT_EQ(direct.out, "{\"ok\": true}\n") << direct.err;
  const auto dns = run_tool({python, script, "dns", "web.test", "10.213.0.2"});
  EXPECT_NE(dns.out.find("ECONNREFUSED"), std::string::npos) << dns.out << dns.err;
}

}  // namespace world_test_parts
}  // namespace holdfast::network_e2e
