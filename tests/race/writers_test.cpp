// The directory, old-style and symlink writers, one save each on real
// files, looked at after every step: each leaves exactly the gap it claims
// (and the whole new document once it is done).
#include "race-harness/writers.hpp"

#include <fcntl.h>
#include <fnmatch.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "race-harness/documents.hpp"
#include "race-harness/spec.hpp"
#include "settings/snapshot.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::race {
namespace {

namespace fs = std::filesystem;
using std::chrono::microseconds;
using testing::TempDir;

// What one look at the settings path found.
struct Look {
  bool directory = false;  // the settings directory exists
  bool entry = false;      // NAME exists as a directory entry (lstat)
  bool symlink = false;    // ... and is a symlink
  NaiveReading::Kind reading = NaiveReading::Kind::missing;
  std::uint64_t generation = 0;
};

Look look(const fs::path& target) {
  Look l;
  struct stat st {};
  l.directory = ::stat(target.parent_path().c_str(), &st) == 0;
  l.entry = ::lstat(target.c_str(), &st) == 0;
  l.symlink = l.entry && S_ISLNK(st.st_mode);
  const NaiveReading reading = read_naively(target);
  l.reading = reading.kind;
  l.generation = reading.generation;
  return l;
}

// One save of `writer`, with a look at the target after every step.
std::map<std::string, Look> save_and_look(const std::string& writer, const fs::path& target,
                                          std::uint64_t generation, microseconds pause = {}) {
  std::map<std::string, Look> looks;
  std::vector<std::string> order;
  save_once(writer, target, generation, pause, [&](std::string_view step) {
    order.emplace_back(step);
    looks[std::string(step)] = look(target);
  });
  EXPECT_EQ(order, writer_steps(writer)) << writer << " reported other steps than it declares";
  return looks;
}

class WritersTest : public ::testing::Test {
 protected:
  WritersTest() : config_(dir_ / "config"), target_(config_ / "settings.json") {
    fs::create_directories(config_);
  }
  TempDir dir_{testing::memory_backed_base()};
  fs::path config_;
  fs::path target_;
};

TEST_F(WritersTest, DirSwapLeavesNoDirectoryBetweenItsRenames) {
  create_initial_target({"dir-swap"}, target_, policy_text(1));
  const fs::path next = fs::path(config_.string() + ".next") / "settings.json";
  const fs::path previous = fs::path(config_.string() + ".prev") / "settings.json";
  std::map<std::string, Look> looks;
  std::uint64_t next_generation = 0;
  std::uint64_t previous_generation = 0;
  save_once("dir-swap", target_, 2, {}, [&](std::string_view step) {
    looks[std::string(step)] = look(target_);
    if (step == "build_next_dir") next_generation = read_naively(next).generation;
    if (step == "rename_dir_away") previous_generation = read_naively(previous).generation;
  });
  // The new directory is complete before anything moves.
  EXPECT_TRUE(looks.at("build_next_dir").directory);
  EXPECT_EQ(looks.at("build_next_dir").generation, 1u);
  EXPECT_EQ(next_generation, 2u);
  // The gap: no directory at all, the old one under DIR.prev.
  EXPECT_FALSE(looks.at("rename_dir_away").directory);
  EXPECT_EQ(looks.at("rename_dir_away").reading, NaiveReading::Kind::missing);
  EXPECT_EQ(previous_generation, 1u);
  EXPECT_EQ(looks.at("rename_dir_into_place").generation, 2u);
  EXPECT_EQ(looks.at("remove_previous_dir").generation, 2u);
  EXPECT_FALSE(fs::exists(config_.string() + ".prev"));
  EXPECT_FALSE(fs::exists(config_.string() + ".next"));
}

TEST_F(WritersTest, DirSwapHoldsTheDirectoryAwayForItsPause) {
  create_initial_target({"dir-swap"}, target_, policy_text(1));
  std::chrono::steady_clock::time_point away;
  std::chrono::steady_clock::duration gap{};
  save_once("dir-swap", target_, 2, microseconds(20'000), [&](std::string_view step) {
    if (step == "rename_dir_away") away = std::chrono::steady_clock::now();
    if (step == "rename_dir_into_place") gap = std::chrono::steady_clock::now() - away;
  });
  // nanosleep sleeps at least as long as asked: a lower bound, not a race.
  EXPECT_GE(gap, microseconds(20'000));
}

TEST_F(WritersTest, DirExchangeNeverLeavesThePathButEmptiesTheOldDirectory) {
  create_initial_target({"dir-exchange"}, target_, policy_text(1));
  // A reader that holds the directory it found, as an inotify watch or a
  // directory descriptor does.
  const int old_directory = ::open(config_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(old_directory, 0);
  const auto looks = save_and_look("dir-exchange", target_, 2);
  EXPECT_EQ(looks.at("build_next_dir").generation, 1u);
  EXPECT_EQ(looks.at("exchange_dirs").generation, 2u);
  EXPECT_EQ(looks.at("remove_previous_dir").generation, 2u);
  for (const auto& [step, l] : looks) EXPECT_EQ(l.reading, NaiveReading::Kind::strict) << step;
  struct stat st {};
  const int found = ::fstatat(old_directory, "settings.json", &st, 0);
  const int error = errno;
  EXPECT_NE(found, 0);
  EXPECT_EQ(error, ENOENT);  // the old directory lost its file
  ASSERT_EQ(::fstat(old_directory, &st), 0);
  EXPECT_EQ(st.st_nlink, 0u);  // and was removed
  ::close(old_directory);
  EXPECT_FALSE(fs::exists(config_.string() + ".incoming"));
}

// True when a name matches one of the snapshot reader's writer patterns.
bool on_an_evidence_list(const std::string& target_name, const std::string& name) {
  for (std::string pattern : settings::SnapshotOptions::default_evidence_patterns()) {
    if (const auto at = pattern.find("{}"); at != std::string::npos) {
      pattern.replace(at, 2, target_name);
    }
    if (::fnmatch(pattern.c_str(), name.c_str(), FNM_PERIOD) == 0) return true;
  }
  return false;
}

TEST_F(WritersTest, RenamePrevCopiesThenLeavesNoFileForItsPause) {
  nlohmann::json live = policy_document(1);
  live["editor"] = {{"fontSize", 14}};  // the copy must keep what it did not change
  testing::write_file(target_, live.dump(2));
  std::chrono::steady_clock::time_point away;
  std::chrono::steady_clock::duration gap{};
  std::map<std::string, Look> looks;
  save_once("rename-prev", target_, 2, pause_of({"rename-prev", 0, std::nullopt}),
            [&](std::string_view step) {
              looks[std::string(step)] = look(target_);
              if (step == "rename_to_backup") away = std::chrono::steady_clock::now();
              if (step == "rename_into_place") gap = std::chrono::steady_clock::now() - away;
            });
  EXPECT_EQ(looks.at("write_temp").generation, 1u);
  EXPECT_FALSE(looks.at("rename_to_backup").entry);
  EXPECT_GE(gap, microseconds(100'000));  // the default pause, held with no file
  const auto saved = nlohmann::json::parse(testing::read_file(target_));
  EXPECT_EQ(saved["raceHarness"]["generation"], 2);
  EXPECT_EQ(saved["editor"]["fontSize"], 14);
  EXPECT_EQ(read_naively(fs::path(target_.string() + ".prev")).generation, 1u);
  // The backup and the temp are named outside every list of writer names
  // the reader knows: no name tells it a write is in progress.
  EXPECT_FALSE(on_an_evidence_list("settings.json", "settings.json.prev"));
  EXPECT_FALSE(on_an_evidence_list("settings.json", "settings.json.next"));
  EXPECT_TRUE(on_an_evidence_list("settings.json", "settings.json.orig"));  // the matcher works
}

TEST_F(WritersTest, SymlinkFlipRemovesTheLinkThenPointsItAtANewTarget) {
  create_initial_target({"symlink-flip"}, target_, policy_text(1));
  ASSERT_TRUE(fs::is_symlink(target_));
  const auto looks = save_and_look("symlink-flip", target_, 2);
  EXPECT_TRUE(looks.at("write_target").symlink);
  EXPECT_EQ(looks.at("write_target").generation, 1u);
  EXPECT_FALSE(looks.at("remove_link").entry);  // the gap: no link at all
  EXPECT_TRUE(looks.at("remove_link").directory);
  EXPECT_TRUE(looks.at("create_link").symlink);
  EXPECT_EQ(looks.at("create_link").generation, 2u);
  EXPECT_EQ(fs::read_symlink(target_), fs::path(".race-store/settings-2.json"));
  // The old target is gone: the store holds the current one only.
  std::vector<std::string> store;
  for (const auto& e : fs::directory_iterator(config_ / ".race-store")) {
    store.push_back(e.path().filename().string());
  }
  EXPECT_EQ(store, std::vector<std::string>{"settings-2.json"});
}

TEST_F(WritersTest, SymlinkDangleLeavesTheLinkPointingAtNothing) {
  create_initial_target({"symlink-dangle"}, target_, policy_text(1));
  const fs::path link = fs::read_symlink(target_);
  const auto looks = save_and_look("symlink-dangle", target_, 2);
  EXPECT_EQ(looks.at("write_temp").generation, 1u);
  // The gap: the link is there, its target is not.
  EXPECT_TRUE(looks.at("remove_target").symlink);
  EXPECT_EQ(looks.at("remove_target").reading, NaiveReading::Kind::missing);
  EXPECT_EQ(looks.at("rename_into_place").generation, 2u);
  EXPECT_EQ(fs::read_symlink(target_), link);  // the same link throughout
}

TEST_F(WritersTest, SymlinkDangleMakesALinkAgainWithoutAGapWhenAFileReplacedIt) {
  testing::write_file(target_, policy_text(1));  // another writer left a regular file
  std::map<std::string, Look> looks;
  save_once("symlink-dangle", target_, 2, {}, [&](std::string_view) {
    if (looks.empty()) looks["first step"] = look(target_);
  });
  EXPECT_TRUE(looks.at("first step").symlink);
  EXPECT_EQ(looks.at("first step").reading, NaiveReading::Kind::strict);
  EXPECT_TRUE(fs::is_symlink(target_));
  EXPECT_EQ(read_naively(target_).generation, 2u);
}

TEST_F(WritersTest, InitialTargetIsALinkOnlyForSymlinkWriters) {
  create_initial_target({"holdfast", "dir-swap"}, target_, policy_text(1));
  EXPECT_FALSE(fs::is_symlink(target_));
  EXPECT_EQ(read_naively(target_).generation, 1u);
  fs::remove(target_);
  create_initial_target({"holdfast", "symlink-dangle"}, target_, policy_text(1));
  EXPECT_TRUE(fs::is_symlink(target_));
  EXPECT_EQ(read_naively(target_).generation, 1u);
}

TEST_F(WritersTest, SameContentReplacesTheFileWithTheSameBytesAndNeverLeavesAGap) {
  create_initial_target({"same-content"}, target_, policy_text(7));
  struct stat before {};
  ASSERT_EQ(::stat(target_.c_str(), &before), 0);
  const auto looks = save_and_look("same-content", target_, 8);
  for (const auto& [step, l] : looks) {
    EXPECT_EQ(l.reading, NaiveReading::Kind::strict) << step;
    EXPECT_EQ(l.generation, 7u) << step;  // the bytes in place, not a new generation
  }
  struct stat after {};
  ASSERT_EQ(::stat(target_.c_str(), &after), 0);
  EXPECT_NE(before.st_ino, after.st_ino);  // a new file, as an autosave makes
  EXPECT_EQ(testing::names_starting_with(config_, "."), std::vector<std::string>{});
}

TEST_F(WritersTest, ChurnTouchesOnlyItsOwnNamesBesideTheSettings) {
  create_initial_target({"churn"}, target_, policy_text(1));
  const auto looks = save_and_look("churn", target_, 2);
  EXPECT_EQ(looks.at("churn").generation, 1u);
  EXPECT_EQ(testing::names_starting_with(config_, ".race-churn"), std::vector<std::string>{});
  EXPECT_EQ(testing::names_starting_with(dir_.path(), ".race-churn"), std::vector<std::string>{});
}

TEST_F(WritersTest, WorkspaceWritersLeaveTheirGapsAndSaveTheDenyAlone) {
  for (const char* writer :
       {"workspace-rename-prev", "workspace-delete-recreate", "workspace-dir-swap"}) {
    fs::remove_all(config_);
    fs::create_directories(config_);
    testing::write_file(target_, workspace_text(1));
    const auto looks = save_and_look(writer, target_, 2);
    const std::string gap_step = std::string(writer) == "workspace-delete-recreate" ? "remove"
                                 : std::string(writer) == "workspace-dir-swap" ? "rename_dir_away"
                                                                               : "rename_to_backup";
    EXPECT_EQ(looks.at(gap_step).reading, NaiveReading::Kind::missing) << writer;
    const NaiveReading after = read_naively(target_);
    EXPECT_TRUE(after.denies) << writer;
    EXPECT_EQ(after.generation, 2u) << writer;
  }
}

TEST_F(WritersTest, StateLossRemovesTheStateDirectoryBeforeItsSave) {
  const fs::path state = dir_ / "state";
  fs::create_directories(state / "presence");
  ::setenv("HOLDFAST_STATE_DIR", state.c_str(), 1);
  create_initial_target({"state-loss"}, target_, policy_text(1));
  bool state_gone = false;
  save_once("state-loss", target_, 2, {}, [&](std::string_view step) {
    if (step == "remove_state_dir") state_gone = !fs::exists(state);
  });
  ::unsetenv("HOLDFAST_STATE_DIR");
  EXPECT_TRUE(state_gone);
  EXPECT_EQ(read_naively(target_).generation, 2u);
}

}  // namespace
}  // namespace holdfast::race
