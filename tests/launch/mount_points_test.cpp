// Which bwrap mount destinations holdfast cleans up after a run.
#include "launcher/run/mount_points.hpp"

#include <gtest/gtest.h>

#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::launcher {
namespace {

TEST(MountDestinations, TakesTheLastArgumentOfEveryMountOptionOnly) {
  // Grouped as written: one bwrap option and its operands together.
  // clang-format off
  const std::vector<std::string> argv = {
      "/usr/bin/bwrap", "--setenv", "HOME", "/root", "--ro-bind", "/", "/", "--dev", "/dev",
      "--proc", "/proc", "--tmpfs", "/tmp", "--perms", "0111", "--dir", "/tmp/a",
      "--bind", "/w", "/w", "--perms", "0555", "--tmpfs", "/w/.git", "--perms", "0000",
      "--ro-bind-data", "7", "/w/secret", "--remount-ro", "/w/.git", "--chdir", "/w",
      "--seccomp", "3", "--", "/bin/sh", "--tmpfs", "/not/a/mount"};
  // clang-format on
  EXPECT_EQ(mount_destinations(argv),
            (std::vector<std::string>{"/", "/tmp", "/tmp/a", "/w", "/w/.git", "/w/secret"}));
}

TEST(RemoveEmptyLeftovers, RemovesOnlyEmptyDirectoriesDeepestFirst) {
  holdfast::testing::TempDir dir;
  std::filesystem::create_directories(dir / "a" / "b");
  std::filesystem::create_directories(dir / "full");
  holdfast::testing::write_file(dir / "full" / "kept", "x");
  holdfast::testing::write_file(dir / "file", "x");
  const auto removed = remove_empty_leftovers(
      {dir / "a", dir / "a" / "b", dir / "full", dir / "file", dir / "never-existed"});
  EXPECT_EQ(removed, (std::vector<std::filesystem::path>{dir / "a" / "b", dir / "a"}));
  EXPECT_TRUE(std::filesystem::exists(dir / "full" / "kept"));
  EXPECT_TRUE(std::filesystem::exists(dir / "file"));
}

TEST(MissingOnHost, ListsOnlyPathsThatDoNotExist) {
  holdfast::testing::TempDir dir;
  EXPECT_EQ(missing_on_host({dir.path().string(), (dir / "nope").string()}),
            std::vector<std::filesystem::path>{dir / "nope"});
}

}  // namespace
}  // namespace holdfast::launcher
