// The check of a built sandbox, pointed at this process's own mount tree:
// a mount root with the right identity passes; a plain directory with the
// right name, or another file, does not.
#include "launcher/run/mount_check.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/support/temp_dir.hpp"

namespace holdfast::launcher {
namespace {

namespace fs = std::filesystem;
using Type = sandbox::MountCheck::Type;

sandbox::FileId id_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return {st.st_dev, st.st_ino};
}

TEST(CheckSandboxMounts, AMountRootWithTheCheckedIdentityPasses) {
  const std::map<std::string, sandbox::FileId> identities = {{"/", id_of("/")}};
  EXPECT_EQ(check_sandbox_mounts(::getpid(), {{"/", Type::bind, false}}, identities), "");
  EXPECT_NE(check_sandbox_mounts(::getpid(), {{"/", Type::bind, false}}, {{"/", {1, 2}}}), "");
  EXPECT_NE(check_sandbox_mounts(::getpid(), {{"/", Type::tmpfs, false}}, identities), "")
      << "/ is no tmpfs here";
}

TEST(CheckSandboxMounts, ADirectoryThatIsNoMountOrASymlinkFails) {
  holdfast::testing::TempDir dir("/var/tmp");
  fs::create_directories(dir / "ws");
  fs::create_directory_symlink("ws", dir / "link");
  const std::string ws = fs::canonical(dir / "ws").string();
  const std::string link = fs::canonical(dir.path()).string() + "/link";
  const std::map<std::string, sandbox::FileId> identities = {{ws, id_of(ws)}, {link, id_of(ws)}};
  EXPECT_NE(check_sandbox_mounts(::getpid(), {{ws, Type::bind, false}}, identities)
                .find("no mount is there"),
            std::string::npos);
  EXPECT_NE(
      check_sandbox_mounts(::getpid(), {{link, Type::bind, false}}, identities).find("symlink"),
      std::string::npos);
}

}  // namespace
}  // namespace holdfast::launcher
