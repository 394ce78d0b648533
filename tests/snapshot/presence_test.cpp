// Presence memory: once the snapshot reader has read an operator scope
// file, that file going missing stops the reading (after waiting for it to
// come back) instead of reading as "no settings"; only an operator's
// confirmation (forget) makes it absent again.
#include "settings/presence.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thread>

#include "settings/errors.hpp"
#include "settings/snapshot.hpp"
#include "settings/store.hpp"
#include "tests/snapshot/policy_document.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

namespace fs = std::filesystem;
using holdfast::testing::kPolicy;
using holdfast::testing::TempDir;
using holdfast::testing::write_file;

class PresenceTest : public ::testing::Test {
 protected:
  PresenceTest() {
    paths_.system_dir = dir_ / "etc";
    paths_.config_dir = dir_ / "config";
    paths_.state_dir = dir_ / "state";
    fs::create_directories(paths_.system_dir);
    fs::create_directories(paths_.config_dir);
    options_.settle_window = std::chrono::milliseconds(20);
    options_.max_wait = std::chrono::milliseconds(200);
    // Every directory here was just made; nothing is "recently changed"
    // unless a test says so.
    options_.evidence_age = std::chrono::milliseconds(0);
  }
  fs::path user_file() const { return *paths_.file(Scope::user); }
  StoreOptions store_options() const {
    StoreOptions options;
    options.read = options_;
    return options;
  }

  TempDir dir_;
  ScopePaths paths_;
  SnapshotOptions options_;
};

TEST_F(PresenceTest, ASnapshotRemembersEveryOperatorFileItRead) {
  write_file(user_file(), kPolicy);
  const PresenceMemory memory(paths_.state_dir);
  EXPECT_FALSE(memory.remembers(user_file()));
  (void)take_snapshot(paths_, options_);
  EXPECT_TRUE(memory.remembers(user_file()));
  EXPECT_FALSE(memory.remembers(*paths_.file(Scope::system)));  // absent: nothing to remember
  // The record is holdfast's own, private state.
  struct stat st {};
  ASSERT_EQ(::stat(memory.record_path(user_file()).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(memory.record_path(user_file()).parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(PresenceTest, ARememberedFileThatGoesMissingIsRefusedNotAbsent) {
  write_file(user_file(), kPolicy);
  (void)take_snapshot(paths_, options_);
  fs::remove(user_file());
  try {
    const Snapshot snapshot = take_snapshot(paths_, options_);
    ADD_FAILURE() << "the reading went on without the user policy: user file exists="
                  << snapshot.scope(Scope::user)->exists;
  } catch (const SnapshotError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(user_file().string() + " (the user settings) is missing"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("holdfast settings forget --scope user"), std::string::npos) << what;
  }
}

TEST_F(PresenceTest, AWholeMissingDirectoryIsMissingToo) {
  write_file(user_file(), kPolicy);
  (void)take_snapshot(paths_, options_);
  fs::rename(paths_.config_dir, dir_ / "config.old");  // a directory swap, caught half-way
  EXPECT_THROW((void)take_snapshot(paths_, options_), SnapshotError);
}

TEST_F(PresenceTest, ADanglingSymlinkIsMissingNotAbsent) {
  const fs::path real = dir_ / "real.json";
  write_file(real, kPolicy);
  fs::create_symlink(real, user_file());
  (void)take_snapshot(paths_, options_);
  fs::remove(real);  // the link now points nowhere
  EXPECT_THROW((void)take_snapshot(paths_, options_), SnapshotError);
}

// Whether this process holds an inotify instance: the reader creates one
// only once it has found a file missing and starts waiting for it.
bool reader_is_watching() {
  for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    if (fs::read_symlink(entry.path(), ec).string() == "anon_inode:inotify") return true;
  }
  return false;
}

TEST_F(PresenceTest, TheReaderWaitsForARememberedFileToComeBack) {
  write_file(user_file(), kPolicy);
  (void)take_snapshot(paths_, options_);
  const fs::path away = paths_.config_dir / "settings.json.prev";  // a name on no list
  fs::rename(user_file(), away);
  options_.max_wait = std::chrono::seconds(60);  // a bound, not a pace: the file comes back
  std::thread restorer([&] {
    while (!reader_is_watching()) std::this_thread::yield();
    fs::rename(away, user_file());
  });
  const Snapshot snapshot = take_snapshot(paths_, options_);
  restorer.join();
  EXPECT_EQ(snapshot.settling[1], Settling::waited_for_return);
  EXPECT_TRUE(snapshot.scope(Scope::user)->exists);
  EXPECT_EQ(snapshot.effective.value["tools"]["executionSandbox"]["filesystem"], "read-only");
}

TEST_F(PresenceTest, ForgetMakesADeliberateRemovalAbsent) {
  write_file(user_file(), kPolicy);
  (void)take_snapshot(paths_, options_);
  Store store(paths_, store_options());
  // A file that is still there is not forgotten by accident.
  EXPECT_THROW(store.forget(Scope::user, /*remove_file=*/false), UsageError);
  EXPECT_TRUE(store.forget(Scope::user, /*remove_file=*/true));
  EXPECT_FALSE(fs::exists(user_file()));
  const Snapshot snapshot = take_snapshot(paths_, options_);
  EXPECT_FALSE(snapshot.scope(Scope::user)->exists);
  EXPECT_EQ(snapshot.effective.value, nlohmann::json::object());
}

TEST_F(PresenceTest, ForgetAfterTheFileIsAlreadyGone) {
  write_file(user_file(), kPolicy);
  (void)take_snapshot(paths_, options_);
  fs::remove(user_file());
  Store store(paths_, store_options());
  EXPECT_TRUE(store.forget(Scope::user, /*remove_file=*/false));
  EXPECT_FALSE(store.forget(Scope::user, /*remove_file=*/false));  // nothing left to forget
  EXPECT_FALSE(take_snapshot(paths_, options_).scope(Scope::user)->exists);
}

TEST_F(PresenceTest, WorkspaceFilesAreNeverRemembered) {
  paths_.workspace = dir_ / "work";
  write_file(*paths_.file(Scope::workspace), R"j({"permissions": {"deny": ["Read(/x)"]}})j");
  (void)take_snapshot(paths_, options_);
  EXPECT_FALSE(PresenceMemory(paths_.state_dir).remembers(*paths_.file(Scope::workspace)));
  Store store(paths_, store_options());
  EXPECT_THROW(store.forget(Scope::workspace, false), UsageError);
}

TEST_F(PresenceTest, ASaveWaitsForARememberedFileInsteadOfStartingAnEmptyOne) {
  write_file(user_file(), R"({"$revision": 4, "keep": "me"})");
  (void)take_snapshot(paths_, options_);
  fs::remove(user_file());
  Store store(paths_, store_options());
  // Today the file is simply gone: the save refuses rather than write a
  // document that holds nothing but this change.
  EXPECT_THROW(store.set(Scope::user, {"other"}, 1), SnapshotError);
  EXPECT_FALSE(fs::exists(user_file()));
}

TEST_F(PresenceTest, WithoutAStateDirectoryNothingIsRemembered) {
  paths_.state_dir.clear();
  write_file(user_file(), kPolicy);
  (void)take_snapshot(paths_, options_);
  fs::remove(user_file());
  EXPECT_FALSE(take_snapshot(paths_, options_).scope(Scope::user)->exists);
}

}  // namespace
}  // namespace holdfast::settings
