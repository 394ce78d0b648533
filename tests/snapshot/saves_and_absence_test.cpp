// Readers while the operator saves, and absence that every reader judges
// the same way. Each test runs real writers (forked processes doing what
// editors, GUIs and configuration tools do) against real readers (the
// holdfast binary, or the snapshot reader in this process) with real
// inotify, and counts: launches and checks refused, answers that lost a
// deny, readings that took a vanished policy for "no settings". The aims
// are counts, never times.
//
//  1. ordinary saves (same or new content, 10 Hz and 1 kHz) during
//     launches: at most 1 refusal in 100 launches, never a launch without
//     the policy;
//  2. files churning beside every watched directory (the settings
//     directory, its parent holding an absent system directory, a workspace
//     root without .holdfast/): no reading refused;
//  3. a workspace-scope deny under three writers that leave gaps: never
//     allowed;
//  4. a remembered file while the state directory is removed, and readers
//     with different state directories: never taken for absent, and every
//     reader gives the same verdict.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <string>

#include "settings/errors.hpp"
#include "settings/key_path.hpp"
#include "settings/presence.hpp"
#include "settings/snapshot.hpp"
#include "tests/snapshot/writer_steps.hpp"
#include "tests/support/files.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

namespace fs = std::filesystem;
using holdfast::testing::Child;
using holdfast::testing::CommandResult;
using holdfast::testing::still_running;
using holdfast::testing::TempDir;
using holdfast::testing::write_file;
using holdfast::testing::write_new;

const std::string kDenyingPolicyA =
    R"j({"tools": {"executionSandbox": {"filesystem": "read-only", "network": "closed"}},)j"
    R"j( "permissions": {"deny": ["Bash(rm:*)"]}, "n": "a"})j";
const std::string kDenyingPolicyB =
    R"j({"tools": {"executionSandbox": {"filesystem": "read-only", "network": "closed"}},)j"
    R"j( "permissions": {"deny": ["Bash(rm:*)"]}, "n": "b"})j";
const std::string kWorkspaceDeny = R"j({"permissions": {"deny": ["Bash(rm:*)"]}})j";

// holdfast check's exit codes.
constexpr int kAllow = 0;
constexpr int kRefused = 1;
constexpr int kDeny = 11;
// holdfast run's refusal.
constexpr int kRunRefused = 125;

void pause_for(long nanoseconds) {
  const timespec t{nanoseconds / 1'000'000'000, nanoseconds % 1'000'000'000};
  ::nanosleep(&t, nullptr);  // a writer's own pace, never synchronisation
}

// A GUI's save: a new file written beside the target and renamed over it
// (the path always names a whole file). `alternate`: new content each save;
// otherwise the same bytes every time, as an autosave of unchanged settings.
[[noreturn]] void atomic_saver(const fs::path& target, long period_ns, bool alternate) {
  const fs::path temp = target.parent_path() / ("." + target.filename().string() + ".gui-save");
  for (std::uint64_t i = 0;; ++i) {
    write_new(temp, alternate && i % 2 == 1 ? kDenyingPolicyB : kDenyingPolicyA);
    if (::rename(temp.c_str(), target.c_str()) != 0) _exit(4);
    pause_for(period_ns);
  }
}

// The `.prev` writer: rename the live file to NAME.prev (a name on no
// list), pause, write the new file in place.
[[noreturn]] void prev_writer(const fs::path& target, const std::string& text, long pause_ns) {
  const fs::path prev = target.string() + ".prev";
  for (;;) {
    if (::rename(target.c_str(), prev.c_str()) != 0) _exit(4);
    pause_for(pause_ns);
    write_new(target, text);
    pause_for(pause_ns);
  }
}

// Delete, pause, recreate.
[[noreturn]] void delete_recreate_writer(const fs::path& target, const std::string& text,
                                         long pause_ns) {
  for (;;) {
    if (::unlink(target.c_str()) != 0) _exit(4);
    pause_for(pause_ns);
    write_new(target, text);
    pause_for(pause_ns);
  }
}

// A whole directory rendered anew and swapped in: DIR → DIR.old, pause,
// DIR.new → DIR.
[[noreturn]] void directory_swapper(const fs::path& directory, const std::string& name,
                                    const std::string& text, long pause_ns) {
  const fs::path fresh = directory.string() + ".new";
  const fs::path old = directory.string() + ".old";
  for (;;) {
    std::error_code ec;
    fs::remove_all(fresh, ec);
    if (::mkdir(fresh.c_str(), 0755) != 0) _exit(2);
    write_new(fresh / name, text);
    if (::rename(directory.c_str(), old.c_str()) != 0) _exit(4);
    pause_for(pause_ns);
    if (::rename(fresh.c_str(), directory.c_str()) != 0) _exit(5);
    fs::remove_all(old, ec);
    pause_for(pause_ns);
  }
}

