// The two built-in lists (protected names, credential stores) as data:
// what the tables hold, how the settings of each scope extend and lift
// them, through the real merge, and what reaches the policy's digest.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>

#include "launcher/sandbox/credential_stores.hpp"
#include "launcher/sandbox/policy.hpp"
#include "launcher/sandbox/protected_names.hpp"
#include "launcher/sandbox/protection_facts.hpp"
#include "launcher/sandbox/refusal.hpp"
#include "settings/merge.hpp"

namespace holdfast::sandbox {
namespace {

using settings::Scope;

settings::ScopeFile scope_file(Scope scope, const std::string& text) {
  settings::ScopeFile file;
  file.scope = scope;
  file.path = "/scopes/" + std::string(settings::scope_name(scope)) + ".json";
  file.exists = true;
  file.bytes = text;
  settings::interpret_scope_bytes(file);
  EXPECT_TRUE(file.valid()) << text;
  return file;
}

settings::Effective merged(const std::vector<settings::ScopeFile>& files) {
  std::vector<const settings::ScopeFile*> pointers;
  for (const auto& f : files) pointers.push_back(&f);
  return settings::merge_scopes(pointers);
}

std::set<std::string> written(const ProtectedNames& names) {
  std::set<std::string> out;
  for (const auto& name : names.names) out.insert(written_name(name));
  return out;
}

std::vector<std::string> rules_of(const std::vector<Refusal>& refusals) {
  std::vector<std::string> out;
  for (const auto& r : refusals) out.push_back(r.rule + " " + r.path + " " + r.entry);
  return out;
}

// Every name issue 22 asks for, and sandbox-runtime's list.
TEST(ProtectedNamesTable, HoldsEveryNameAskedForEachWithAReason) {
  const auto names = written(builtin_protected_names());
  for (const char* name : {".git",           ".holdfast",   ".gitmodules",     ".gitattributes",
                           ".lfsconfig",     ".vscode",     ".idea",           ".zed",
                           ".helix",         ".nvim.lua",   ".exrc",           ".envrc",
                           ".tool-versions", ".mise.toml",  ".npmrc",          ".qwen",
                           ".claude",        ".codex",      ".gemini",         ".cursor",
                           ".mcp.json",      "~/.bashrc",   "~/.bash_profile", "~/.profile",
                           "~/.zshrc",       "~/.zprofile", "~/.gitconfig"}) {
    EXPECT_TRUE(names.contains(name)) << name;
  }
  std::set<std::string> seen;
  for (const auto& row : builtin_protected_name_rows()) {
    EXPECT_FALSE(row.reason.empty()) << row.name;
    EXPECT_TRUE(seen.insert(std::string(row.name)).second) << "twice: " << row.name;
    if (row.scope == NameScope::every_directory) {
      EXPECT_EQ(row.name.find('/'), std::string_view::npos) << row.name;
    }
    EXPECT_FALSE(row.name.starts_with("/") || row.name.starts_with("~")) << row.name;
  }
  // Only holdfast's own two names cannot be lifted by name.
  std::set<std::string> fixed;
  for (const auto& row : builtin_protected_name_rows()) {
    if (!row.liftable) fixed.insert(std::string(row.name));
  }
  EXPECT_EQ(fixed, (std::set<std::string>{".git", ".holdfast"}));
  EXPECT_EQ(written(core_protected_names()), (std::set<std::string>{".git", ".holdfast"}));
}

TEST(ProtectedNamesTable, ComponentLookupFindsEveryDirectoryNamesOnly) {
  const auto names = builtin_protected_names();
  EXPECT_TRUE(is_protected_component(names, ".vscode"));
  EXPECT_TRUE(is_protected_component(names, ".git"));
  EXPECT_TRUE(is_protected_component(names, "mise.toml"));
  EXPECT_FALSE(is_protected_component(names, ".bashrc"));  // home only
  EXPECT_FALSE(is_protected_component(names, ".vscodex"));
  EXPECT_FALSE(is_protected_component(names, ""));
  EXPECT_FALSE(is_protected_component(ProtectedNames{}, ".git"));
}

TEST(ProtectedNamesSettings, EveryScopeAddsOperatorsLiftTheWorkspaceCannot) {
  const auto effective = merged({
      scope_file(Scope::user,
                 R"j({"tools": {"protectedNames": {"lift": [".vscode"], "add": [".mine"]}}})j"),
      scope_file(Scope::workspace, R"j({"tools": {"protectedNames":
          {"lift": [".claude", ".idea"], "add": [".project/", "~/.config/tool"]}}})j"),
  });
  // The merge dropped the workspace's lift, with a warning naming the key.
  ASSERT_EQ(effective.warnings.size(), 1u);
  EXPECT_EQ(effective.warnings[0].key_path, "tools.protectedNames.lift");
  std::vector<Refusal> refusals;
  const ProtectedNames names = protected_names_from_settings(effective, refusals);
  EXPECT_TRUE(refusals.empty()) << ::testing::PrintToString(rules_of(refusals));
  const auto all = written(names);
  EXPECT_FALSE(all.contains(".vscode"));
  EXPECT_TRUE(all.contains(".claude"));
  EXPECT_TRUE(all.contains(".idea"));
  EXPECT_TRUE(all.contains(".mine"));
  EXPECT_TRUE(all.contains(".project"));
  EXPECT_TRUE(all.contains("~/.config/tool"));
  ASSERT_EQ(names.lifted.size(), 1u);
  EXPECT_EQ(names.lifted[0], (LiftedName{".vscode", Scope::user}));
  for (const auto& name : names.names) {
    if (name.name == ".project") {
      EXPECT_EQ(name.origin, Scope::workspace);
      EXPECT_EQ(name.when_missing, WhenMissing::guard);
    }
    if (name.name == ".config/tool") {
      EXPECT_EQ(name.scope, NameScope::home);
    }
  }
  // Sorted, every-directory names first: the lookup above relies on it.
  EXPECT_TRUE(std::is_sorted(names.names.begin(), names.names.end(),
                             [](const ProtectedName& a, const ProtectedName& b) {
                               return a.scope != b.scope ? a.scope < b.scope : a.name < b.name;
                             }));
}

