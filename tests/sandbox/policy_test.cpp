#include "launcher/sandbox/policy.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <tuple>

#include "launcher/sandbox/refusal.hpp"
#include "settings/key_path.hpp"

namespace holdfast::sandbox {
namespace {

using settings::Effective;
using settings::Scope;

Effective effective_with(nlohmann::json sandbox, Scope scope = Scope::user) {
  Effective e;
  e.value["tools"]["executionSandbox"] = sandbox;
  // Origins as merge_scopes records them: one per leaf, dotted.
  const std::function<void(const nlohmann::json&, settings::KeyPath)> record =
      [&](const nlohmann::json& v, settings::KeyPath path) {
        if (v.is_object() && !v.empty()) {
          for (const auto& [k, m] : v.items()) {
            auto child = path;
            child.push_back(k);
            record(m, child);
          }
        } else {
          e.origins[settings::to_dotted(path)] = scope;
        }
      };
  record(sandbox, {"tools", "executionSandbox"});
  return e;
}

std::string fs_json(const Policy& p) { return canonical_json(p)["filesystem"].dump(); }

TEST(Policy, NoOperatorPolicyMeansBuiltInWorkspaceWriteNetworkClosed) {
  const Policy p = policy_from_settings(Effective{});
  EXPECT_EQ(p.form, PolicyForm::builtin_default);
  EXPECT_EQ(fs_json(p), R"({":root":"read",":workspace":"write"})");
  EXPECT_EQ(p.network, Network::closed);
  EXPECT_EQ(p.unix_sockets, UnixSockets::pairs);
  EXPECT_FALSE(p.unix_sockets_origin.has_value());
  EXPECT_EQ(p.limits, Limits{});
  EXPECT_EQ(p.limits.tmpfs_mib, 1024u);
  EXPECT_FALSE(p.filesystem_origin.has_value());
  EXPECT_EQ(canonical_text(p), canonical_text(default_policy()));
}

TEST(Policy, SimpleReadOnlyNamesRootAndWorkspaceRead) {
  const Policy p = policy_from_settings(
      effective_with({{"filesystem", "read-only"}, {"network", "open"}}, Scope::system));
  EXPECT_EQ(p.form, PolicyForm::simple);
  EXPECT_EQ(fs_json(p), R"({":root":"read",":workspace":"read"})");
  EXPECT_EQ(p.network, Network::open);
  EXPECT_EQ(p.filesystem_origin, Scope::system);
  EXPECT_EQ(p.network_origin, Scope::system);
}

TEST(Policy, SimpleWorkspaceWriteAcceptsBackendOfOtherAgents) {
  const Policy p = policy_from_settings(effective_with(
      {{"filesystem", "workspace-write"}, {"network", "closed"}, {"backend", "auto"}}));
  EXPECT_EQ(fs_json(p), R"({":root":"read",":workspace":"write"})");
  EXPECT_EQ(p.backend, "auto");
  // The backend is provenance, not part of the value.
  EXPECT_EQ(policy_digest(p), policy_digest(default_policy()));
}

TEST(Policy, SimpleAndEquivalentSplitFormAreOneValue) {
  const Policy simple = policy_from_settings(effective_with({{"filesystem", "read-only"}}));
  const Policy split = policy_from_settings(
      effective_with({{"filesystem", {{":root", "read"}, {":workspace/", "read"}}}}));
  EXPECT_EQ(split.form, PolicyForm::split);
  EXPECT_EQ(canonical_text(simple), canonical_text(split));
  EXPECT_EQ(policy_digest(simple), policy_digest(split));
  EXPECT_TRUE(policy_digest(simple).starts_with("sha256:"));
  EXPECT_EQ(policy_digest(simple).size(), 7u + 64u);
}

TEST(Policy, DifferentPoliciesHaveDifferentDigests) {
  const Policy a = policy_from_settings(effective_with({{"filesystem", "read-only"}}));
  const Policy b =
      policy_from_settings(effective_with({{"filesystem", "read-only"}, {"network", "open"}}));
  const Policy c =
      policy_from_settings(effective_with({{"filesystem", "read-only"}, {"unixSockets", "deny"}}));
  EXPECT_NE(policy_digest(a), policy_digest(b));
  EXPECT_NE(policy_digest(a), policy_digest(c));
  // The two built-in lists are in it too (protection_tables_test.cpp).
  nlohmann::json canonical = canonical_json(c);
  EXPECT_EQ(canonical.at("protectedNames").size(), c.protected_names.names.size());
  EXPECT_EQ(canonical.at("credentialStores").size(), c.credential_stores.stores.size());
  canonical.erase("protectedNames");
  canonical.erase("credentialStores");
  EXPECT_EQ(canonical.dump(),
            R"({"filesystem":{":root":"read",":workspace":"read"},"limits":{"tmpfsMiB":1024},)"
            R"("network":"closed","unixSockets":"deny"})");
}

TEST(Policy, UnixSocketsDefaultToPairsWithTheNetworkClosedAndAllowWithItOpen) {
  EXPECT_EQ(policy_from_settings(effective_with({{"network", "closed"}})).unix_sockets,
            UnixSockets::pairs);
  EXPECT_EQ(policy_from_settings(effective_with({{"filesystem", "read-only"}})).unix_sockets,
            UnixSockets::pairs);
  EXPECT_EQ(policy_from_settings(effective_with({{"network", "open"}})).unix_sockets,
            UnixSockets::allow);
  // Explicit values win either way, and say where they came from.
  for (const auto& [network, value, expected] : {std::tuple{"closed", "allow", UnixSockets::allow},
                                                 std::tuple{"open", "pairs", UnixSockets::pairs},
                                                 std::tuple{"open", "deny", UnixSockets::deny}}) {
    const Policy p = policy_from_settings(
        effective_with({{"network", network}, {"unixSockets", value}}, Scope::system));
    EXPECT_EQ(p.unix_sockets, expected) << network << " " << value;
    EXPECT_EQ(p.unix_sockets_origin, Scope::system);
  }
}

TEST(Policy, LimitsAreReadAndPartOfTheValue) {
  const Policy p = policy_from_settings(effective_with(
      {{"limits",
        {{"tmpfsMiB", 64}, {"processes", 512}, {"memoryMiB", 2048}, {"cpuSeconds", 600}}}},
      Scope::system));
  EXPECT_EQ(p.limits.tmpfs_mib, 64u);
  EXPECT_EQ(p.limits.processes, 512u);
  EXPECT_EQ(p.limits.memory_mib, 2048u);
  EXPECT_EQ(p.limits.cpu_seconds, 600u);
  EXPECT_EQ(p.limits_origin, Scope::system);
  EXPECT_EQ(canonical_json(p)["limits"].dump(),
            R"({"cpuSeconds":600,"memoryMiB":2048,"processes":512,"tmpfsMiB":64})");
  // Unset limits keep the default size and set nothing else.
  const Policy partial = policy_from_settings(effective_with({{"limits", {{"processes", 9}}}}));
  EXPECT_EQ(partial.limits.tmpfs_mib, 1024u);
  EXPECT_FALSE(partial.limits.memory_mib.has_value());
  EXPECT_NE(policy_digest(partial), policy_digest(default_policy()));
}

TEST(Policy, BadLimitsAreRefused) {
  const std::vector<nlohmann::json> bad = {
      {{"limits", 5}},
      {{"limits", {{"tmpfsMiB", 0}}}},
      {{"limits", {{"tmpfsMiB", -1}}}},
      {{"limits", {{"processes", 1.5}}}},
      {{"limits", {{"memoryMiB", "1G"}}}},
      {{"limits", {{"cpuSeconds", nlohmann::json(kMaxCpuSeconds + 1)}}}},
      {{"limits", {{"tmpfsMiB", nlohmann::json(kMaxTmpfsMiB + 1)}}}},
      {{"limits", {{"threads", 4}}}}};
  for (const auto& sandbox : bad) {
    try {
      policy_from_settings(effective_with(sandbox));
      ADD_FAILURE() << sandbox.dump() << " was accepted";
    } catch (const Refused& r) {
      ASSERT_EQ(r.refusals().size(), 1u) << sandbox.dump();
      EXPECT_EQ(r.refusals()[0].rule, "policy-malformed");
      EXPECT_NE(r.refusals()[0].path.find("tools.executionSandbox.limits"), std::string::npos);
    }
  }
}

TEST(Policy, ControlCharactersInAPathAreRefused) {
  // bubblewrap's argv is C strings: "/srv/a\0b" would be mounted as /srv/a.
  for (const std::string& key :
       {std::string("/srv/a\0/b", 8), std::string("/srv/a\nb"), std::string("/srv/\x1b[2Ja"),
        std::string("/srv/a\x7f"), std::string(":workspace/x\ty"), std::string("~/a\rb")}) {
    try {
      policy_from_settings(effective_with({{"filesystem", {{":root", "read"}, {key, "write"}}}}));
      ADD_FAILURE() << printable_key(key) << " was accepted";
    } catch (const Refused& r) {
      ASSERT_EQ(r.refusals().size(), 1u) << printable_key(key);
      EXPECT_EQ(r.refusals()[0].rule, "policy-malformed");
      EXPECT_NE(r.refusals()[0].message.find("control character"), std::string::npos);
      // The message shows the character escaped, never raw.
      EXPECT_EQ(r.refusals()[0].entry, printable_key(key));
      for (const char c : r.refusals()[0].to_string()) {
        EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << r.what();
      }
    }
  }
  EXPECT_EQ(printable_key(std::string("/a\0b\n", 5)), "/a\\x00b\\x0a");
  // Other bytes (UTF-8 included) are paths like any other.
  EXPECT_NO_THROW(policy_from_settings(
      effective_with({{"filesystem", {{":root", "read"}, {"/srv/caf\xc3\xa9 x", "read"}}}})));
}

TEST(Policy, SplitFormNormalisesKeysAndAccess) {
  const Policy p = policy_from_settings(effective_with({{"filesystem",
                                                         {{":root", "read"},
                                                          {"/code//", "write"},
                                                          {"/code/./.git", "read"},
                                                          {"/code/secrets", "none"},
                                                          {"~/x", "read"},
                                                          {"~", "deny"},
                                                          {":root/opt", "read"},
                                                          {":workspace/.git", "read"}}}}));
  EXPECT_EQ(fs_json(p),
            R"({"/code":"write","/code/.git":"read","/code/secrets":"deny","/opt":"read",)"
            R"(":home":"deny",":home/x":"read",":root":"read",":workspace/.git":"read"})");
  // "none" is the same value as "deny".
  for (const auto& e : p.filesystem) {
    if (e.key == "/code/secrets") {
      EXPECT_EQ(e.access, Access::deny);
      EXPECT_EQ(e.written, "/code/secrets");
      EXPECT_EQ(e.origin, Scope::user);
    }
  }
}

TEST(Policy, TwoSpellingsOfOnePathTieDenyOverWriteOverRead) {
  const Policy p = policy_from_settings(effective_with({{"filesystem",
                                                         {{"/a", "read"},
                                                          {"/a/", "write"},
                                                          {"/b", "deny"},
                                                          {"/b/", "write"},
                                                          {"/c/", "read"},
                                                          {"/c//", "write"}}}}));
  EXPECT_EQ(fs_json(p), R"({"/a":"write","/b":"deny","/c":"write"})");
}

TEST(Policy, PartialOperatorPolicyTakesDefaultsNeverOpen) {
  const Policy p = policy_from_settings(effective_with({{"unixSockets", "deny"}}));
  EXPECT_EQ(fs_json(p), R"({":root":"read",":workspace":"write"})");
  EXPECT_EQ(p.network, Network::closed);
  EXPECT_EQ(p.unix_sockets, UnixSockets::deny);
}

TEST(Policy, MalformedEntriesAreRefusedNamingTheEntry) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"relative/path", "absolute"},
      {":nosuch", "unknown token :nosuch"},
      {"/a/../b", "\"..\""},
      {"~bob/x", "~user"},
      {":minimal/x", "takes no sub-path"}};
  for (const auto& [key, why] : bad) {
    try {
      policy_from_settings(effective_with({{"filesystem", {{key, "read"}}}}));
      ADD_FAILURE() << key << " was accepted";
    } catch (const Refused& r) {
      ASSERT_EQ(r.refusals().size(), 1u) << key;
      EXPECT_EQ(r.refusals()[0].rule, "policy-malformed");
      EXPECT_EQ(r.refusals()[0].entry, key);
      EXPECT_NE(r.refusals()[0].message.find(why), std::string::npos) << r.what();
      EXPECT_FALSE(r.refusals()[0].remedy.empty());
    }
  }
}

