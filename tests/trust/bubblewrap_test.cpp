// Which bubblewrap holdfast executes (issue 20.1) and when a launch may run
// unconfined (issue 28.3). A fake bubblewrap here leaves a marker outside
// the workspace when it runs (it runs on the host, unconfined: that is the
// escape) and then passes through to the real one, so a launch through it
// still looks confined. The attacks plant it where the next start used to
// look: a directory on PATH the command could write (an activated
// virtualenv's .venv/bin, ~/.local/bin under a :home write policy, the
// shell start-up file that sets PATH and HOLDFAST_BWRAP).
#include <sys/stat.h>

#include "escape_support.hpp"
#include "tests/support/trusted_dir.hpp"

namespace holdfast::run::testing {
namespace {

constexpr const char* kRealBwrap = "/usr/bin/bwrap";

class BubblewrapTrustTest : public EscapeTest {
 protected:
  // Where a fake bubblewrap that ran leaves its mark.
  fs::path marker() const { return outside_ / "fake-bwrap-ran"; }

  // The text of a fake bubblewrap: marks, then runs the real one.
  std::string fake_text() const {
    return "#!/bin/sh\necho ran >> '" + marker().string() + "'\nexec " + kRealBwrap + " \"$@\"\n";
  }

  // A shell command that writes the fake at `path` (inside the sandbox).
  std::string plant(const std::string& path) const {
    return "mkdir -p \"$(dirname " + path + ")\" && printf '%s\\n' '#!/bin/sh' 'echo ran >> " +
           marker().string() + "' 'exec " + kRealBwrap + " \"$@\"' > " + path + " && chmod 755 " +
           path;
  }

  // The operator's system scope: `security` set to `values`.
  void set_security(const nlohmann::json& values) {
    write_settings(system_dir_, nlohmann::json{{"security", values}}.dump() + "\n");
  }