TEST(ProtectedNamesSettings, AWorkspaceCanAddBackWhatAnOperatorLifted) {
  const auto effective = merged({
      scope_file(Scope::user, R"j({"tools": {"protectedNames": {"lift": [".npmrc"]}}})j"),
      scope_file(Scope::workspace, R"j({"tools": {"protectedNames": {"add": [".npmrc"]}}})j"),
  });
  std::vector<Refusal> refusals;
  const auto names = protected_names_from_settings(effective, refusals);
  EXPECT_TRUE(written(names).contains(".npmrc"));
}

TEST(ProtectedNamesSettings, MalformedAdditionsAndLiftsAreRefusedByName) {
  settings::Effective e;
  e.value["tools"]["protectedNames"] = {{"add", {"/abs", "a/b", "..", "~/../x", "~user/x", ".ok"}},
                                        {"lift", {".git", ".holdfast", ".nope", "~/.nope"}}};
  std::vector<Refusal> refusals;
  const auto names = protected_names_from_settings(e, refusals);
  EXPECT_EQ(rules_of(refusals), (std::vector<std::string>{
                                    "policy-malformed tools.protectedNames.lift .git",
                                    "policy-malformed tools.protectedNames.lift .holdfast",
                                    "policy-malformed tools.protectedNames.lift .nope",
                                    "policy-malformed tools.protectedNames.lift ~/.nope",
                                    "policy-malformed tools.protectedNames.add /abs",
                                    "policy-malformed tools.protectedNames.add a/b",
                                    "policy-malformed tools.protectedNames.add ..",
                                    "policy-malformed tools.protectedNames.add ~/../x",
                                    "policy-malformed tools.protectedNames.add ~user/x",
                                }));
  EXPECT_NE(refusals[0].message.find("\":workspace/.git\": \"write\""), std::string::npos)
      << refusals[0].message;
  EXPECT_TRUE(written(names).contains(".ok"));
  EXPECT_TRUE(written(names).contains(".git"));
}

