// Presence memory: once the snapshot reader has read a scope file, that
// file going missing stops the reading (after waiting for it to come back)
// instead of reading as "no settings", for every reader whatever its state
// directory; only an operator's confirmation (forget) makes it absent again.
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

TEST_F(PresenceTest, WorkspaceFilesAreRememberedForTheirDenyRules) {
  // A workspace file carries deny and ask rules: once read, its going
  // missing is a save in progress or an accident, never "no rules".
  paths_.workspace = dir_ / "work";
  const fs::path file = *paths_.file(Scope::workspace);
  fs::create_directories(file.parent_path());
  write_file(file, R"j({"permissions": {"deny": ["Read(/x)"]}})j");
  (void)take_snapshot(paths_, options_);
  EXPECT_TRUE(PresenceMemory(paths_.state_dir).remembers(file));
  EXPECT_TRUE(fs::exists(PresenceMemory::marker_path(file)));
  fs::remove(file);
  try {
    (void)take_snapshot(paths_, options_);
    ADD_FAILURE() << "a remembered workspace file that went missing read as absent";
  } catch (const SnapshotError& e) {
    EXPECT_NE(std::string(e.what()).find("holdfast settings forget --scope workspace --workspace " +
                                         paths_.workspace->string()),
              std::string::npos)
        << e.what();
  }
  Store store(paths_, store_options());
  EXPECT_TRUE(store.forget(Scope::workspace, false));
  EXPECT_FALSE(take_snapshot(paths_, options_).scope(Scope::workspace)->exists);
}

TEST_F(PresenceTest, AWorkspaceMarkerIsNeverWrittenThroughASymlink) {
  // The workspace is hostile: a .holdfast that is a symlink to a directory
  // of the reader's must not make the reader write there.
  paths_.workspace = dir_ / "work";
  const fs::path elsewhere = dir_ / "elsewhere";
  fs::create_directories(elsewhere);
  fs::create_directories(*paths_.workspace);
  fs::create_directory_symlink(elsewhere, *paths_.workspace / ".holdfast");
  write_file(elsewhere / "settings.json", R"j({"permissions": {"deny": ["Read(/x)"]}})j");
  (void)take_snapshot(paths_, options_);
  EXPECT_FALSE(fs::exists(elsewhere / ".settings.json.holdfast-seen"));
  // The state directory still remembers it.
  EXPECT_TRUE(PresenceMemory(paths_.state_dir).remembers(*paths_.file(Scope::workspace)));
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

TEST_F(PresenceTest, TheMarkerBesideTheFileRemembersForEveryReader) {
  // Read once by a reader with one state directory ...
  write_file(user_file(), kPolicy);
  (void)take_snapshot(paths_, options_);
  const fs::path marker = PresenceMemory::marker_path(user_file());
  EXPECT_EQ(marker, paths_.config_dir / ".settings.json.holdfast-seen");
  struct stat st {};
  ASSERT_EQ(::lstat(marker.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  fs::remove(user_file());
  // ... then judged by readers with another state directory, with none,
  // and with the first one gone: every one takes the file for missing.
  for (const fs::path& state : {dir_ / "other-state", fs::path(), fs::path("lost")}) {
    ScopePaths reader = paths_;
    reader.state_dir = state == "lost" ? paths_.state_dir : state;
    if (state == "lost") fs::remove_all(paths_.state_dir);
    EXPECT_THROW((void)take_snapshot(reader, options_), SnapshotError) << state;
  }
}

TEST_F(PresenceTest, ASaveThroughHoldfastLeavesTheMarker) {
  Store store(paths_, store_options());
  store.set(Scope::user, {"a"}, 1);
  EXPECT_TRUE(fs::exists(PresenceMemory::marker_path(user_file())));
  EXPECT_TRUE(PresenceMemory(paths_.state_dir).remembers(user_file()));
}

TEST_F(PresenceTest, NoMarkerInADirectoryOfAnotherUser) {
  // A system directory that only root may write, read by a user (here: a
  // directory of uid 65534 read by root): the state directory remembers,
  // the directory is left alone.
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a directory another user owns";
  write_file(user_file(), kPolicy);
  ASSERT_EQ(::chown(paths_.config_dir.c_str(), 65534, 65534), 0);
  options_.strict_modes = false;
  (void)take_snapshot(paths_, options_);
  EXPECT_FALSE(fs::exists(PresenceMemory::marker_path(user_file())));
  EXPECT_TRUE(PresenceMemory(paths_.state_dir).remembers(user_file()));
}

}  // namespace
}  // namespace holdfast::settings
