// The watcher sees every kind of replacement and ends a burst on the final
// state.
#include "settings/watcher.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <thread>

#include "settings/atomic_writer.hpp"
#include "settings/key_path.hpp"
#include "settings/store.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

using holdfast::testing::TempDir;
using holdfast::testing::write_file;

// Collects the watcher's deliveries and lets the test wait for one that
// satisfies a condition. The deadline only guards against a hang.
class Recorder {
 public:
  void record(const SettingsChange& change) {
    const std::lock_guard lock(mutex_);
    changes_.push_back(change);
    arrived_.notify_all();
  }
  void error(const std::exception& e) {
    const std::lock_guard lock(mutex_);
    errors_.emplace_back(e.what());
  }
  bool wait_for(const std::function<bool(const SettingsChange&)>& predicate) {
    std::unique_lock lock(mutex_);
    return arrived_.wait_for(lock, std::chrono::seconds(30),
                             [&] { return !changes_.empty() && predicate(changes_.back()); });
  }
  std::vector<SettingsChange> changes() {
    const std::lock_guard lock(mutex_);
    return changes_;
  }
  std::vector<std::string> errors() {
    const std::lock_guard lock(mutex_);
    return errors_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<SettingsChange> changes_;
  std::vector<std::string> errors_;
};

const ScopeFile* user_of(const SettingsChange& change) {
  return change.snapshot.scope(Scope::user);
}

class WatcherTest : public ::testing::Test {
 protected:
  WatcherTest() {
    paths_.system_dir = dir_ / "etc";
    paths_.config_dir = dir_ / "config";
    std::filesystem::create_directories(paths_.system_dir);
    std::filesystem::create_directories(paths_.config_dir);
  }
  std::unique_ptr<Watcher> start() {
    auto watcher = std::make_unique<Watcher>(
        paths_, SnapshotOptions{}, [this](const SettingsChange& c) { recorder_.record(c); },
        [this](const std::exception& e) { recorder_.error(e); });
    EXPECT_TRUE(recorder_.wait_for([](const SettingsChange& c) { return c.initial; }));
    return watcher;
  }
  std::filesystem::path user_file() const { return paths_.config_dir / "settings.json"; }

  TempDir dir_;
  ScopePaths paths_;
  Recorder recorder_;
};

TEST_F(WatcherTest, BurstOfSavesEndsOnTheFinalStateWithMonotonicRevisions) {
  auto watcher = start();
  Store store(paths_);
  constexpr int kSaves = 50;
  for (int i = 0; i < kSaves; ++i) store.set(Scope::user, {"counter"}, i);
  ASSERT_TRUE(recorder_.wait_for([](const SettingsChange& c) {
    return user_of(c)->exists && user_of(c)->revision == kSaves;
  }));
  watcher->stop();
  const auto changes = recorder_.changes();
  std::uint64_t previous = 0;
  for (const auto& change : changes) {
    const std::uint64_t revision = user_of(change)->revision;
    EXPECT_GE(revision, previous);
    previous = revision;
  }
  EXPECT_EQ(changes.back().snapshot.effective.value["counter"], kSaves - 1);
  EXPECT_EQ(changes.back().changed_keys, std::vector<std::string>{"counter"});
}

TEST_F(WatcherTest, AThousandQuickSavesAreReportedAlongTheWayWithoutErrors) {
  // Saves as fast as the store can make them, from another thread. The
  // watcher keeps reading consistent snapshots throughout (one scope
  // changing is never "kept changing", which used to silence it for most
  // of such a burst) and ends on the last one.
  auto watcher = start();
  constexpr int kSaves = 1000;
  std::thread saver([&] {
    StoreOptions options;
    options.durable = false;  // the pace of a busy GUI, not of the disk
    Store store(paths_, options);
    for (int i = 0; i < kSaves; ++i) store.set(Scope::user, {"counter"}, i);
  });
  saver.join();
  ASSERT_TRUE(recorder_.wait_for([](const SettingsChange& c) {
    return user_of(c)->exists && user_of(c)->revision == kSaves;
  }));
  watcher->stop();
  EXPECT_EQ(recorder_.errors(), std::vector<std::string>{});
  const auto changes = recorder_.changes();
  int from_the_middle = 0;
  for (const auto& change : changes) {
    const auto* user = user_of(change);
    if (user->exists && user->revision > 0 && user->revision < kSaves) ++from_the_middle;
  }
  std::printf("%d saves: %zu deliveries, %d from the middle of the burst\n", kSaves, changes.size(),
              from_the_middle);
}

TEST_F(WatcherTest, SeesRenameOver) {
  write_file(user_file(), R"({"a": 1})");
  auto watcher = start();
  write_file_atomically(user_file(), R"({"a": 2})");
  EXPECT_TRUE(recorder_.wait_for(
      [](const SettingsChange& c) { return c.snapshot.effective.value.value("a", 0) == 2; }));
}

TEST_F(WatcherTest, SeesDeleteAndRecreate) {
  write_file(user_file(), R"({"a": 1})");
  auto watcher = start();
  // Deleted on purpose, the one way that makes a file holdfast has seen
  // absent (a plain rm is "missing": settings/presence.hpp).
  Store(paths_).forget(Scope::user, /*remove_file=*/true);
  EXPECT_TRUE(recorder_.wait_for([](const SettingsChange& c) { return !user_of(c)->exists; }));
  write_file(user_file(), R"({"a": 3})");
  EXPECT_TRUE(recorder_.wait_for(
      [](const SettingsChange& c) { return c.snapshot.effective.value.value("a", 0) == 3; }));
}

TEST_F(WatcherTest, SeesADirectoryCreatedLater) {
  paths_.config_dir = dir_ / "not-yet" / "holdfast";
  auto watcher = start();
  std::filesystem::create_directories(paths_.config_dir);
  write_file_atomically(user_file(), R"({"late": true})");
  EXPECT_TRUE(recorder_.wait_for(
      [](const SettingsChange& c) { return c.snapshot.effective.value.value("late", false); }));
  EXPECT_EQ(recorder_.changes().back().changed_scopes, std::vector<Scope>{Scope::user});
}

TEST_F(WatcherTest, ChangedKeysNamesAddedRemovedAndChangedValues) {
  const auto keys = changed_keys(nlohmann::json{{"a", 1}, {"b", {{"c", 2}}}, {"d", 4}},
                                 nlohmann::json{{"a", 1}, {"b", {{"c", 3}}}, {"e", 5}});
  EXPECT_EQ(keys, (std::vector<std::string>{"b.c", "d", "e"}));
}

}  // namespace
}  // namespace holdfast::settings