TEST(ProtectedNamesSettings, ShapesAndBoundsAreChecked) {
  for (const auto& value :
       {nlohmann::json("x"), nlohmann::json{{"add", "x"}}, nlohmann::json{{"add", {1}}},
        nlohmann::json{{"remove", {"x"}}}, nlohmann::json{{"add", {"a\nb"}}}}) {
    settings::Effective e;
    e.value["tools"]["protectedNames"] = value;
    std::vector<Refusal> refusals;
    protected_names_from_settings(e, refusals);
    ASSERT_EQ(refusals.size(), 1u) << value.dump();
    EXPECT_EQ(refusals[0].rule, "policy-malformed") << value.dump();
  }
  settings::Effective e;
  for (std::size_t i = 0; i <= kMaxListAdditions; ++i) {
    e.value["tools"]["protectedNames"]["add"].push_back(".n" + std::to_string(i));
  }
  std::vector<Refusal> refusals;
  const auto names = protected_names_from_settings(e, refusals);
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_EQ(names, builtin_protected_names());
}

// The walk's limit: operators set it, a workspace cannot (it would decide
// how much of itself is looked at), and only whole numbers in range count.
TEST(ProtectedNamesSettings, TheScanLimitIsTheOperatorsToSet) {
  EXPECT_EQ(builtin_protected_names().scan_limit, kDefaultScanLimit);
  const auto effective = merged({
      scope_file(Scope::user, R"j({"tools": {"protectedNames": {"scanLimit": 50000}}})j"),
      scope_file(Scope::workspace, R"j({"tools": {"protectedNames": {"scanLimit": 1}}})j"),
  });
  ASSERT_EQ(effective.warnings.size(), 1u);
  EXPECT_EQ(effective.warnings[0].key_path, "tools.protectedNames.scanLimit");
  std::vector<Refusal> refusals;
  EXPECT_EQ(protected_names_from_settings(effective, refusals).scan_limit, 50000u);
  EXPECT_TRUE(refusals.empty()) << ::testing::PrintToString(rules_of(refusals));
  const auto only_workspace = merged(
      {scope_file(Scope::workspace, R"j({"tools": {"protectedNames": {"scanLimit": 1}}})j")});
  EXPECT_EQ(protected_names_from_settings(only_workspace, refusals).scan_limit, kDefaultScanLimit);
  for (const auto& value : {nlohmann::json(0), nlohmann::json(-5), nlohmann::json(2.5),
                            nlohmann::json("100"), nlohmann::json(kMaxScanLimit + 1)}) {
    settings::Effective e;
    e.value["tools"]["protectedNames"]["scanLimit"] = value;
    std::vector<Refusal> malformed;
    EXPECT_EQ(protected_names_from_settings(e, malformed).scan_limit, kDefaultScanLimit);
    ASSERT_EQ(malformed.size(), 1u) << value.dump();
    EXPECT_EQ(malformed[0].rule, "policy-malformed");
    EXPECT_EQ(malformed[0].path, "tools.protectedNames.scanLimit");
  }
}

