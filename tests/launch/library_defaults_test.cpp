// The library is as safe as the command line (issue 28.4): launch() with
// default LaunchOptions took presence memory from the environment's state
// directory but did not protect it inside, wrote no launch record and
// cleaned no mount points. Under a :home write policy the command deleted
// the presence records and forged a record.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "launcher/run/launch.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::launcher {
namespace {

namespace fs = std::filesystem;

// Sets the process's environment for the test, and puts it back.
class Environment {
 public:
  void set(const char* name, const std::string& value) {
    remember(name);
    ::setenv(name, value.c_str(), 1);
  }
  void unset(const char* name) {
    remember(name);
    ::unsetenv(name);
  }
  ~Environment() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }

 private:
  void remember(const char* name) {
    if (saved_.count(name)) return;
    const char* value = std::getenv(name);
    saved_[name] = value ? std::optional<std::string>(value) : std::nullopt;
  }
  std::map<std::string, std::optional<std::string>> saved_;
};

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

int count_lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

TEST(LibraryDefaults, DefaultOptionsRecordAndHideTheStateDirectory) {
  const testing::TempDir dir("/var/tmp");  // the sandbox sees /var/tmp, not /tmp
  const fs::path base = fs::canonical(dir.path());
  for (const char* sub : {"system", "config", "home", "ws"}) fs::create_directory(base / sub);
  testing::write_file(base / "config" / "settings.json",
                      R"({"tools": {"executionSandbox": {"filesystem": {":root": "read",)"
                      R"( ":home": "write", ":workspace": "write"}, "network": "closed"}}})");
  Environment env;
  env.set("HOLDFAST_SYSTEM_DIR", (base / "system").string());
  env.set("HOLDFAST_CONFIG_DIR", (base / "config").string());
  env.set("HOME", (base / "home").string());
  for (const char* name : {"HOLDFAST_STATE_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME"}) {
    env.unset(name);
  }
  const fs::path state = base / "home" / ".local" / "state" / "holdfast";

  LaunchOptions options;  // nothing but what a launch must name
  options.workspace = base / "ws";
  options.cwd = base / "ws";
  options.command = {"/bin/true"};
  ASSERT_EQ(launch(options).exit_status, 0);
  ASSERT_TRUE(fs::exists(state / "launches.jsonl")) << "no launch record by default";
  const std::set<std::string> before = names_in(state);

  options.command = {"/bin/sh", "-c",
                     "rm -rf \"$1\"/* \"$1\"/.[!.]*; echo forged >> \"$1\"/launches.jsonl", "sh",
                     state.string()};
  launch(options);
  for (const auto& name : before) {
    EXPECT_TRUE(fs::exists(state / name)) << name << " was removed from inside";
  }
  const std::string records = testing::read_file(state / "launches.jsonl");
  // Two records, each a JSON object (the second names "forged" in its
  // command), and no line the command wrote.
  EXPECT_EQ(count_lines(records), 2) << records;
  EXPECT_EQ(records.find("\nforged"), std::string::npos) << records;
}

}  // namespace
}  // namespace holdfast::launcher