  void expect_fake_never_ran() const {
    EXPECT_FALSE(fs::exists(marker())) << "holdfast executed the planted bubblewrap, unconfined";
  }
};

// The attack of issue 20.1: the command writes .venv/bin/bwrap in its
// workspace; the next launch from a shell whose PATH starts with .venv/bin
// (an activated virtualenv) ran it outside any sandbox.
TEST_P(BubblewrapTrustTest, PlantedBwrapInAVirtualenvOnPathIsNotExecuted) {
  const fs::path fake = workspace_ / ".venv" / "bin" / "bwrap";
  const auto planted = run_as_caller({"/bin/sh", "-c", plant(fake.string())});
  ASSERT_EQ(planted.exit_code, 0) << planted.err;
  ASSERT_TRUE(fs::exists(fake)) << "the workspace is writable: the fake must be there";

  Launch next;
  next.env["PATH"] = (workspace_ / ".venv" / "bin").string() + ":/usr/bin:/bin";
  const auto result = run_as_caller({"/bin/true"}, {}, next);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  expect_fake_never_ran();
}

TEST_P(BubblewrapTrustTest, HoldfastBwrapVariableIsIgnored) {
  const fs::path fake = workspace_ / "bwrap";
  ASSERT_EQ(run_as_caller({"/bin/sh", "-c", plant(fake.string())}).exit_code, 0);
  Launch next;
  next.env["HOLDFAST_BWRAP"] = fake.string();
  const auto result = run_as_caller({"/bin/true"}, {}, next);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  expect_fake_never_ran();
}

// Under a :home write policy the command writes ~/.local/bin/bwrap and the
// shell start-up file that puts ~/.local/bin first on PATH and sets
// HOLDFAST_BWRAP; the next start comes from a shell that read it. Neither
// variable chooses what holdfast executes. (Whether ~/.bashrc itself stays
// writable inside is the protected names' concern: this test holds either
// way and says which.)
TEST_P(BubblewrapTrustTest, BashrcWrittenUnderHomeWriteDoesNotSteerTheNextStart) {
  set_policy({{"filesystem", {{":root", "read"}, {":home", "write"}, {":workspace", "write"}}},
              {"network", "closed"}});
  const fs::path fake = home_ / ".local" / "bin" / "bwrap";
  const std::string bashrc = (home_ / ".bashrc").string();
  const auto planted = run_as_caller(
      {"/bin/sh", "-c",
       plant(fake.string()) + "; printf '%s\\n' 'export PATH=" + fake.parent_path().string() +
           ":$PATH' 'export HOLDFAST_BWRAP=" + fake.string() + "' >> " + bashrc});
  const bool bashrc_written = fs::exists(bashrc);
  SCOPED_TRACE(bashrc_written ? "~/.bashrc was writable inside"
                              : "~/.bashrc was not writable inside");

  holdfast::testing::Command next;
  next.argv = {"/bin/bash", "-c",
               ". \"$HOME/.bashrc\" 2>/dev/null; echo \"PATH=$PATH\" >&2; exec " +
                   holdfast_.string() + " run -- /bin/true"};
  next.env = environment(as_caller());
  next.cwd = workspace_;
  next.uid = as_caller().uid;
  next.out = base_ / "next.out";
  next.err = base_ / "next.err";
  const auto result = wait(holdfast::testing::start_command(next));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  if (bashrc_written) {
    EXPECT_NE(result.err.find("PATH=" + fake.parent_path().string()), std::string::npos)
        << "the next shell read the planted PATH: " << result.err;
  }
  expect_fake_never_ran();
}

// A bubblewrap configured where someone other than root could replace it is
// refused, with the remedy, and never skipped for running unconfined.
TEST_P(BubblewrapTrustTest, ConfiguredBubblewrapOthersCanReplaceIsRefusedNeverSkipped) {
  const fs::path fake = workspace_ / "bwrap";
  ASSERT_EQ(run_as_caller({"/bin/sh", "-c", plant(fake.string())}).exit_code, 0);
  set_security({{"bubblewrap", fake.string()}, {"allowUnconfined", true}});
  const auto result =
      run_as_caller({"/bin/sh", "-c", "echo x > \"$1\"", "sh", (outside_ / "escaped").string()});
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_NE(result.err.find("is not one holdfast trusts"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("apt-get install bubblewrap"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("UNCONFINED"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(outside_ / "escaped"));
  expect_fake_never_ran();
}

// The positive control of the fakes above: the same fake, installed as an
// operator installs a program (root's, in directories only root can
// write) and named in a system scope, is executed, and doctor names it and
// says why it is trusted.
TEST_P(BubblewrapTrustTest, ConfiguredTrustedBubblewrapIsExecutedAndDoctorSaysWhy) {
  const holdfast::testing::TrustedDir trusted;
  const fs::path fake = trusted.program("bwrap", fake_text());
  set_security({{"bubblewrap", fake.string()}});
  const auto result = run_as_caller({"/bin/true"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(fs::exists(marker())) << "the configured, trusted bubblewrap did not run";

  const auto doctor = holdfast({"doctor", "--workspace", workspace_.string()}, as_caller());
  EXPECT_NE(doctor.out.find("[ok] bubblewrap: " + fake.string() +
                            " (security.bubblewrap in the system scope)"),
            std::string::npos)
      << doctor.out;
  EXPECT_NE(doctor.out.find("trusted: " + fake.string() + " (owned by root, mode 0755"),
            std::string::npos)
      << doctor.out;
}

// Issue 28.3: with security.allowUnconfined set and bubblewrap installed,
// PATH or HOLDFAST_BWRAP that name no bubblewrap made `run` run the command
// unconfined while doctor said launches would be refused. Neither counts:
// the launch is confined, and doctor agrees.
TEST_P(BubblewrapTrustTest, EnvironmentCannotTurnTheLaunchUnconfined) {
  set_security({{"allowUnconfined", true}});
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"PATH", "/usr/local/bin:/sbin"}, {"HOLDFAST_BWRAP", "/nonexistent"}}) {
    SCOPED_TRACE(name + "=" + value);
    Launch launch;
    launch.env[name] = value;
    const auto result = run_as_caller(
        {"/bin/sh", "-c", "echo x > \"$1\"", "sh", (outside_ / "escaped").string()}, {}, launch);
    EXPECT_EQ(result.err.find("UNCONFINED"), std::string::npos) << result.err;
    EXPECT_FALSE(fs::exists(outside_ / "escaped")) << "the command ran unconfined";
    const auto doctor = holdfast({"doctor", "--workspace", workspace_.string()}, as_caller(launch));
    EXPECT_EQ(doctor.exit_code, 0) << doctor.out << doctor.err;
    EXPECT_NE(doctor.out.find("[ok] bubblewrap: /usr/bin/bwrap (the build-time default)"),
              std::string::npos)
        << doctor.out;
  }
}

// Nothing at the configured path is what "bubblewrap cannot run here"
// means: only then may an operator's security.allowUnconfined run the
// command unconfined, and run and doctor say the same.
TEST_P(BubblewrapTrustTest, UnconfinedOnlyWhenNothingIsAtTheConfiguredPathAndDoctorAgrees) {
  const std::vector<std::string> escape = {"/bin/sh", "-c", "echo x > \"$1\"", "sh",
                                           (outside_ / "escaped").string()};
  set_security({{"bubblewrap", "/nonexistent/bwrap"}});
  auto refused = run_as_caller(escape);
  EXPECT_EQ(refused.exit_code, 125) << refused.err;
  EXPECT_NE(refused.err.find("bubblewrap (bwrap) is not installed at /nonexistent/bwrap"),
            std::string::npos)
      << refused.err;
  auto doctor = holdfast({"doctor", "--workspace", workspace_.string()}, as_caller());
  EXPECT_EQ(doctor.exit_code, 1) << doctor.out;
  EXPECT_NE(doctor.out.find("[fatal] bubblewrap: bubblewrap (bwrap) is not installed at "
                            "/nonexistent/bwrap"),
            std::string::npos)
      << doctor.out;

  set_security({{"bubblewrap", "/nonexistent/bwrap"}, {"allowUnconfined", true}});
  EXPECT_EQ(run_as_caller(escape, {"--require-sandbox"}).exit_code, 125);
  EXPECT_FALSE(fs::exists(outside_ / "escaped"));
  const auto unconfined = run_as_caller(escape);
  EXPECT_EQ(unconfined.exit_code, 0) << unconfined.err;
  EXPECT_NE(unconfined.err.find("running the command UNCONFINED"), std::string::npos)
      << unconfined.err;
  EXPECT_TRUE(fs::exists(outside_ / "escaped"));
  doctor = holdfast({"doctor", "--workspace", workspace_.string()}, as_caller());
  EXPECT_EQ(doctor.exit_code, 0) << doctor.out;
  EXPECT_NE(doctor.out.find("[warning] bubblewrap: WARNING: bubblewrap is not installed at "
                            "/nonexistent/bwrap"),
            std::string::npos)
      << doctor.out;
  EXPECT_NE(doctor.out.find("[warning] trial-launch: nothing to try: holdfast run -- /bin/true "
                            "would run UNCONFINED here"),
            std::string::npos)
      << doctor.out;
}

// Root inside is the host's uid 0: a root-owned bubblewrap is safe from it
// only where nothing on its way is writable inside. As a user the same
// policy is harmless (root's directories stay closed to the user): it is
// not refused for that (bubblewrap itself then cannot make the mount
// points of a write entry on a directory the user cannot write).
TEST_P(BubblewrapTrustTest, PolicyThatLetsRootReplaceBubblewrapIsRefused) {
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}, {"/usr/bin", "write"}}},
              {"network", "closed"}});
  const auto result = run_as_caller({"/bin/true"});
  if (as_root()) {
    EXPECT_EQ(result.exit_code, 125) << result.err;
    EXPECT_NE(result.err.find("refused [bubblewrap-writable]: /usr/bin"), std::string::npos)
        << result.err;
  } else {
    EXPECT_EQ(result.err.find("bubblewrap-writable"), std::string::npos) << result.err;
  }
}

HOLDFAST_ESCAPE_SUITE(BubblewrapTrustTest);

}  // namespace
}  // namespace holdfast::run::testing
