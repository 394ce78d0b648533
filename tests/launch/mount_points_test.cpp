// The mount points bubblewrap leaves on the host: removed by the launch that
// ends last, never while another launch stands on them.
#include "launcher/run/mount_points.hpp"

#include <gtest/gtest.h>

#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::launcher {
namespace {

namespace fs = std::filesystem;

TEST(MountPointCleanup, ALaunchAloneRemovesWhatItRecordedIfStillEmpty) {
  holdfast::testing::TempDir dir;
  fs::create_directories(dir / "ws" / ".git");
  fs::create_directories(dir / "ws" / ".holdfast");
  holdfast::testing::write_file(dir / "ws" / ".holdfast" / "kept", "x");
  MountPointCleanup launch(dir.path());
  launch.record({(dir / "ws" / ".git").string(), (dir / "ws" / ".holdfast").string(),
                 (dir / "ws" / "never-made").string()});
  EXPECT_EQ(launch.finish(), std::vector<fs::path>{dir / "ws" / ".git"});
  EXPECT_TRUE(fs::exists(dir / "ws" / ".holdfast" / "kept"));  // filled meanwhile: left alone
  EXPECT_TRUE(fs::is_empty(dir / "mount-points"));             // and forgotten
}

TEST(MountPointCleanup, TheLaunchThatEndsLastRemovesThem) {
  holdfast::testing::TempDir dir;
  fs::create_directories(dir / "ws" / ".git");
  MountPointCleanup first(dir.path());
  MountPointCleanup second(dir.path());  // started while the first runs
  first.record({(dir / "ws" / ".git").string()});
  EXPECT_TRUE(first.finish().empty()) << "removed a mount point another launch stands on";
  EXPECT_TRUE(fs::exists(dir / "ws" / ".git"));
  EXPECT_EQ(second.finish(), std::vector<fs::path>{dir / "ws" / ".git"});
  EXPECT_FALSE(fs::exists(dir / "ws" / ".git"));
}

TEST(RemoveEmptyDirectory, FollowsNoSymlink) {
  holdfast::testing::TempDir dir;
  fs::create_directories(dir / "real" / "x");
  fs::create_directory_symlink("real", dir / "link");
  EXPECT_FALSE(remove_empty_directory((dir / "link" / "x").string()));
  EXPECT_TRUE(fs::exists(dir / "real" / "x"));
  EXPECT_TRUE(remove_empty_directory((dir / "real" / "x").string()));
  EXPECT_FALSE(fs::exists(dir / "real" / "x"));
}

}  // namespace
}  // namespace holdfast::launcher
