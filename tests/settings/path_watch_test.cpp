// Watching the way to a settings file (settings/path_watch.hpp) with real
// inotify: what is seen, and what each watched directory is watched for.
#include "settings/path_watch.hpp"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// The inotify watches this process holds, as the kernel lists them in
// /proc/self/fdinfo: inode number → event mask.
std::map<ino_t, std::uint32_t> watched_inodes() {
  std::map<ino_t, std::uint32_t> masks;
  for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
    std::error_code error;
    if (fs::read_symlink(entry.path(), error).string() != "anon_inode:inotify") continue;
    std::ifstream info("/proc/self/fdinfo/" + entry.path().filename().string());
    std::string line;
    while (std::getline(info, line)) {
      if (!line.starts_with("inotify wd:")) continue;
      std::istringstream fields(line);
      std::string field;
      ino_t inode = 0;
      std::uint32_t mask = 0;
      while (fields >> field) {
        if (field.starts_with("ino:")) inode = std::stoull(field.substr(4), nullptr, 16);
        if (field.starts_with("mask:")) mask = std::stoul(field.substr(5), nullptr, 16);
      }
      masks[inode] = mask;
    }
  }
  return masks;
}

ino_t inode_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_ino;
}

class PathWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.path() / "project" / ".holdfast");
    std::ofstream(file_) << "{}\n";
  }

  holdfast::testing::TempDir dir_;
  fs::path file_ = dir_.path() / "project" / ".holdfast" / "settings.json";
};

// Only the file's own directory is watched for writes. A watch for writes
// on a directory makes the kernel mark every child it has cached
// (fsnotify_set_children_dentry_flags): in a busy /tmp that took 3 ms of a
// launch. The directories above need only their entries.
TEST_F(PathWatchTest, OnlyTheFilesDirectoryIsWatchedForWrites) {
  const PathWatch watch(file_);
  const auto masks = watched_inodes();
  constexpr std::uint32_t kWrites = IN_MODIFY | IN_CLOSE_WRITE;
  const ino_t own = inode_of(file_.parent_path());
  ASSERT_TRUE(masks.contains(own));
  EXPECT_EQ(masks.at(own) & kWrites, kWrites);
  for (const fs::path& above : {dir_.path() / "project", dir_.path(), fs::path("/")}) {
    ASSERT_TRUE(masks.contains(inode_of(above))) << above;
    EXPECT_EQ(masks.at(inode_of(above)) & kWrites, 0u) << above;
    EXPECT_NE(masks.at(inode_of(above)) & IN_MOVED_FROM, 0u) << above;
  }
}

TEST_F(PathWatchTest, AWriteToTheFileIsSeen) {
  PathWatch watch(file_);
  std::ofstream(file_, std::ios::app) << " ";
  EXPECT_TRUE(watch.wait(milliseconds(0)));
}

TEST_F(PathWatchTest, ADirectoryOnTheWayRenamedAwayIsSeen) {
  PathWatch watch(file_);
  fs::rename(dir_.path() / "project", dir_.path() / "moved");
  EXPECT_TRUE(watch.wait(milliseconds(0)));
}

// Files written beside the way (a build in the workspace root) are not
// about the settings.
TEST_F(PathWatchTest, WritesBesideTheWayAreNotSeen) {
  PathWatch watch(file_);
  std::ofstream(dir_.path() / "project" / "build.log") << "noise\n";
  std::ofstream(dir_.path() / "other.txt") << "noise\n";
  EXPECT_FALSE(watch.wait(milliseconds(0)));
}

}  // namespace
}  // namespace holdfast::settings