TEST(Policy, WrongTypesAndValuesAreRefusedNotDefaulted) {
  const std::vector<nlohmann::json> bad = {
      nlohmann::json::array(),   {{"filesystem", "everything"}},
      {{"filesystem", 3}},       {{"filesystem", {{"/a", "rw"}}}},
      {{"network", "partly"}},   {{"unixSockets", true}},
      {{"backend", "landlock"}}, {{"surprise", 1}}};
  for (const auto& sandbox : bad) {
    EXPECT_THROW(policy_from_settings(effective_with(sandbox)), Refused) << sandbox.dump();
  }
}

TEST(Policy, ExpandKeyUsesTokenValues) {
  TokenValues t{"/w", "/tmp", "/home/u", {"/usr", "/bin"}};
  EXPECT_EQ(expand_key(Entry{":workspace/.git", Access::read, "", {}}, t),
            std::vector<std::string>{"/w/.git"});
  EXPECT_EQ(expand_key(Entry{":home/x", Access::read, "", {}}, t),
            std::vector<std::string>{"/home/u/x"});
  EXPECT_EQ(expand_key(Entry{":minimal", Access::read, "", {}}, t),
            (std::vector<std::string>{"/usr", "/bin"}));
  EXPECT_EQ(expand_key(Entry{":tmpdir", Access::write, "", {}}, t),
            std::vector<std::string>{"/tmp"});
  EXPECT_EQ(expand_key(Entry{"/", Access::read, "", {}}, t), std::vector<std::string>{"/"});
  t.home.clear();
  EXPECT_THROW(expand_key(Entry{":home", Access::read, "~", {}}, t), Refused);
}

