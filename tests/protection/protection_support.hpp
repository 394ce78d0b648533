// Shared by the protected-name, git and credential-store attack tests: the
// escape fixture (real holdfast, real bubblewrap, as root and as uid 65534)
// plus real git on the host afterwards, the launch record and the report.
#pragma once

#include <sys/stat.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "escape_support.hpp"
#include "tests/support/process.hpp"

namespace holdfast::run::testing {

class ProtectionTest : public EscapeTest {
 protected:
  // Gives `root` and everything below it to the caller.
  void own_tree(const fs::path& root) const {
    own(root);
    for (const auto& entry : fs::recursive_directory_iterator(root)) own(entry.path());
  }

  // A file with `text`, its directories made, all of it the caller's.
  void make_file(const fs::path& path, const std::string& text, fs::perms mode = fs::perms(0644)) {
    fs::create_directories(path.parent_path());
    write_file(path, text);
    fs::permissions(path, mode);
  }

  // An executable shell script that appends `line` to `out`.
  void make_script(const fs::path& path, const fs::path& out, const std::string& line) {
    make_file(path, "#!/bin/sh\necho " + line + " >> " + out.string() + "\nexit 0\n",
              fs::perms(0755));
  }

  // git on the host, after the sandbox is gone, as a person would run it:
  // in `dir`, with no global or system configuration of this machine, and
  // accepting a repository another uid owns (the user variant's).
  holdfast::testing::CommandResult host_git(const fs::path& dir,
                                            const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"/usr/bin/git",
                                     "-c",
                                     "safe.directory=*",
                                     "-c",
                                     "user.name=t",
                                     "-c",
                                     "user.email=t@example.invalid"};
    argv.insert(argv.end(), args.begin(), args.end());
    return holdfast::testing::run_command(argv,
                                          {{"HOME", home_.string()},
                                           {"GIT_CONFIG_NOSYSTEM", "1"},
                                           {"GIT_CONFIG_GLOBAL", "/dev/null"}},
                                          dir);
  }

  // A repository at `dir` with one commit, the caller's.
  void make_repository(const fs::path& dir) {
    fs::create_directories(dir);
    ASSERT_EQ(host_git(dir, {"init", "-q", "-b", "main", "."}).exit_code, 0);
    write_file(dir / "README", "hello\n");
    ASSERT_EQ(host_git(dir, {"add", "README"}).exit_code, 0);
    ASSERT_EQ(host_git(dir, {"commit", "-q", "-m", "first"}).exit_code, 0);
  }

  // The workspace scope's settings file (a project's own).
  void set_workspace_settings(const nlohmann::json& doc) {
    fs::create_directories(workspace_ / ".holdfast");
    write_file(workspace_ / ".holdfast" / "settings.json", doc.dump(2) + "\n");
  }

  // The last line of launches.jsonl.
  nlohmann::json last_record() {
    std::istringstream in(read_file(state_dir_ / "holdfast" / "launches.jsonl"));
    std::string line;
    std::string last;
    while (std::getline(in, line)) {
      if (!line.empty()) last = line;
    }
    const auto record = nlohmann::json::parse(last, nullptr, false);
    EXPECT_FALSE(record.is_discarded()) << last;
    return record;
  }

  static bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  }
};

}  // namespace holdfast::run::testing
