// Specifier forms and gitignore-style globs.
#include "launcher/gatekeeper/path_match.hpp"

#include <gtest/gtest.h>

namespace holdfast::gatekeeper {
namespace {

const PathBases kBases{"/ws", "/ws/sub", "/home/me"};

bool matches(const std::string& spec, const std::string& path) {
  return glob_matches(compile_glob(specifier_to_glob(spec, kBases)), path);
}

TEST(Normalize, FoldsDotsAndSlashes) {
  EXPECT_EQ(normalize_path("/a//b/./c/../d/"), "/a/b/d");
  EXPECT_EQ(normalize_path("x/../../y", "/ws/sub"), "/ws/y");
  EXPECT_EQ(normalize_path("/.."), "/");
  EXPECT_EQ(normalize_path(""), "/");
}

TEST(IsWithin, SegmentBoundaries) {
  EXPECT_TRUE(is_within("/ws", "/ws"));
  EXPECT_TRUE(is_within("/ws/a", "/ws"));
  EXPECT_FALSE(is_within("/wsx", "/ws"));
  EXPECT_TRUE(is_within("/anything", "/"));
}

TEST(Specifier, Bases) {
  EXPECT_EQ(specifier_to_glob("//etc/passwd", kBases), "/etc/passwd");
  EXPECT_EQ(specifier_to_glob("~/.ssh/**", kBases), "/home/me/.ssh/**");
  EXPECT_EQ(specifier_to_glob("~", kBases), "/home/me");
  EXPECT_EQ(specifier_to_glob("/src/**", kBases), "/ws/src/**");
  EXPECT_EQ(specifier_to_glob("./x", kBases), "/ws/sub/x");
  EXPECT_EQ(specifier_to_glob("a/b", kBases), "/ws/sub/a/b");
  EXPECT_EQ(specifier_to_glob(".env", kBases), "/ws/sub/**/.env");
}

TEST(Glob, StarStaysInOneSegment) {
  EXPECT_TRUE(matches("/src/*.c", "/ws/src/a.c"));
  EXPECT_FALSE(matches("/src/*.c", "/ws/src/x/a.c"));
  EXPECT_TRUE(matches("/src/*.c", "/ws/src/.hidden.c"));
}

TEST(Glob, DoubleStarCrossesSegments) {
  EXPECT_TRUE(matches("/src/**/*.c", "/ws/src/a.c"));
  EXPECT_TRUE(matches("/src/**/*.c", "/ws/src/x/y/a.c"));
  EXPECT_TRUE(matches("/**/.git/**", "/ws/a/.git/config"));
  EXPECT_TRUE(matches("~/**", "/home/me/.config/x"));
  EXPECT_FALSE(matches("~/**", "/home/other"));
}

TEST(Glob, MatchingADirectoryCoversItsContents) {
  EXPECT_TRUE(matches("//etc/ssl", "/etc/ssl/private/key.pem"));
  EXPECT_FALSE(matches("//etc/ssl", "/etc/ssl2"));
}

TEST(Glob, RelativeFormsAnchorDifferently) {
  EXPECT_TRUE(matches("./x", "/ws/sub/x"));
  EXPECT_FALSE(matches("./x", "/ws/sub/deeper/x"));
  EXPECT_TRUE(matches("x", "/ws/sub/deeper/x"));
  EXPECT_FALSE(matches("x", "/ws/x"));  // above the cwd
}

TEST(Glob, QuestionMarkAndClasses) {
  EXPECT_TRUE(matches("/f?.txt", "/ws/f1.txt"));
  EXPECT_TRUE(matches("/f[0-9].txt", "/ws/f7.txt"));
  EXPECT_FALSE(matches("/f[0-9].txt", "/ws/fa.txt"));
}

TEST(Glob, CaseSensitive) { EXPECT_FALSE(matches("/README", "/ws/readme")); }

}  // namespace
}  // namespace holdfast::gatekeeper
