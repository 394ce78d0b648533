// take_snapshot(): one consistent reading of every scope, failing closed.
#include "settings/snapshot.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "base/sha256.hpp"
#include "settings/errors.hpp"
#include "tests/snapshot/policy_document.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

using holdfast::testing::kPolicy;
using holdfast::testing::TempDir;
using holdfast::testing::write_file;

class SnapshotTest : public ::testing::Test {
 protected:
  SnapshotTest() {
    paths_.system_dir = dir_ / "etc";
    paths_.config_dir = dir_ / "config";
    paths_.workspace = dir_ / "work";
    std::filesystem::create_directories(paths_.system_dir);
    std::filesystem::create_directories(paths_.config_dir);
    std::filesystem::create_directories(*paths_.workspace / ".holdfast");
    options_.settle_window = std::chrono::milliseconds(20);
    options_.max_wait = std::chrono::milliseconds(300);
  }
  std::filesystem::path file(Scope scope) const { return *paths_.file(scope); }

  TempDir dir_;
  ScopePaths paths_;
  SnapshotOptions options_;
};

TEST_F(SnapshotTest, AllScopesAbsentInQuietDirectoriesIsProvenAbsent) {
  options_.evidence_age = std::chrono::milliseconds(0);  // the directories were just made
  const Snapshot snapshot = take_snapshot(paths_, options_);
  ASSERT_EQ(snapshot.scopes.size(), 4u);
  for (std::size_t i = 0; i < snapshot.scopes.size(); ++i) {
    EXPECT_FALSE(snapshot.scopes[i].exists);
    EXPECT_EQ(snapshot.settling[i], Settling::proven_absent);
  }
  EXPECT_EQ(snapshot.effective.value, nlohmann::json::object());
  EXPECT_FALSE(snapshot.policy_required);
}

TEST_F(SnapshotTest, RecordsIdentityAndHashOfEachScope) {
  write_file(file(Scope::user), kPolicy);
  const Snapshot snapshot = take_snapshot(paths_, options_);
  const ScopeFile* user = snapshot.scope(Scope::user);
  ASSERT_NE(user, nullptr);
  EXPECT_TRUE(user->exists);
  EXPECT_EQ(user->path, file(Scope::user));
  struct stat st {};
  ASSERT_EQ(::stat(file(Scope::user).c_str(), &st), 0);
  EXPECT_EQ(user->identity.inode, st.st_ino);
  EXPECT_EQ(user->identity.device, st.st_dev);
  EXPECT_EQ(user->identity.size, st.st_size);
  EXPECT_EQ(user->identity.sha256, base::sha256_hex(kPolicy));
  EXPECT_EQ(snapshot.effective.value["tools"]["executionSandbox"]["network"], "closed");
  EXPECT_EQ(snapshot.effective.origins.at("tools.executionSandbox.network"), Scope::user);
  EXPECT_EQ(snapshot.digest.size(), 64u);
}

TEST_F(SnapshotTest, DigestIsStableAndFollowsContent) {
  write_file(file(Scope::user), kPolicy);
  const std::string first = take_snapshot(paths_, options_).digest;
  EXPECT_EQ(take_snapshot(paths_, options_).digest, first);
  write_file(file(Scope::user),
             R"({"tools": {"executionSandbox": {"filesystem": "read-only", "network": "open"}}})");
  EXPECT_NE(take_snapshot(paths_, options_).digest, first);
}

TEST_F(SnapshotTest, InvalidFileFailsClosedWithLocation) {
  write_file(file(Scope::user),
             "{\n  \"tools\": {\"executionSandbox\": {\"network\": \"shut\"}}\n}");
  try {
    take_snapshot(paths_, options_);
    FAIL() << "an invalid user scope must stop the snapshot";
  } catch (const InvalidSettings& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(file(Scope::user).string() + ":2:"), std::string::npos) << message;
    EXPECT_NE(message.find("tools.executionSandbox.network"), std::string::npos) << message;
  }
}

TEST_F(SnapshotTest, EmptyFileFailsClosedAndIsNeverEmptySettings) {
  write_file(file(Scope::system), "");
  EXPECT_THROW(take_snapshot(paths_, options_), InvalidSettings);
  // and the file is left exactly as it was
  EXPECT_EQ(std::filesystem::file_size(file(Scope::system)), 0u);
}

TEST_F(SnapshotTest, TruncatedFileFailsClosed) {
  const std::string policy = kPolicy;
  write_file(file(Scope::user), policy.substr(0, policy.size() / 2));
  EXPECT_THROW(take_snapshot(paths_, options_), InvalidSettings);
}

TEST_F(SnapshotTest, MissingFileWithAFreshBackupIsAWriteInProgressNotAbsence) {
  // What a rename-to-backup writer that was killed between its two renames
  // leaves behind: the backup, a temp, and no settings file.
  write_file(paths_.config_dir / "settings.json.orig", kPolicy);
  write_file(paths_.config_dir / "settings.json.tmp", kPolicy);
  try {
    take_snapshot(paths_, options_);
    FAIL() << "a missing file next to a fresh backup must not count as absent";
  } catch (const SnapshotError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("settings.json.orig"), std::string::npos) << message;
    EXPECT_NE(message.find("restore"), std::string::npos) << message;
  }
}

TEST_F(SnapshotTest, StaleLeftoversDoNotBlockAbsence) {
  write_file(paths_.config_dir / "settings.json~", kPolicy);
  options_.evidence_age = std::chrono::milliseconds(0);  // everything counts as old
  const Snapshot snapshot = take_snapshot(paths_, options_);
  EXPECT_FALSE(snapshot.scope(Scope::user)->exists);
}

TEST_F(SnapshotTest, RequiredPolicyMissingStopsTheSnapshot) {
  write_file(file(Scope::system_defaults), R"({"security": {"requireExecutionSandbox": true}})");
  try {
    take_snapshot(paths_, options_);
    FAIL() << "requireExecutionSandbox without a policy must refuse";
  } catch (const SnapshotError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("requireExecutionSandbox"), std::string::npos) << message;
    EXPECT_NE(message.find(file(Scope::user).string() + " (absent)"), std::string::npos) << message;
  }
  write_file(file(Scope::user), kPolicy);
  const Snapshot snapshot = take_snapshot(paths_, options_);
  EXPECT_TRUE(snapshot.policy_required);
}

TEST_F(SnapshotTest, WorkspacePolicyIsIgnoredAndCannotSatisfyARequirement) {
  write_file(file(Scope::system), R"({"security": {"requireExecutionSandbox": true}})");
  write_file(*paths_.workspace / ".holdfast" / "settings.json", kPolicy);
  EXPECT_THROW(take_snapshot(paths_, options_), SnapshotError);
}

TEST_F(SnapshotTest, WorkspaceWarningNamesFileAndKey) {
  write_file(file(Scope::user), kPolicy);
  const auto workspace_file = *paths_.workspace / ".holdfast" / "settings.json";
  write_file(workspace_file, R"({"tools": {"executionSandbox": {"network": "open"}}})");
  const Snapshot snapshot = take_snapshot(paths_, options_);
  EXPECT_EQ(snapshot.effective.value["tools"]["executionSandbox"]["network"], "closed");
  ASSERT_FALSE(snapshot.effective.warnings.empty());
  const std::string warning = snapshot.effective.warnings.front().to_string();
  EXPECT_NE(warning.find(workspace_file.string()), std::string::npos) << warning;
  EXPECT_NE(warning.find("tools.executionSandbox"), std::string::npos) << warning;
}

}  // namespace
}  // namespace holdfast::settings
