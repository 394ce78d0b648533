// The store: scopes on disk, get/set/unset, effective settings and the
// errors a caller sees.
#include "settings/store.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/system_error.hpp"
#include "tests/support/files.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::TempDir;
using testing::write_file;

struct Fixture {
  TempDir dir;
  ScopePaths paths;
  Fixture() {
    paths.system_dir = dir / "etc";
    paths.config_dir = dir / "config";
    paths.workspace = dir / "project";
  }
};

TEST(Store, ScopeFilesLiveWhereDocumented) {
  Fixture f;
  EXPECT_EQ(*f.paths.file(Scope::system_defaults), f.dir / "etc" / "system-defaults.json");
  EXPECT_EQ(*f.paths.file(Scope::system), f.dir / "etc" / "settings.json");
  EXPECT_EQ(*f.paths.file(Scope::user), f.dir / "config" / "settings.json");
  EXPECT_EQ(*f.paths.file(Scope::workspace), f.dir / "project" / ".holdfast" / "settings.json");
  ScopePaths no_workspace = f.paths;
  no_workspace.workspace.reset();
  EXPECT_THROW(Store(no_workspace).file(Scope::workspace), UsageError);
}

TEST(Store, SetCreatesDirectoriesAndBumpsRevision) {
  Fixture f;
  Store store(f.paths);
  EXPECT_FALSE(store.load(Scope::workspace).exists);
  const auto first = store.set(Scope::workspace, {"permissions", "deny"}, {"Bash(curl)"});
  EXPECT_EQ(first.revision, 1U);
  EXPECT_EQ(first.path, *f.paths.file(Scope::workspace));
  const auto second = store.set(Scope::workspace, {"launcher", "launchRecords"}, true);
  EXPECT_EQ(second.revision, 2U);
  const ScopeFile file = store.load(Scope::workspace);
  EXPECT_EQ(file.document, nlohmann::json::parse(
                               R"j({"$revision": 2, "permissions": {"deny": ["Bash(curl)"]},
                                    "launcher": {"launchRecords": true}})j"));
  // Saved as the schema reads it; bytes end with a newline.
  EXPECT_TRUE(file.bytes.ends_with("}\n"));
}

TEST(Store, RevisionCannotBeSetByHand) {
  Fixture f;
  EXPECT_THROW(Store(f.paths).set(Scope::user, {"$revision"}, 7), UsageError);
  EXPECT_FALSE(fs::exists(*f.paths.file(Scope::user)));
}

