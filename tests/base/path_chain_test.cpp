// Who can change what a path names: the walk from "/" through descriptors
// (every directory on the way, and the directories holding the symlinks it
// follows), and the pure judgement of each step.
#include "base/path_chain.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "base/system_error.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::base {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> paths_of(const WalkedPath& walked) {
  std::vector<std::string> out;
  for (const auto& step : walked.steps) out.push_back(step.path);
  return out;
}

TEST(PathChain, EveryDirectoryFromTheRootIsAStep) {
  testing::TempDir dir;
  const fs::path root = fs::canonical(dir.path());
  fs::create_directories(root / "a" / "b");
  const WalkedPath walked = walk_path(root / "a" / "b", O_PATH | O_DIRECTORY);
  const auto paths = paths_of(walked);
  ASSERT_GE(paths.size(), 3u);
  EXPECT_EQ(paths.front(), "/");
  EXPECT_EQ(paths[paths.size() - 2], (root / "a").string());
  EXPECT_EQ(paths.back(), (root / "a" / "b").string());
  EXPECT_EQ(walked.resolved, (root / "a" / "b").string());
  EXPECT_TRUE(walked.fd.valid());
}

// The directory that holds a symlink decides where the link points: it is
// a step of the walk, and so is the link itself, then the target's way.
TEST(PathChain, ASymlinkAndItsDirectoryAreStepsAndItsTargetIsWalked) {
  testing::TempDir dir;
  const fs::path root = fs::canonical(dir.path());
  fs::create_directories(root / "links");
  fs::create_directories(root / "real");
  ::close(::creat((root / "real" / "tool").c_str(), 0755));
  fs::create_symlink("../real/tool", root / "links" / "tool");
  const WalkedPath walked = walk_path(root / "links" / "tool", O_RDONLY);
  const auto paths = paths_of(walked);
  const auto has = [&](const fs::path& p) {
    return std::find(paths.begin(), paths.end(), p.string()) != paths.end();
  };
  EXPECT_TRUE(has(root / "links"));
  EXPECT_TRUE(has(root / "links" / "tool"));
  EXPECT_TRUE(has(root / "real"));
  EXPECT_EQ(walked.resolved, (root / "real" / "tool").string());
  EXPECT_TRUE(S_ISREG(walked.steps.back().mode));
  // ..., links, links/tool (the link), real, real/tool.
  ASSERT_GE(walked.steps.size(), 4u);
  EXPECT_TRUE(S_ISLNK(walked.steps[walked.steps.size() - 3].mode));
  EXPECT_EQ(walked.steps[walked.steps.size() - 2].path, (root / "real").string());
}

TEST(PathChain, AMissingComponentIsENOENT) {
  testing::TempDir dir;
  try {
    walk_path(dir / "missing" / "x", O_RDONLY);
    ADD_FAILURE() << "walked a missing path";
  } catch (const SystemError& e) {
    EXPECT_EQ(e.error_number(), ENOENT);
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
  }
}

TEST(PathChain, OwnershipProblems) {
  const PathStep root_dir{"/usr", 0, S_IFDIR | 0755};
  const PathStep mine{"/home/u", 1000, S_IFDIR | 0700};
  const PathStep theirs{"/home/v", 1001, S_IFDIR | 0755};
  const PathStep world{"/srv/ws", 1000, S_IFDIR | 0777};
  const PathStep group{"/srv/g", 0, S_IFDIR | 0775};
  const PathStep tmp{"/tmp", 0, S_IFDIR | 01777};
  const PathStep user_sticky{"/srv/shared", 1000, S_IFDIR | 01777};
  const PathStep their_link{"/tmp/link", 1001, S_IFLNK | 0777};
  const PathStep root_link{"/bin", 0, S_IFLNK | 0777};
  for (auto sticky : {StickyDirectories::refused, StickyDirectories::root_owned}) {
    EXPECT_FALSE(ownership_problem(root_dir, 1000, sticky));
    EXPECT_FALSE(ownership_problem(mine, 1000, sticky));
    EXPECT_EQ(ownership_problem(theirs, 1000, sticky), "/home/v is owned by uid 1001");
    EXPECT_EQ(ownership_problem(world, 1000, sticky),
              "/srv/ws has mode 0777 (writable by group or others)");
    EXPECT_TRUE(ownership_problem(group, 1000, sticky));
    EXPECT_TRUE(ownership_problem(user_sticky, 1000, sticky));
    EXPECT_EQ(ownership_problem(their_link, 1000, sticky), "/tmp/link is owned by uid 1001");
    EXPECT_FALSE(ownership_problem(root_link, 1000, sticky)) << "a link's mode means nothing";
  }
  EXPECT_FALSE(ownership_problem(tmp, 1000, StickyDirectories::root_owned));
  EXPECT_EQ(ownership_problem(tmp, 1000, StickyDirectories::refused),
            "/tmp has mode 1777 (writable by group or others, sticky)");
  // Root alone: another user's directory is refused even when it is "theirs".
  EXPECT_TRUE(ownership_problem(mine, 0, StickyDirectories::refused));
  EXPECT_EQ(first_ownership_problem({root_dir, world, theirs}, 1000, StickyDirectories::refused),
            "/srv/ws has mode 0777 (writable by group or others)");
}

}  // namespace
}  // namespace holdfast::base
