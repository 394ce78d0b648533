// Credential stores: whatever a command reads goes back to the agent and
// the model, so the well-known stores of keys and tokens are hidden under
// every policy, in the caller's home and in every other home it may read,
// unless an operator scope lifts an entry.
#include <pwd.h>
#include <unistd.h>

#include "protection_support.hpp"

namespace holdfast::run::testing {
namespace {

// Every store issue 29 names: the file the test plants (relative to a
// home) holds a secret the command must not see.
const std::vector<std::string> kSecretFiles = {
    ".ssh/id_ed25519",
    ".gnupg/private-keys-v1.d/key.key",
    ".aws/credentials",
    ".azure/msal_token_cache.json",
    ".config/gcloud/application_default_credentials.json",
    ".kube/config",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".config/gh/hosts.yml",
    ".config/hub",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".terraform.d/credentials.tfrc.json",
    ".password-store/bank.gpg",
    ".local/share/keyrings/login.keyring",
    ".config/chromium/Default/Cookies",
    ".config/google-chrome/Default/Login Data",
    ".mozilla/firefox/abc.default/logins.json",
    ".codex/auth.json",
    ".claude/.credentials.json",
    ".qwen/oauth_creds.json",
    ".gemini/oauth_creds.json",
};

const std::string kSecret = "s3cr3t-value";

class CredentialsTest : public ProtectionTest {
 protected:
  void plant_secrets(const fs::path& home, fs::perms mode = fs::perms(0600)) {
    for (const auto& file : kSecretFiles) make_file(home / file, kSecret + "\n", mode);
    make_file(home / ".ssh" / "known_hosts", "host ssh-ed25519 AAAA\n");
    make_file(home / ".ssh" / "config", "Host x\n");
    make_file(home / ".claude" / "settings.json", "{}\n");  // not a credential
  }

  // `cat` of every planted file inside the sandbox; what came out.
  Result read_all(const fs::path& home, Launch launch = {}) {
    std::string script;
    for (const auto& file : kSecretFiles) script += "cat '" + (home / file).string() + "'; ";
    script += "exit 0";
    return run({"/bin/sh", "-c", script}, {}, as_caller(std::move(launch)));
  }
};

TEST_P(CredentialsTest, EveryStoreIsUnreadableUnderTheDefaultAndBothSimpleForms) {
  plant_secrets(home_);
  own_tree(home_);
  // Control: on the host, the caller reads them all.
  std::string host_script;
  for (const auto& file : kSecretFiles) host_script += "cat '" + (home_ / file).string() + "'; ";
  holdfast::testing::Command control{{"/bin/sh", "-c", host_script},
                                     holdfast::testing::current_environment(),
                                     std::nullopt,
                                     as_caller().uid,
                                     outside_ / "control.out",
                                     outside_ / "control.err"};
  const auto host = holdfast::testing::wait_command(holdfast::testing::start_command(control));
  ASSERT_EQ(host.out.size(), kSecretFiles.size() * (kSecret.size() + 1)) << host.err;

  for (const nlohmann::json& policy :
       {nlohmann::json(), nlohmann::json{{"filesystem", "read-only"}},
        nlohmann::json{{"filesystem", "workspace-write"}}}) {
    if (policy.is_null()) {
      fs::remove(config_dir_ / "settings.json");  // the built-in default
    } else {
      set_policy(policy);
    }
    const auto result = read_all(home_);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_FALSE(contains(result.out, kSecret)) << policy.dump() << "\n" << result.out;
    for (const auto& file : kSecretFiles) {
      EXPECT_TRUE(contains(result.err, (home_ / file).string())) << file << ": " << result.err;
    }
    // What holds no secret stays readable.
    const auto kept =
        run({"/bin/cat", (home_ / ".ssh" / "known_hosts").string(),
             (home_ / ".ssh" / "config").string(), (home_ / ".claude" / "settings.json").string()},
            {}, as_caller());
    EXPECT_EQ(kept.exit_code, 0) << kept.err;
    EXPECT_EQ(kept.out, "host ssh-ed25519 AAAA\nHost x\n{}\n");
  }
}

TEST_P(CredentialsTest, UnderAWritableHomeTheStoresAreHiddenAndCannotBeReplaced) {
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}, {":home", "write"}}}});
  plant_secrets(home_);
  own_tree(home_);
  const auto result = read_all(home_);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(contains(result.out, kSecret)) << result.out;
  const auto moved =
      run({"/bin/sh", "-c", "mv ~/.aws ~/aws.old; rm -rf ~/.gnupg; exit 0"}, {}, as_caller());
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  EXPECT_EQ(read_file(home_ / ".aws" / "credentials"), kSecret + "\n");
  EXPECT_EQ(read_file(home_ / ".gnupg" / "private-keys-v1.d" / "key.key"), kSecret + "\n");
}

