#include "launcher/sandbox/explain.hpp"

#include <gtest/gtest.h>

#include "fake_facts.hpp"
#include "settings/key_path.hpp"

namespace holdfast::sandbox {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Explain, SaysWhenTheBuiltInDefaultApplies) {
  const std::string text = explain(policy_from_settings(settings::Effective{}));
  EXPECT_TRUE(contains(text, "built-in default applies (workspace-write, network closed)")) << text;
  EXPECT_TRUE(contains(text, "network: closed (from built-in default)")) << text;
  EXPECT_TRUE(contains(text, policy_digest(default_policy()))) << text;
  EXPECT_TRUE(contains(text, "unix sockets: pairs (default with the network closed)")) << text;
  EXPECT_TRUE(contains(text, "no host Unix socket is reachable")) << text;
  EXPECT_TRUE(contains(text,
                       "limits (from built-in default): each private tmpfs (/tmp, /dev/shm) "
                       "1024 MiB"))
      << text;
}

TEST(Explain, NamesTheScopeOfEveryPart) {
  settings::Effective e;
  e.value["tools"]["executionSandbox"] = {
      {"filesystem", {{":root", "read"}, {"/code/.git", "read"}}}, {"network", "open"}};
  e.origins["tools.executionSandbox.filesystem.:root"] = settings::Scope::system_defaults;
  e.origins[settings::to_dotted({"tools", "executionSandbox", "filesystem", "/code/.git"})] =
      settings::Scope::system;
  e.origins["tools.executionSandbox.network"] = settings::Scope::user;
  const std::string text = explain(policy_from_settings(e));
  EXPECT_TRUE(contains(text, "form: split")) << text;
  EXPECT_TRUE(contains(text, ":root: read  (from system-defaults scope)")) << text;
  EXPECT_TRUE(contains(text, "/code/.git: read  (from system scope)")) << text;
  EXPECT_TRUE(contains(text, "network: open (from user scope)")) << text;
  EXPECT_TRUE(contains(text, "unix sockets: allow (default with the network open)")) << text;
  EXPECT_TRUE(contains(text, "every host Unix socket the filesystem policy lets the command see"))
      << text;
}

TEST(Explain, WithFactsShowsTheRulesOnThisHostOrTheRefusal) {
  testing::FakeHost host("/code", "/code");
  host.dir("/code").dir("/code/.git").missing("/code/.holdfast", "/code");
  std::string text = explain(default_policy(), &host.facts());
  EXPECT_TRUE(contains(text, "/code: write  (entry \":workspace\")")) << text;
  EXPECT_TRUE(contains(text, "/code/.git: read  (protected name, from /code)")) << text;
  EXPECT_TRUE(
      contains(text, "/code/.holdfast: read  (protected name, from /code)  [does not exist]"))
      << text;
  EXPECT_TRUE(contains(text, "/tmp: deny  (private /tmp")) << text;
  host.cwd(testing::FakeHost::make("/elsewhere", "/elsewhere", Kind::directory));
  text = explain(default_policy(), &host.facts());
  EXPECT_TRUE(contains(text, "the launch is refused")) << text;
  EXPECT_TRUE(contains(text, "cwd-outside-workspace")) << text;
}

}  // namespace
}  // namespace holdfast::sandbox
