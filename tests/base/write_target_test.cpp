// Where a write lands: through chains of relative and absolute symlinks,
// a dangling link, and a path that is no symlink at all.
#include "base/write_target.hpp"

#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace holdfast::base {
namespace {

namespace fs = std::filesystem;

TEST(WriteTarget, APathThatIsNoSymlinkIsItself) {
  testing::TempDir dir;
  EXPECT_EQ(resolve_write_target(dir / "missing.json"), dir / "missing.json");
  fs::create_directory(dir / "d");
  // Not normalised: nothing was followed.
  EXPECT_EQ(resolve_write_target(dir.path() / "d" / ".." / "f"), dir.path() / "d" / ".." / "f");
}

TEST(WriteTarget, AChainOfRelativeAndAbsoluteLinksIsFollowedToItsEnd) {
  testing::TempDir dir;
  fs::create_directories(dir / "conf");
  fs::create_directories(dir / "store" / "real");
  fs::create_symlink("../store/middle.json", dir / "conf" / "settings.json");
  fs::create_symlink(dir / "store" / "real" / "settings.json", dir / "store" / "middle.json");
  EXPECT_EQ(resolve_write_target(dir / "conf" / "settings.json"),
            dir.path() / "store" / "real" / "settings.json");
}

TEST(WriteTarget, ADanglingLinkLandsWhereItPoints) {
  testing::TempDir dir;
  fs::create_symlink("not-yet.json", dir / "settings.json");
  EXPECT_EQ(resolve_write_target(dir / "settings.json"), dir / "not-yet.json");
}

}  // namespace
}  // namespace holdfast::base