// Files created, written and removed beside the settings, in each of
// `directories`, as a browser or an IDE keeps its own files there.
[[noreturn]] void churn(const std::vector<fs::path>& directories) {
  for (std::uint64_t i = 0;; ++i) {
    for (const auto& dir : directories) {
      const fs::path noise = dir / ("noise-" + std::to_string(i % 8));
      write_new(noise, "x");
      ::unlink(noise.c_str());
    }
    pause_for(500'000);
  }
}

// Removes a state directory over and over, as `rm -rf $XDG_STATE_HOME`
// or a tidy-up job would.
[[noreturn]] void state_remover(const fs::path& state_dir) {
  for (;;) {
    std::error_code ec;
    fs::remove_all(state_dir, ec);
    pause_for(1'000'000);
  }
}

class SavesAndAbsenceTest : public ::testing::Test {
 protected:
  SavesAndAbsenceTest() {
    // The workspace is on a real disk (the sandbox binds it); the settings
    // on tmpfs where there is one.
    paths_.system_dir = settings_dir_ / "etc";
    paths_.config_dir = settings_dir_ / "config";
    paths_.state_dir = settings_dir_ / "state";
    paths_.workspace = workspace_dir_ / "work";
    fs::create_directories(paths_.config_dir);
    fs::create_directories(*paths_.workspace);
    write_file(user_file(), kDenyingPolicyA);
  }

  fs::path user_file() const { return *paths_.file(Scope::user); }
  fs::path workspace_file() const { return *paths_.file(Scope::workspace); }

  std::map<std::string, std::string> environment(const fs::path& state_dir) const {
    auto env = holdfast::testing::current_environment();
    env["HOLDFAST_SYSTEM_DIR"] = paths_.system_dir.string();
    env["HOLDFAST_CONFIG_DIR"] = paths_.config_dir.string();
    env["HOLDFAST_STATE_DIR"] = state_dir.string();
    return env;
  }

  CommandResult check_rm(const fs::path& state_dir) const {
    const std::string work = paths_.workspace->string();
    return holdfast::testing::run_command(
        {HOLDFAST_BINARY, "check", "--json", "--workspace", work, "--cwd", work, "Bash", "rm x"},
        environment(state_dir));
  }

  // A launch whose command says from inside whether the policy is in force:
  // the workspace must not be writable (filesystem read-only).
  CommandResult launch() const {
    const std::string work = paths_.workspace->string();
    return holdfast::testing::run_command(
        {HOLDFAST_BINARY, "run", "--workspace", work, "--cwd", work, "--", "/bin/sh", "-c",
         "if touch " + work + "/written 2>/dev/null; then exit 1; fi"},
        environment(paths_.state_dir));
  }

  struct LaunchCounts {
    int launches = 0;
    int refused = 0;
    int without_policy = 0;
    int other = 0;
    std::string first_refusal;
  };

  LaunchCounts launch_against(pid_t writer, int n) {
    LaunchCounts c;
    for (int i = 0; i < n; ++i) {
      const CommandResult r = launch();
      ++c.launches;
      if (r.exit_code == kRunRefused) {
        if (c.refused++ == 0) c.first_refusal = r.err;
      } else if (r.exit_code == 1) {
        ++c.without_policy;
      } else if (r.exit_code != 0) {
        ++c.other;
        ADD_FAILURE() << "launch exited " << r.exit_code << ": " << r.err;
      }
    }
    EXPECT_TRUE(still_running(writer)) << "the writer died before the launches finished";
    std::printf("%d launches: %d refused, %d without the policy%s%s\n", c.launches, c.refused,
                c.without_policy, c.refused > 0 ? "; first refusal: " : "",
                c.first_refusal.c_str());
    return c;
  }

  struct CheckCounts {
    int checks = 0;
    int denied = 0;
    int allowed = 0;
    int refused = 0;
    std::string first_refusal;
  };

  CheckCounts check_against(pid_t writer, int n, const fs::path& state_dir) {
    CheckCounts c;
    for (int i = 0; i < n; ++i) {
      const CommandResult r = check_rm(state_dir);
      ++c.checks;
      if (r.exit_code == kDeny) {
        ++c.denied;
      } else if (r.exit_code == kRefused) {
        if (c.refused++ == 0) c.first_refusal = r.err;
      } else {
        ++c.allowed;  // allow or ask: the deny was lost
        EXPECT_EQ(r.exit_code, kAllow) << r.out << r.err;
      }
    }
    EXPECT_TRUE(still_running(writer)) << "the writer died before the checks finished";
    std::printf("%d checks: %d denied, %d allowed, %d refused%s%s\n", c.checks, c.denied, c.allowed,
                c.refused, c.refused > 0 ? "; first refusal: " : "", c.first_refusal.c_str());
    return c;
  }

  TempDir settings_dir_{holdfast::testing::memory_backed_base()};
  TempDir workspace_dir_;
  ScopePaths paths_;
};

// --- 1. ordinary saves during launches -------------------------------------

TEST_F(SavesAndAbsenceTest, SameContentSavesAtTenHertzRefuseAtMostOneLaunchInAHundred) {
  ASSERT_EQ(launch().exit_code, 0);  // the settings are seen once, as on any host
  Child writer([&] { atomic_saver(user_file(), 100'000'000, /*alternate=*/false); });
  const LaunchCounts c = launch_against(writer.pid(), 100);
  EXPECT_EQ(c.without_policy, 0);
  EXPECT_LE(c.refused, 1);
}

TEST_F(SavesAndAbsenceTest, NewContentSavedAtTenHertzRefusesAtMostOneLaunchInAHundred) {
  ASSERT_EQ(launch().exit_code, 0);
  Child writer([&] { atomic_saver(user_file(), 100'000'000, /*alternate=*/true); });
  const LaunchCounts c = launch_against(writer.pid(), 100);
  EXPECT_EQ(c.without_policy, 0);
  EXPECT_LE(c.refused, 1);
}

TEST_F(SavesAndAbsenceTest, SameContentSavesAtAKilohertzRefuseAtMostOneLaunchInAHundred) {
  ASSERT_EQ(launch().exit_code, 0);
  Child writer([&] { atomic_saver(user_file(), 1'000'000, /*alternate=*/false); });
  const LaunchCounts c = launch_against(writer.pid(), 100);
  EXPECT_EQ(c.without_policy, 0);
  EXPECT_LE(c.refused, 1);
}

// --- 2. activity beside the settings -----------------------------------------

TEST_F(SavesAndAbsenceTest, ChurnBesideEveryWatchedDirectoryRefusesNoReading) {
  // No system directory (as on most hosts) and a workspace without
  // .holdfast/: the reader watches their nearest ancestors for the way to
  // come into being. Noise in each of them, and in the settings directory
  // itself, is no sign of it.
  Child noise([&] { churn({settings_dir_.path(), paths_.config_dir, *paths_.workspace}); });
  SnapshotOptions options;
  options.settle_window = std::chrono::milliseconds(20);
  options.max_wait = std::chrono::milliseconds(400);
  int refused = 0;
  int absent_as_expected = 0;
  std::string first;
  constexpr int kReadings = 100;
  for (int i = 0; i < kReadings; ++i) {
    try {
      const Snapshot s = take_snapshot(paths_, options);
      if (!s.scope(Scope::system)->exists && !s.scope(Scope::workspace)->exists &&
          s.scope(Scope::user)->exists) {
        ++absent_as_expected;
      }
    } catch (const SnapshotError& e) {
      if (refused++ == 0) first = e.what();
    }
  }
  EXPECT_TRUE(still_running(noise.pid()));
  std::printf("%d readings under churn: %d refused%s%s\n", kReadings, refused,
              refused > 0 ? "; first: " : "", first.c_str());
  EXPECT_EQ(refused, 0) << first;
  EXPECT_EQ(absent_as_expected, kReadings);
}

TEST_F(SavesAndAbsenceTest, ChurnBesideTheSettingsRefusesNoCheck) {
  Child noise([&] { churn({settings_dir_.path(), paths_.config_dir, *paths_.workspace}); });
  constexpr int kChecks = 30;
  int denied = 0;
  int refused = 0;
  std::string first;
  for (int i = 0; i < kChecks; ++i) {
    const CommandResult r = check_rm(paths_.state_dir);
    if (r.exit_code == kDeny) ++denied;
    if (r.exit_code == kRefused && refused++ == 0) first = r.err;
  }
  EXPECT_TRUE(still_running(noise.pid()));
  std::printf("%d checks under churn: %d denied, %d refused%s%s\n", kChecks, denied, refused,
              refused > 0 ? "; first: " : "", first.c_str());
  EXPECT_EQ(refused, 0) << first;
  EXPECT_EQ(denied, kChecks);
}

TEST_F(SavesAndAbsenceTest, ChurnBesideTheSettingsRefusesAtMostOneLaunchInAHundred) {
  Child noise([&] { churn({settings_dir_.path(), paths_.config_dir, *paths_.workspace}); });
  const LaunchCounts c = launch_against(noise.pid(), 30);
  EXPECT_EQ(c.without_policy, 0);
  EXPECT_EQ(c.refused, 0) << c.first_refusal;
}

// --- 3. the workspace scope's deny under its writers -------------------------

class WorkspaceDenyTest : public SavesAndAbsenceTest {
 protected:
  WorkspaceDenyTest() {
    // The deny is in the workspace file alone.
    write_file(
        user_file(),
        R"({"tools": {"executionSandbox": {"filesystem": "read-only", "network": "closed"}}})");
    fs::create_directories(workspace_file().parent_path());
    write_file(workspace_file(), kWorkspaceDeny);
    // Checked once before any writer starts, as every workspace in use is.
    EXPECT_EQ(check_rm(paths_.state_dir).exit_code, kDeny);
  }
  static constexpr int kChecks = 60;
  static constexpr long kPause = 120'000'000;  // the writer holds its gap this long
};

TEST_F(WorkspaceDenyTest, PrevWriterNeverDropsTheDeny) {
  Child writer([&] { prev_writer(workspace_file(), kWorkspaceDeny, kPause); });
  const CheckCounts c = check_against(writer.pid(), kChecks, paths_.state_dir);
  EXPECT_EQ(c.allowed, 0);
}

TEST_F(WorkspaceDenyTest, DeletePauseRecreateNeverDropsTheDeny) {
  Child writer([&] { delete_recreate_writer(workspace_file(), kWorkspaceDeny, kPause); });
  const CheckCounts c = check_against(writer.pid(), kChecks, paths_.state_dir);
  EXPECT_EQ(c.allowed, 0);
}

TEST_F(WorkspaceDenyTest, SwappedHoldfastDirectoryNeverDropsTheDeny) {
  Child writer([&] {
    directory_swapper(workspace_file().parent_path(), "settings.json", kWorkspaceDeny, kPause);
  });
  const CheckCounts c = check_against(writer.pid(), kChecks, paths_.state_dir);
  EXPECT_EQ(c.allowed, 0);
}

// --- 4. absence judged the same by every reader -------------------------------

bool denies_rm(const Snapshot& snapshot) {
  const auto* deny = find_value(snapshot.effective.value, {"permissions", "deny"});
  return deny != nullptr && deny->is_array() && !deny->empty() && (*deny)[0] == "Bash(rm:*)";
}

TEST_F(SavesAndAbsenceTest, LosingTheStateDirectoryNeverTurnsVanishedIntoAbsent) {
  SnapshotOptions options;
  options.settle_window = std::chrono::milliseconds(20);
  ASSERT_TRUE(denies_rm(take_snapshot(paths_, options)));  // seen once
  Child writer([&] { prev_writer(user_file(), kDenyingPolicyA, 30'000'000); });
  Child remover([&] { state_remover(paths_.state_dir); });
  constexpr int kReadings = 100;
  int without_deny = 0;
  int refused = 0;
  int waited = 0;
  for (int i = 0; i < kReadings; ++i) {
    try {
      const Snapshot s = take_snapshot(paths_, options);
      if (!denies_rm(s)) ++without_deny;
      if (s.settling[1] != Settling::immediate) ++waited;
    } catch (const SnapshotError&) {
      ++refused;
    }
  }
  EXPECT_TRUE(still_running(writer.pid()));
  EXPECT_TRUE(still_running(remover.pid()));
  std::printf(
      "%d readings, state directory removed in a loop: %d without the deny, %d waited, "
      "%d refused\n",
      kReadings, without_deny, waited, refused);
  EXPECT_EQ(without_deny, 0);
  EXPECT_GT(waited, 0) << "the reader never met the writer's gap: this run proved nothing";
}

TEST_F(SavesAndAbsenceTest, ReadersWithDifferentStateDirectoriesReachTheSameVerdict) {
  // The CLI has read the user file; the service (or an agent's harness, or
  // sudo) runs with a state directory of its own that never did.
  const fs::path service_state = settings_dir_ / "service-state";
  ASSERT_EQ(check_rm(paths_.state_dir).exit_code, kDeny);
  {
    Child writer([&] { prev_writer(user_file(), kDenyingPolicyA, 120'000'000); });
    const CheckCounts cli = check_against(writer.pid(), 20, paths_.state_dir);
    const CheckCounts service = check_against(writer.pid(), 20, service_state);
    EXPECT_EQ(cli.allowed, 0);
    EXPECT_EQ(service.allowed, 0);
  }
  // Removed by hand, not through `holdfast settings forget`: both refuse.
  if (!fs::exists(user_file())) fs::rename(user_file().string() + ".prev", user_file());
  fs::remove(user_file());
  const CommandResult cli = check_rm(paths_.state_dir);
  const CommandResult service = check_rm(settings_dir_ / "another-state");
  EXPECT_EQ(cli.exit_code, kRefused) << cli.out << cli.err;
  EXPECT_EQ(service.exit_code, kRefused) << service.out << service.err;
  EXPECT_NE(service.err.find("holdfast settings forget --scope user"), std::string::npos)
      << service.err;
}

}  // namespace
}  // namespace holdfast::settings
