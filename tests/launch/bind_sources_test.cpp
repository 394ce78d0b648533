// Bind sources are opened once, without following symlinks, and must be the
// file the host facts recorded.
#include "launcher/run/bind_sources.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "launcher/sandbox/refusal.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::launcher {
namespace {

namespace fs = std::filesystem;

std::string changed_rule(const std::function<void()>& open) {
  try {
    open();
  } catch (const sandbox::Refused& refused) {
    return refused.refusals().at(0).rule;
  }
  return "(opened)";
}

TEST(BindSources, OpensTheFileTheFactsRecorded) {
  holdfast::testing::TempDir dir;
  fs::create_directories(dir / "ws");
  std::map<std::string, sandbox::FileId> identities;
  const std::string ws = fs::canonical(dir / "ws").string();
  sandbox::probe_path(ws, &identities);
  const auto sources = open_bind_sources({ws}, identities);
  ASSERT_EQ(sources.fds.size(), 1u);
  struct stat st {};
  ASSERT_EQ(::fstat(sources.by_path.at(ws), &st), 0);
  EXPECT_EQ((sandbox::FileId{st.st_dev, st.st_ino}), identities.at(ws));
}

TEST(BindSources, ADirectorySwappedForASymlinkOrAnotherDirectoryIsRefused) {
  holdfast::testing::TempDir dir;
  fs::create_directories(dir / "ws");
  fs::create_directories(dir / "home");
  std::map<std::string, sandbox::FileId> identities;
  const std::string ws = fs::canonical(dir / "ws").string();
  sandbox::probe_path(ws, &identities);
  // After the look: the workspace becomes a symlink to $HOME.
  fs::rename(ws, ws + ".moved");
  fs::create_directory_symlink("home", ws);
  EXPECT_EQ(changed_rule([&] { open_bind_sources({ws}, identities); }),
            "path-changed-during-launch");
  // Or another directory under the same name.
  fs::remove(ws);
  fs::create_directory(ws);
  EXPECT_EQ(changed_rule([&] { open_bind_sources({ws}, identities); }),
            "path-changed-during-launch");
  // A symlink further up the path is refused too.
  fs::rename(dir.path(), dir.path().string() + ".real");
  fs::create_directory_symlink(dir.path().string() + ".real", dir.path());
  EXPECT_EQ(changed_rule([&] { open_bind_source(ws + ".moved", identities.at(ws)); }),
            "path-changed-during-launch");
  fs::remove(dir.path());
  fs::rename(dir.path().string() + ".real", dir.path());
}

}  // namespace
}  // namespace holdfast::launcher