// Every path issue 29 asks for.
TEST(CredentialTable, HoldsEveryStoreAskedForEachWithAReason) {
  std::set<std::string> paths;
  std::set<std::string> names;
  for (const auto& store : builtin_credential_stores().stores) {
    EXPECT_FALSE(store.reason.empty()) << store.name;
    EXPECT_TRUE(names.insert(store.name).second) << "twice: " << store.name;
    for (const auto& path : store.paths) {
      EXPECT_TRUE(path.starts_with("~/") || path.starts_with("/")) << path;
      paths.insert(path);
    }
    for (const auto& kept : store.keep_readable) {
      EXPECT_TRUE(std::any_of(store.paths.begin(), store.paths.end(),
                              [&](const std::string& p) { return kept.starts_with(p + "/"); }))
          << kept << " is not inside " << store.name;
    }
  }
  for (const char* path : {"~/.ssh",
                           "~/.gnupg",
                           "~/.aws",
                           "~/.azure",
                           "~/.config/gcloud",
                           "~/.kube",
                           "~/.docker/config.json",
                           "~/.netrc",
                           "~/.git-credentials",
                           "~/.config/gh",
                           "~/.config/hub",
                           "~/.npmrc",
                           "~/.pypirc",
                           "~/.cargo/credentials",
                           "~/.cargo/credentials.toml",
                           "~/.terraform.d/credentials.tfrc.json",
                           "~/.password-store",
                           "~/.local/share/keyrings",
                           "~/.config/chromium",
                           "~/.config/google-chrome",
                           "~/.mozilla",
                           "~/.codex/auth.json",
                           "~/.claude/.credentials.json",
                           "~/.qwen/oauth_creds.json",
                           "/etc/shadow",
                           "/etc/gshadow"}) {
    EXPECT_TRUE(paths.contains(path)) << path;
  }
}

TEST(CredentialSettings, OperatorsLiftByNameEveryScopeAddsTheWorkspaceCannotLift) {
  const auto effective = merged({
      scope_file(Scope::system_defaults,
                 R"j({"tools": {"credentialStores": {"add": ["/etc/company/token"]}}})j"),
      scope_file(Scope::user,
                 R"j({"tools": {"credentialStores": {"lift": ["git-credentials"]}}})j"),
      scope_file(Scope::workspace, R"j({"tools": {"credentialStores":
          {"lift": ["ssh"], "add": ["~/.config/project/key"]}}})j"),
  });
  std::vector<Refusal> refusals;
  const auto stores = credential_stores_from_settings(effective, refusals);
  EXPECT_TRUE(refusals.empty()) << ::testing::PrintToString(rules_of(refusals));
  const auto find = [&](const std::string& name) {
    return std::find_if(stores.stores.begin(), stores.stores.end(),
                        [&](const CredentialStore& s) { return s.name == name; });
  };
  EXPECT_NE(find("ssh"), stores.stores.end());  // the workspace's lift never arrived
  EXPECT_EQ(find("git-credentials"), stores.stores.end());
  ASSERT_NE(find("/etc/company/token"), stores.stores.end());
  EXPECT_EQ(find("/etc/company/token")->origin, Scope::system_defaults);
  ASSERT_NE(find("~/.config/project/key"), stores.stores.end());
  EXPECT_EQ(find("~/.config/project/key")->paths,
            std::vector<std::string>{"~/.config/project/key"});
  EXPECT_EQ(stores.lifted, (std::vector<LiftedStore>{{"git-credentials", Scope::user}}));
}

TEST(CredentialSettings, MalformedAdditionsAndUnknownLiftsAreRefused) {
  settings::Effective e;
  e.value["tools"]["credentialStores"] = {{"add", {"relative", "/a/../b", "~/", "~/.ok"}},
                                          {"lift", {"nope"}}};
  std::vector<Refusal> refusals;
  const auto stores = credential_stores_from_settings(e, refusals);
  EXPECT_EQ(rules_of(refusals), (std::vector<std::string>{
                                    "policy-malformed tools.credentialStores.add relative",
                                    "policy-malformed tools.credentialStores.add /a/../b",
                                    "policy-malformed tools.credentialStores.add ~/",
                                    "policy-malformed tools.credentialStores.lift nope",
                                }));
  EXPECT_EQ(stores.stores.back().name, "~/.ok");
}

TEST(CredentialSettings, AnAddedStoreCanBeLiftedByItsPath) {
  settings::Effective e;
  e.value["tools"]["credentialStores"] = {{"add", {"~/.x"}}, {"lift", {"~/.x"}}};
  std::vector<Refusal> refusals;
  const auto stores = credential_stores_from_settings(e, refusals);
  EXPECT_TRUE(refusals.empty());
  EXPECT_EQ(stores.stores, builtin_credential_stores().stores);
}