TEST(Policy, NetworkAllowListKeepsEveryEntryAndItsScope) {
  const Policy p = policy_from_settings(
      effective_with({{"network",
                       {{"allow", {"github.com", "**.npmjs.org", "api.example.com:8443"}},
                        {"deny", {"gist.github.com"}}}}},
                     Scope::system));
  ASSERT_EQ(p.network, Network::allow_list);
  EXPECT_EQ(p.network_origin, Scope::system);
  ASSERT_EQ(p.network_rules.allow.size(), 3u);
  ASSERT_EQ(p.network_rules.deny.size(), 1u);
  EXPECT_EQ(p.network_rules.allow[2].text, "api.example.com:8443");
  EXPECT_EQ(p.network_rules.allow[2].port, 8443);
  EXPECT_EQ(p.network_rules.allow[0].origin, "system");
  EXPECT_EQ(p.network_rules.deny[0].name, "gist.github.com");
  // No host socket by default: the allow-list is not an open network.
  EXPECT_EQ(p.unix_sockets, UnixSockets::pairs);
  EXPECT_EQ(canonical_json(p)["network"],
            nlohmann::json::parse(R"({"allow": ["github.com", "**.npmjs.org",
                                  "api.example.com:8443"], "deny": ["gist.github.com"]})"));
}

