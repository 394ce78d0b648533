// holdfast doctor: the real binary on this host, and its probes.
#include "launcher/doctor/doctor.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "launcher/doctor/network_canary.hpp"
#include "launcher/run/bubblewrap.hpp"
#include "tests/support/files.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/trusted_dir.hpp"

namespace holdfast::doctor {
namespace {

using holdfast::testing::TempDir;
using holdfast::testing::write_file;

struct Ran {
  int exit_code = -1;
  std::string output;  // stdout, then stderr
};

// Runs the real `holdfast doctor ARGS` with `env` added to our environment.
Ran run_doctor(const std::map<std::string, std::string>& env, std::vector<std::string> args) {
  args.insert(args.begin(), {HOLDFAST_BINARY, "doctor"});
  const auto result = holdfast::testing::run_command(args, env);
  return Ran{result.exit_code, result.out + result.err};
}

class DoctorTest : public ::testing::Test {
 protected:
  DoctorTest() {
    std::filesystem::create_directories(dir_ / "etc");
    std::filesystem::create_directories(dir_ / "config");
    std::filesystem::create_directories(dir_ / "work");
    env_ = {{"HOLDFAST_SYSTEM_DIR", (dir_ / "etc").string()},
            {"HOLDFAST_CONFIG_DIR", (dir_ / "config").string()},
            {"HOLDFAST_STATE_DIR", (dir_ / "state").string()}};
    args_ = {"--workspace", (dir_ / "work").string()};
  }
  TempDir dir_;
  std::map<std::string, std::string> env_;
  std::vector<std::string> args_;
};

TEST(DoctorVersion, ParsesDottedVersions) {
  EXPECT_EQ(parse_version("0.8.0"), (std::vector<int>{0, 8, 0}));
  EXPECT_EQ(parse_version("0.11"), (std::vector<int>{0, 11}));
  EXPECT_TRUE(parse_version("0.8.x").empty());
  EXPECT_TRUE(parse_version("").empty());
  EXPECT_LT(parse_version("0.7.9"), (std::vector<int>{0, 8, 0}));
}

TEST_F(DoctorTest, HealthyHostSaysLaunchesGoAhead) {
  const Ran ran = run_doctor(env_, args_);
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find("[ok] bubblewrap"), std::string::npos) << ran.output;
  EXPECT_NE(ran.output.find("[ok] trial-launch: holdfast run -- /bin/true in "), std::string::npos)
      << ran.output;
  EXPECT_NE(ran.output.find("[ok] seccomp"), std::string::npos) << ran.output;
  EXPECT_NE(ran.output.find("built-in default"), std::string::npos) << ran.output;
}

// The real doctor asks the real git: unset, it recommends the setting;
// set in the global configuration, it says so. GIT_CONFIG_GLOBAL and
// GIT_CONFIG_NOSYSTEM keep this machine's own configuration out.
TEST_F(DoctorTest, RecommendsSafeBareRepositoryExplicitUntilGitHasIt) {
  auto env = env_;
  env["GIT_CONFIG_NOSYSTEM"] = "1";
  env["GIT_CONFIG_GLOBAL"] = (dir_.path() / "gitconfig").string();
  write_file(dir_.path() / "gitconfig", "[user]\n\tname = t\n");
  Ran ran = run_doctor(env, args_);
  EXPECT_NE(ran.output.find("[warning] git-bare-repositories: safe.bareRepository is not set"),
            std::string::npos)
      << ran.output;
  EXPECT_NE(ran.output.find("-> git config --global safe.bareRepository explicit"),
            std::string::npos)
      << ran.output;
  write_file(dir_.path() / "gitconfig", "[safe]\n\tbareRepository = explicit\n");
  ran = run_doctor(env, args_);
  EXPECT_NE(ran.output.find("[ok] git-bare-repositories: safe.bareRepository = explicit"),
            std::string::npos)
      << ran.output;
}

TEST(DoctorGitBareRepositories, TheLastScopeThatSetsItDecides) {
  EXPECT_EQ(git_bare_repository_finding("", {}).verdict, Verdict::ok);
  EXPECT_EQ(git_bare_repository_finding("/usr/bin/git", {"", ""}).verdict, Verdict::warning);
  EXPECT_EQ(git_bare_repository_finding("/usr/bin/git", {"explicit", ""}).verdict, Verdict::ok);
  EXPECT_EQ(git_bare_repository_finding("/usr/bin/git", {"explicit", "all"}).verdict,
            Verdict::warning);
  EXPECT_EQ(git_bare_repository_finding("/usr/bin/git", {"all", "explicit"}).verdict, Verdict::ok);
}

TEST_F(DoctorTest, MissingBubblewrapIsFatal) {
  write_file(dir_ / "etc" / "settings.json",
             R"({"security": {"bubblewrap": "/nonexistent/bwrap"}})");
  const Ran ran = run_doctor(env_, args_);
  EXPECT_EQ(ran.exit_code, 1) << ran.output;
  EXPECT_NE(ran.output.find("[fatal] bubblewrap: bubblewrap (bwrap) is not installed at "
                            "/nonexistent/bwrap (security.bubblewrap in the system scope)"),
            std::string::npos)
      << ran.output;
  EXPECT_NE(ran.output.find("apt-get install bubblewrap"), std::string::npos) << ran.output;
  EXPECT_NE(ran.output.find("REFUSED"), std::string::npos) << ran.output;
}

TEST(DoctorBubblewrapOptions, ListsWhatTheHelpLacks) {
  // Lines as bubblewrap prints them; "--bind" and "--bind-try" must not
  // count as "--bind-fd".
  const std::string old_help =
      "usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]\n"
      "    --disable-userns             Disable further use of user namespaces inside sandbox\n"
      "    --bind SRC DEST              Bind mount the host path SRC on DEST\n"
      "    --bind-try SRC DEST          Equal to --bind but ignores non-existent SRC\n"
      "    --ro-bind SRC DEST           Bind mount the host path SRC readonly on DEST\n"
      "    --perms OCTAL                Set permissions of next argument\n"
      "    --size BYTES                 Set size of next argument (only for --tmpfs)\n"
      "    --chmod OCTAL PATH           Change permissions of PATH (must already exist)\n";
  EXPECT_EQ(missing_bubblewrap_options(old_help),
            (std::vector<std::string>{"--bind-fd", "--ro-bind-fd"}));
  EXPECT_EQ(missing_bubblewrap_options(old_help +
                                       "    --bind-fd FD DEST            Bind open directory\n"
                                       "    --ro-bind-fd FD DEST         Bind open directory\n"),
            std::vector<std::string>{});
  EXPECT_EQ(missing_bubblewrap_options("").size(), std::size(kNewerBubblewrapOptions));
}

TEST_F(DoctorTest, BubblewrapWithoutBindFdIsFatal) {
  // A bubblewrap that says it is 0.8.0 but lacks the descriptor binds every
  // launch uses (Debian 12's 0.8.0 before the security backport): its own
  // --help, less those two lines. The real bwrap prints the rest.
  const std::optional<std::string> bwrap = launcher::kDefaultBubblewrap;
  // Installed as an operator installs a program: root's, in directories
  // only root can write, and named in a system scope.
  const holdfast::testing::TrustedDir trusted;
  const auto fake = trusted.program("old-bwrap",
                                    "#!/bin/sh\n"
                                    "case \"$1\" in\n"
                                    "  --version) echo 'bubblewrap 0.8.0' ;;\n"
                                    "  --help) '" +
                                        *bwrap +
                                        "' --help | grep -v -e '--bind-fd' -e '--ro-bind-fd' ;;\n"
                                        "  *) exec '" +
                                        *bwrap +
                                        "' \"$@\" ;;\n"
                                        "esac\n");
  write_file(dir_ / "etc" / "settings.json",
             nlohmann::json{{"security", {{"bubblewrap", fake.string()}}}}.dump());
  const Ran ran = run_doctor(env_, args_);
  EXPECT_EQ(ran.exit_code, 1) << ran.output;
  EXPECT_NE(ran.output.find("[fatal] bubblewrap"), std::string::npos) << ran.output;
  EXPECT_NE(ran.output.find("lacks --bind-fd, --ro-bind-fd"), std::string::npos) << ran.output;
  EXPECT_NE(ran.output.find("upgrade bubblewrap"), std::string::npos) << ran.output;
}

// The trial is the launch `holdfast run` would make in that workspace, so a
// workspace that run refuses fails it, with run's own refusal.
TEST_F(DoctorTest, TrialLaunchRefusesWhereRunRefuses) {
  auto args = args_;
  args[1] = (dir_ / "work" / "repo").string();
  std::filesystem::create_directories(dir_ / "work" / "repo");
  const Ran healthy = run_doctor(env_, args);
  ASSERT_EQ(healthy.exit_code, 0) << healthy.output;
  // The same directory, now with a workspace policy that overlaps the
  // user's settings directory: run refuses it (workspace-overlaps-settings).
  auto env = env_;
  env["HOLDFAST_CONFIG_DIR"] = (dir_ / "work" / "repo" / "config").string();
  std::filesystem::create_directories(dir_ / "work" / "repo" / "config");
  const Ran ran = run_doctor(env, args);
  EXPECT_EQ(ran.exit_code, 1) << ran.output;
  EXPECT_NE(ran.output.find("[fatal] trial-launch: holdfast run would refuse here: refused "
                            "[workspace-overlaps-settings]"),
            std::string::npos)
      << ran.output;
  const auto run = holdfast::testing::run_command(
      {HOLDFAST_BINARY, "run", "--workspace", args[1], "--", "/bin/true"}, env);
  EXPECT_EQ(run.exit_code, 125) << run.err;
  EXPECT_NE(run.err.find("workspace-overlaps-settings"), std::string::npos) << run.err;
}

TEST_F(DoctorTest, InvalidSettingsAreFatalWithTheirLocation) {
  write_file(dir_ / "config" / "settings.json", "{\n  \"tools\": 3\n}\n");
  const Ran ran = run_doctor(env_, args_);
  EXPECT_EQ(ran.exit_code, 1) << ran.output;
  EXPECT_NE(ran.output.find((dir_ / "config" / "settings.json").string() + ":2:12"),
            std::string::npos)
      << ran.output;
}

TEST_F(DoctorTest, UnsafeSettingsAreFatal) {
  write_file(dir_ / "etc" / "settings.json", "{}");
  ::chmod((dir_ / "etc" / "settings.json").c_str(), 0666);
  const Ran ran = run_doctor(env_, args_);
  EXPECT_EQ(ran.exit_code, 1) << ran.output;
  EXPECT_NE(ran.output.find("[fatal] settings:system"), std::string::npos) << ran.output;
  EXPECT_NE(ran.output.find("chmod go-w"), std::string::npos) << ran.output;
}

TEST_F(DoctorTest, JsonOutputCarriesEveryCheck) {
  auto args = args_;
  args.push_back("--json");
  const Ran ran = run_doctor(env_, args);
  ASSERT_EQ(ran.exit_code, 0) << ran.output;
  const auto report = nlohmann::json::parse(ran.output);
  EXPECT_TRUE(report["launch_possible"].get<bool>());
  std::vector<std::string> checks;
  for (const auto& c : report["checks"]) checks.push_back(c["check"]);
  for (const char* expected : {"bubblewrap", "trial-launch", "seccomp", "apparmor-userns",
                               "landlock", "settings:user", "settings:snapshot"}) {
    EXPECT_NE(std::find(checks.begin(), checks.end(), expected), checks.end()) << expected;
  }
}

// The canary asks the real proxy for one connection its list allows and
// one it does not: a proxy that let everything through, or refused
// everything, or wrote no audit line, fails here.
TEST(NetworkCanary, TheRealProxyAllowsTheListedAndRefusesTheRest) {
  const CanaryResult canary = run_network_canary();
  ASSERT_TRUE(canary.ran) << canary.why;
  EXPECT_TRUE(canary.allowed_passed) << canary.why;
  EXPECT_TRUE(canary.refused_refused) << canary.why;
  EXPECT_EQ(canary.audit_lines, 2) << canary.why;
}

}  // namespace
}  // namespace holdfast::doctor