TEST(PolicyDigest, CoversBothLists) {
  const Policy base = policy_from_settings(settings::Effective{});
  settings::Effective lifted;
  lifted.value["tools"]["protectedNames"]["lift"] = {".vscode"};
  settings::Effective hidden;
  hidden.value["tools"]["credentialStores"]["lift"] = {"aws"};
  EXPECT_NE(policy_digest(base), policy_digest(policy_from_settings(lifted)));
  EXPECT_NE(policy_digest(base), policy_digest(policy_from_settings(hidden)));
  const auto json = canonical_json(base);
  EXPECT_TRUE(json.at("protectedNames").is_array());
  EXPECT_EQ(json.at("credentialStores").at("ssh"), nlohmann::json::array({"~/.ssh"}));
  // A malformed list stops the policy, with or without a sandbox entry.
  settings::Effective bad;
  bad.value["tools"]["credentialStores"]["lift"] = {"nope"};
  EXPECT_THROW(policy_from_settings(bad), Refused);
  bad.value["tools"]["executionSandbox"]["network"] = "closed";
  EXPECT_THROW(policy_from_settings(bad), Refused);
}

TEST(LoginHomes, RootAndLoginUsersFromPasswd) {
  EXPECT_EQ(login_homes("root:x:0:0:root:/root:/bin/bash\n"
                        "daemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n"
                        "alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n"
                        "svc:x:999:999::/var/lib/svc:/bin/false\n"
                        "nobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n"
                        "bob:x:59999:59999::/home//bob/:/bin/sh\n"
                        "carol:x:60000:60000::/home/carol:/bin/sh\n"
                        "dave:x:1001:1001::relative:/bin/sh\n"
                        "erin:x:1002:1002::/:/bin/sh\n"
                        "frank:x:1003:1003::/home/alice:/bin/sh\n"
                        "broken line\n"
                        "mallory:x:10x0:1::/home/m:/bin/sh\n"
                        "dots:x:1004:1004::/home/../etc:/bin/sh\n"
                        "\n"),
            (std::vector<std::string>{"/root", "/home/alice", "/home/bob"}));
  std::string many;
  for (int i = 0; i < 1000; ++i) {
    many += "u" + std::to_string(i) + ":x:" + std::to_string(1000 + i) + ":1::/home/u" +
            std::to_string(i) + ":/bin/sh\n";
  }
  EXPECT_EQ(login_homes(many).size(), kMaxHomes);
}

TEST(MayRead, GoesByTheModeBitsThatApplyToTheCaller) {
  const CallerIds user{1000, 1000, {27}};
  const auto st = [](mode_t mode, uid_t uid, gid_t gid) {
    struct stat s {};
    s.st_mode = mode;
    s.st_uid = uid;
    s.st_gid = gid;
    return s;
  };
  EXPECT_TRUE(may_read(st(S_IFREG | 0600, 1000, 1000), user));
  EXPECT_FALSE(may_read(st(S_IFREG | 0200, 1000, 1000), user));
  EXPECT_FALSE(may_read(st(S_IFREG | 0640, 0, 42), user));    // /etc/shadow, group shadow
  EXPECT_TRUE(may_read(st(S_IFREG | 0640, 0, 27), user));     // a supplementary group
  EXPECT_FALSE(may_read(st(S_IFREG | 0604, 0, 1000), user));  // the group bits apply, not other
  EXPECT_TRUE(may_read(st(S_IFREG | 0644, 0, 0), user));
  EXPECT_FALSE(may_read(st(S_IFDIR | 0700, 1001, 1001), user));  // another user's home
  EXPECT_TRUE(may_read(st(S_IFDIR | 0711, 1001, 1001), user));   // enterable: names guessable
  EXPECT_TRUE(may_read(st(S_IFREG | 0000, 1001, 1001), CallerIds{0, 0, {}}));
}

}  // namespace
}  // namespace holdfast::sandbox