TEST_P(CredentialsTest, AnOperatorLiftsAnEntryByNameAWorkspaceCannot) {
  set_policy(kWorkspaceWrite, {{"tools", {{"credentialStores", {{"lift", {"ssh"}}}}}}});
  set_workspace_settings({{"tools", {{"credentialStores", {{"lift", {"aws"}}}}}}});
  plant_secrets(home_);
  own_tree(home_);
  own_tree(workspace_);
  const auto lifted = run({"/bin/cat", (home_ / ".ssh" / "id_ed25519").string()}, {}, as_caller());
  EXPECT_EQ(lifted.out, kSecret + "\n") << lifted.err;
  const auto kept = run({"/bin/cat", (home_ / ".aws" / "credentials").string()}, {}, as_caller());
  EXPECT_NE(kept.exit_code, 0);
  EXPECT_FALSE(contains(kept.out, kSecret));
  // The hint on stderr names what was hidden from the failed command.
  EXPECT_TRUE(contains(kept.err, "credential stores in your home were hidden from it")) << kept.err;
  EXPECT_TRUE(contains(kept.err, "aws")) << kept.err;
  const auto record = last_record().at("protection").at("credentials");
  EXPECT_EQ(record.at("lifted"), nlohmann::json::parse(R"([{"name": "ssh", "origin": "user"}])"));
  // Other homes' stores may be listed too (a test beside this one adds a
  // user whose home has them): the caller's own must be among them.
  bool aws_hidden = false;
  for (const auto& hidden : record.at("hidden")) {
    if (hidden.at("store") == "aws" && hidden.at("path") == (home_ / ".aws").string()) {
      aws_hidden = true;
    }
    EXPECT_NE(hidden.at("store"), "ssh");
  }
  EXPECT_TRUE(aws_hidden) << record.dump();
  const auto explained = holdfast({"run", "--explain", "--", "true"}, as_caller());
  EXPECT_TRUE(contains(explained.out, "lifted: ssh  (by the user scope)")) << explained.out;
  EXPECT_TRUE(contains(explained.out, "hidden: " + (home_ / ".aws").string() + " (aws)"))
      << explained.out;
  EXPECT_TRUE(contains(explained.err + explained.out, "tools.credentialStores.lift"))
      << explained.out;
}

TEST_P(CredentialsTest, ASymlinkedStoreIsHiddenAtItsTargetAndAddedPathsAreHidden) {
  set_policy(kWorkspaceWrite,
             {{"tools", {{"credentialStores", {{"add", {"~/.config/tool/token"}}}}}}});
  set_workspace_settings(
      {{"tools", {{"credentialStores", {{"add", {(outside_ / "project.key").string()}}}}}}});
  make_file(home_ / "dotfiles" / "aws" / "credentials", kSecret + "\n");
  fs::create_symlink("dotfiles/aws", home_ / ".aws");
  make_file(home_ / ".config" / "tool" / "token", kSecret + "\n");
  make_file(outside_ / "project.key", kSecret + "\n");
  own_tree(home_);
  own_tree(workspace_);
  own(outside_ / "project.key");
  const auto result =
      run({"/bin/sh", "-c",
           "cat ~/.aws/credentials ~/dotfiles/aws/credentials ~/.config/tool/token \"$1\"; exit 0",
           "sh", (outside_ / "project.key").string()},
          {}, as_caller());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(contains(result.out, kSecret)) << result.out;
}

// Another user's home, readable to the caller (a sloppy 0755 home with
// 0644 keys): under ":root": "read" its stores are hidden too.
TEST_P(CredentialsTest, OtherUsersHomesAreCoveredUnderRootRead) {
  set_policy(kWorkspaceWrite);
  const fs::path other_home = base_ / "other-home";
  plant_secrets(other_home, fs::perms(0644));
  fs::permissions(other_home, fs::perms(0755));
  for (const auto& entry : fs::recursive_directory_iterator(other_home)) {
    if (entry.is_directory()) fs::permissions(entry.path(), fs::perms(0755));
  }
  const std::string name = "hft" + std::to_string(::getpid() % 100000);
  uid_t uid = 0;
  for (uid = 41000 + static_cast<uid_t>(::getpid() % 1000); ::getpwuid(uid) != nullptr; ++uid) {
  }
  const auto added =
      holdfast::testing::run_command({"/usr/sbin/useradd", "-M", "-N", "-u", std::to_string(uid),
                                      "-d", other_home.string(), "-s", "/usr/sbin/nologin", name},
                                     {});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  struct Remove {
    std::string name;
    ~Remove() { holdfast::testing::run_command({"/usr/sbin/userdel", name}, {}); }
  } remove{name};
  for (const auto& entry : fs::recursive_directory_iterator(other_home)) {
    ASSERT_EQ(::lchown(entry.path().c_str(), uid, uid), 0);
  }
  ASSERT_EQ(::lchown(other_home.c_str(), uid, uid), 0);
  const auto result = read_all(other_home);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(contains(result.out, kSecret)) << result.out;
}

TEST_P(CredentialsTest, ThePasswordHashesAreHiddenFromRoot) {
  set_policy(kWorkspaceWrite);
  const auto result = run({"/bin/cat", "/etc/shadow"}, {}, as_caller());
  EXPECT_NE(result.exit_code, 0);
  EXPECT_TRUE(result.out.empty()) << "read /etc/shadow inside";
}

INSTANTIATE_TEST_SUITE_P(Callers, CredentialsTest, ::testing::Values(Caller::root, Caller::user),
                         caller_name);

}  // namespace
}  // namespace holdfast::run::testing