TEST(Store, UnsetRemovesAKeyAndComplainsAboutAMissingOne) {
  Fixture f;
  Store store(f.paths);
  store.set(Scope::user, {"tools", "executionSandbox", "network"}, "closed");
  store.set(Scope::user, {"tools", "executionSandbox", "filesystem"}, "read-only");
  const auto saved = store.unset(Scope::user, {"tools", "executionSandbox", "network"});
  EXPECT_EQ(saved.revision, 3U);
  EXPECT_EQ(store.load(Scope::user).document["tools"]["executionSandbox"],
            nlohmann::json::parse(R"j({"filesystem": "read-only"})j"));
  const std::string before = read_file(*f.paths.file(Scope::user));
  try {
    store.unset(Scope::user, {"tools", "executionSandbox", "network"});
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("tools.executionSandbox.network is not set in the user "
                                         "scope"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_file(*f.paths.file(Scope::user)), before);
}

TEST(Store, EffectiveMergesEveryScopeAndCarriesWarnings) {
  Fixture f;
  Store store(f.paths);
  store.set(Scope::system_defaults, {"tools", "executionSandbox"},
            {{"network", "closed"}, {"filesystem", "read-only"}});
  store.set(Scope::user, {"permissions", "allow"}, {"Read"});
  store.set(Scope::workspace, {"permissions", "allow"}, {"Bash"});  // ignored, with a warning
  store.set(Scope::workspace, {"editor", "tabs"}, 2);               // unknown key: a warning
  store.set(Scope::system, {"security", "requireExecutionSandbox"}, true);
  const Effective e = store.snapshot().effective;
  EXPECT_EQ(e.value["tools"]["executionSandbox"]["network"], "closed");
  EXPECT_EQ(e.value["permissions"]["allow"], nlohmann::json::array({"Read"}));
  EXPECT_EQ(e.value["security"]["requireExecutionSandbox"], true);
  EXPECT_EQ(e.value["editor"]["tabs"], 2);
  EXPECT_EQ(e.origins.at("security.requireExecutionSandbox"), Scope::system);
  EXPECT_EQ(e.origins.at("permissions.allow.0"), Scope::user);
  bool warned_allow = false;
  bool warned_editor = false;
  for (const auto& w : e.warnings) {
    EXPECT_EQ(w.severity, Severity::warning);
    warned_allow |= w.key_path == "permissions.allow" && w.file == *f.paths.file(Scope::workspace);
    warned_editor |= w.key_path == "editor";
  }
  EXPECT_TRUE(warned_allow);
  EXPECT_TRUE(warned_editor);
}

TEST(Store, EffectiveFailsClosedNamingEveryBadFile) {
  Fixture f;
  Store store(f.paths);
  store.set(Scope::user, {"tools", "executionSandbox", "network"}, "closed");
  fs::create_directories(f.paths.system_dir);
  write_file(*f.paths.file(Scope::system), "{\"security\": {\"allowUnconfined\": \"no\"}}");
  write_file(*f.paths.file(Scope::system_defaults), "{\"tools\": ");
  try {
    (void)store.snapshot();
    ADD_FAILURE() << "no error";
  } catch (const InvalidSettings& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(f.paths.file(Scope::system)->string() +
                        ":1:34: error: at "
                        "security.allowUnconfined: expected a boolean"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find(f.paths.file(Scope::system_defaults)->string() + ":1:"), std::string::npos)
        << what;
    EXPECT_NE(what.find("truncated"), std::string::npos) << what;
  }
}

TEST(Store, UnreadableOrNonRegularFileIsAnError) {
  Fixture f;
  fs::create_directories(*f.paths.file(Scope::user));  // a directory where the file should be
  EXPECT_THROW((void)Store(f.paths).load(Scope::user), base::SystemError);
  EXPECT_THROW((void)Store(f.paths).snapshot(), base::SystemError);
}

TEST(Store, ScopePathsFromEnvironment) {
  ::unsetenv("HOLDFAST_STATE_DIR");
  ::unsetenv("XDG_STATE_HOME");
  const char* home = std::getenv("HOME");
  const std::string saved_home = home != nullptr ? home : "";
  ::setenv("HOLDFAST_SYSTEM_DIR", "/sys-dir", 1);
  ::setenv("HOLDFAST_CONFIG_DIR", "/cfg-dir", 1);
  ScopePaths paths = scope_paths_from_environment(fs::path("/work/./proj/"));
  EXPECT_EQ(paths.system_dir, "/sys-dir");
  EXPECT_EQ(paths.config_dir, "/cfg-dir");
  EXPECT_EQ(*paths.file(Scope::workspace), "/work/proj/.holdfast/settings.json");
  ::unsetenv("HOLDFAST_CONFIG_DIR");
  ::setenv("XDG_CONFIG_HOME", "/xdg", 1);
  EXPECT_EQ(scope_paths_from_environment(std::nullopt).config_dir, "/xdg/holdfast");
  ::unsetenv("XDG_CONFIG_HOME");
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(scope_paths_from_environment(std::nullopt).config_dir,
            "/home/someone/.config/holdfast");
  ::unsetenv("HOME");
  EXPECT_THROW(scope_paths_from_environment(std::nullopt), UsageError);
  ::unsetenv("HOLDFAST_SYSTEM_DIR");
  ::setenv("HOLDFAST_CONFIG_DIR", "/cfg-dir", 1);
  // Without a state directory there is no presence memory: refused, not
  // silently read without it.
  EXPECT_THROW(scope_paths_from_environment(fs::path("/p")), UsageError);
  ::setenv("HOLDFAST_STATE_DIR", "/state-dir", 1);
  EXPECT_EQ(scope_paths_from_environment(fs::path("/p")).system_dir, "/etc/holdfast");
  EXPECT_EQ(scope_paths_from_environment(fs::path("/p")).state_dir, "/state-dir");
  ::unsetenv("HOLDFAST_STATE_DIR");
  ::setenv("XDG_STATE_HOME", "/xdg-state", 1);
  EXPECT_EQ(state_dir_from_environment(), "/xdg-state/holdfast");
  ::setenv("XDG_STATE_HOME", "relative", 1);  // not absolute: not used
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(state_dir_from_environment(), "/home/someone/.local/state/holdfast");
  ::unsetenv("XDG_STATE_HOME");
  ::unsetenv("HOLDFAST_CONFIG_DIR");
  if (home != nullptr) ::setenv("HOME", saved_home.c_str(), 1);
}

}  // namespace
}  // namespace holdfast::settings

namespace holdfast::settings {
namespace {

// A FIFO (or any non-regular file) at a settings path is refused at once,
// not waited on: a reader must never hang on a planted FIFO. The alarm only
// turns a hang into a failure.
TEST(Store, FifoAtTheSettingsPathIsRefusedWithoutBlocking) {
  testing::TempDir dir;
  const auto path = dir / "settings.json";
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
  const int code = testing::run_in_child([&] {
    ::alarm(10);
    try {
      (void)detail::read_scope_file_once(Scope::system, path);
      return 1;
    } catch (const base::SystemError& e) {
      return std::string(e.what()).find("not a regular file") != std::string::npos ? 0 : 2;
    }
  });
  EXPECT_EQ(code, 0) << (code == -SIGALRM ? "read_scope_file blocked on the FIFO" : "");
}

// Editors on some systems start files with a UTF-8 byte order mark; the
// document is read and its values are still located.
TEST(Store, ByteOrderMarkIsAcceptedAndLocationsKept) {
  testing::TempDir dir;
  const auto path = dir / "settings.json";
  testing::write_file(path, "\xEF\xBB\xBF{\n  \"security\": {\"allowUnconfined\": 1}\n}\n");
  const ScopeFile file = detail::read_scope_file_once(Scope::system, path);
  ASSERT_EQ(file.diagnostics.size(), 1U);
  EXPECT_EQ(file.diagnostics[0].key_path, "security.allowUnconfined");
  EXPECT_EQ(file.diagnostics[0].location.line, 2);
  EXPECT_EQ(file.diagnostics[0].location.column, 35);
}

}  // namespace
}  // namespace holdfast::settings
