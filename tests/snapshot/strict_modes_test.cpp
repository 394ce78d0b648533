// Operator scope files that someone else could have written are refused.
#include "settings/strict_modes.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "settings/snapshot.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

using holdfast::testing::TempDir;
using holdfast::testing::write_file;

class StrictModesTest : public ::testing::Test {
 protected:
  StrictModesTest() {
    paths_.system_dir = dir_ / "etc";
    paths_.config_dir = dir_ / "config";
    std::filesystem::create_directories(paths_.system_dir);
    std::filesystem::create_directories(paths_.config_dir);
    options_.evidence_age = std::chrono::milliseconds(0);
    write_file(user_file(), "{}");
    ::chmod(user_file().c_str(), 0644);
  }
  std::filesystem::path user_file() const { return paths_.config_dir / "settings.json"; }
  std::string refusal() {
    try {
      take_snapshot(paths_, options_);
    } catch (const UnsafeSettingsFile& e) {
      return e.what();
    }
    return "";
  }

  TempDir dir_;
  ScopePaths paths_;
  SnapshotOptions options_;
};

TEST_F(StrictModesTest, SafeFileIsAccepted) { EXPECT_EQ(refusal(), ""); }

TEST_F(StrictModesTest, WorldWritableFileIsRefused) {
  ::chmod(user_file().c_str(), 0666);
  const std::string message = refusal();
  EXPECT_NE(message.find("0666"), std::string::npos) << message;
  EXPECT_NE(message.find("chmod go-w " + user_file().string()), std::string::npos) << message;
}

TEST_F(StrictModesTest, GroupWritableDirectoryIsRefused) {
  ::chmod(paths_.config_dir.c_str(), 0775);
  const std::string message = refusal();
  EXPECT_NE(message.find("directory " + paths_.config_dir.string()), std::string::npos) << message;
}

TEST_F(StrictModesTest, FileOwnedBySomeoneElseIsRefused) {
  ASSERT_EQ(::chown(user_file().c_str(), 12345, 12345), 0);
  const std::string message = refusal();
  EXPECT_NE(message.find("owned by uid 12345"), std::string::npos) << message;
}

TEST_F(StrictModesTest, SymlinkIsFollowedAndItsTargetChecked) {
  const auto target = dir_ / "elsewhere.json";
  write_file(target, "{}");
  ::chmod(target.c_str(), 0646);
  std::filesystem::remove(user_file());
  std::filesystem::create_symlink(target, user_file());
  const std::string message = refusal();
  EXPECT_NE(message.find(target.string() + " has mode 0646"), std::string::npos) << message;
  EXPECT_NE(message.find("symlink " + user_file().string()), std::string::npos) << message;
}

TEST_F(StrictModesTest, WorkspaceFilesAreNotOperatorFiles) {
  paths_.workspace = dir_ / "work";
  std::filesystem::create_directories(*paths_.workspace / ".holdfast");
  const auto workspace_file = *paths_.workspace / ".holdfast" / "settings.json";
  write_file(workspace_file, "{}");
  ::chmod(workspace_file.c_str(), 0666);
  EXPECT_EQ(refusal(), "");
}

TEST_F(StrictModesTest, StickyRootDirectoryLikeTmpIsAccepted) {
  // The TempDir lives under /tmp (root, 1777): that must not be a refusal.
  struct stat st {};
  ASSERT_EQ(::stat(std::filesystem::temp_directory_path().c_str(), &st), 0);
  ASSERT_NE(st.st_mode & S_ISVTX, 0u);
  struct stat file {};
  ASSERT_EQ(::stat(user_file().c_str(), &file), 0);
  EXPECT_FALSE(check_strict_modes(user_file(), file.st_uid, file.st_mode, ::getuid()).has_value());
}

}  // namespace
}  // namespace holdfast::settings