TEST(Policy, NetworkAllowListEntriesChangeTheDigest) {
  const auto digest = [](const nlohmann::json& network) {
    return policy_digest(policy_from_settings(effective_with({{"network", network}})));
  };
  const std::string closed = digest("closed");
  const std::string one = digest({{"allow", {"github.com"}}});
  const std::string other = digest({{"allow", {"github.com:22"}}});
  const std::string denied = digest({{"allow", {"github.com"}}, {"deny", {"gist.github.com"}}});
  EXPECT_NE(closed, one);
  EXPECT_NE(one, other);
  EXPECT_NE(one, denied);
  EXPECT_EQ(one, digest({{"allow", {"github.com"}}}));
}

TEST(Policy, BadNetworkAllowListIsRefusedWhereItIs) {
  const std::vector<std::pair<nlohmann::json, std::string>> bad = {
      {{{"allow", {"github.com", "*.com"}}}, "tools.executionSandbox.network.allow[1]"},
      {{{"allow", {"*"}}}, "tools.executionSandbox.network.allow[0]"},
      {{{"deny", {"2130706433"}}}, "tools.executionSandbox.network.deny[0]"},
      {{{"allow", "github.com"}}, "tools.executionSandbox.network.allow"},
      {{{"allowed", {"github.com"}}}, "tools.executionSandbox.network"},
      {42, "tools.executionSandbox.network"},
  };
  for (const auto& [network, where] : bad) {
    try {
      policy_from_settings(effective_with({{"network", network}}));
      ADD_FAILURE() << "accepted " << network.dump();
    } catch (const Refused& r) {
      ASSERT_EQ(r.refusals().size(), 1u) << network.dump();
      EXPECT_EQ(r.refusals()[0].rule, "policy-malformed");
      EXPECT_EQ(r.refusals()[0].path, where) << network.dump() << ": " << r.what();
    }
  }
}

}  // namespace
}  // namespace holdfast::sandbox
