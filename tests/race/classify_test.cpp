// Classifying a start from what the probe said, and the naive reader on
// real files.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>

#include "race-harness/documents.hpp"
#include "race-harness/trials.hpp"

namespace holdfast::race {
namespace {

namespace fs = std::filesystem;

const fs::path kWorkspace = "/w";

Captured start(int code, const std::string& out, const std::string& err = "") {
  Captured c;
  c.status = code << 8;  // as waitpid reports an exit with `code`
  EXPECT_TRUE(WIFEXITED(c.status));
  c.out = out;
  c.err = err;
  return c;
}

std::string probe_line(bool marker, bool write, bool inet) {
  const auto b = [](bool v) { return v ? "true" : "false"; };
  return std::string(R"({"results":[{"check":"read:/w/marker","allowed":)") + b(marker) +
         R"(},{"check":"write:/w/probe-write","allowed":)" + b(write) +
         R"(},{"check":"socket-inet","allowed":)" + b(inet) + "}]}\n";
}

TEST(ClassifyStart, PolicyInForceIsHonoured) {
  EXPECT_EQ(classify_start(start(0, probe_line(true, false, false)), kWorkspace).outcome,
            Outcome::honoured);
}

TEST(ClassifyStart, WritableWorkspaceOrOpenNetworkIsAViolation) {
  EXPECT_EQ(classify_start(start(0, probe_line(true, true, false)), kWorkspace).outcome,
            Outcome::violated);
  EXPECT_EQ(classify_start(start(0, probe_line(true, false, true)), kWorkspace).outcome,
            Outcome::violated);
}

// A user's launcher's probe tries a port on the host's loopback instead of
// opening an AF_INET socket (an empty network namespace allows the socket
// but reaches nothing): reaching it is a violation, failing to is not.
TEST(ClassifyStart, AReachableHostPortIsAViolation) {
  const auto line = [](bool reached) {
    return std::string(R"({"results":[{"check":"read:/w/marker","allowed":true},)"
                       R"({"check":"write:/w/probe-write","allowed":false},)"
                       R"({"check":"connect-tcp:127.0.0.1:4000","allowed":)") +
           (reached ? "true" : "false") + "}]}\n";
  };
  const Trial reached = classify_start(start(0, line(true)), kWorkspace);
  EXPECT_EQ(reached.outcome, Outcome::violated);
  EXPECT_EQ(reached.kind, "host network reachable");
  EXPECT_EQ(classify_start(start(0, line(false)), kWorkspace).outcome, Outcome::honoured);
  // A launcher's own refusal code is a refusal; holdfast's 125 then is not.
  EXPECT_EQ(classify_start(start(3, ""), kWorkspace, 3).outcome, Outcome::refused);
  EXPECT_EQ(classify_start(start(125, ""), kWorkspace, 3).outcome, Outcome::error);
}

TEST(ClassifyStart, Exit125IsARefusal) {
  const Trial t = classify_start(start(125, "", "holdfast: refusing\nto launch\n"), kWorkspace);
  EXPECT_EQ(t.outcome, Outcome::refused);
  EXPECT_EQ(t.note, "holdfast: refusing|to launch");
}

TEST(ClassifyStart, AProbeThatCannotSeeTheWorkspaceProvesNothing) {
  EXPECT_EQ(classify_start(start(0, probe_line(false, false, false)), kWorkspace).outcome,
            Outcome::error);
  EXPECT_EQ(classify_start(start(0, "garbage"), kWorkspace).outcome, Outcome::error);
  EXPECT_EQ(classify_start(start(2, ""), kWorkspace).outcome, Outcome::error);
}

std::string check_line(const std::string& decision) {
  return R"({"decision":")" + decision + R"(","rule":null,"reason":"why","tool":"Read"})" + "\n";
}

TEST(ClassifyCheck, DenyIsHonouredAllowAndAskAreViolations) {
  EXPECT_EQ(classify_check(start(11, check_line("deny"))).outcome, Outcome::honoured);
  const Trial allow = classify_check(start(0, check_line("allow")));
  EXPECT_EQ(allow.outcome, Outcome::violated);
  EXPECT_EQ(allow.kind, "allow");
  const Trial ask = classify_check(start(10, check_line("ask")));
  EXPECT_EQ(ask.outcome, Outcome::violated);
  EXPECT_EQ(ask.kind, "ask");
}

TEST(ClassifyCheck, Exit1IsARefusal) {
  const Trial t = classify_check(start(1, "", "holdfast: refusing to decide\n"));
  EXPECT_EQ(t.outcome, Outcome::refused);
  EXPECT_EQ(t.note, "holdfast: refusing to decide");
}

TEST(ClassifyCheck, AnAnswerThatDisagreesWithItsExitCodeProvesNothing) {
  EXPECT_EQ(classify_check(start(0, check_line("deny"))).outcome, Outcome::error);
  EXPECT_EQ(classify_check(start(11, check_line("allow"))).outcome, Outcome::error);
  EXPECT_EQ(classify_check(start(11, "garbage")).outcome, Outcome::error);
  EXPECT_EQ(classify_check(start(2, "")).outcome, Outcome::error);
}

TEST(NaiveReader, SaysWhatWasMissing) {
  const fs::path dir = fs::temp_directory_path() / ("race-missing-" + std::to_string(::getpid()));
  fs::create_directories(dir / "config");
  const fs::path file = dir / "config" / "settings.json";
  EXPECT_EQ(read_naively(file).missing_what, "file missing");
  fs::create_symlink("nowhere.json", file);
  EXPECT_EQ(read_naively(file).missing_what, "dangling symlink");
  fs::remove_all(dir / "config");
  EXPECT_EQ(read_naively(file).missing_what, "directory missing");
  fs::remove_all(dir);
}

TEST(NaiveReader, MissingDamagedLaxAndStrict) {
  const fs::path dir = fs::temp_directory_path() / ("race-naive-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "settings.json";
  EXPECT_EQ(read_naively(file).kind, NaiveReading::Kind::missing);
  std::ofstream(file) << "{\"tools\": ";
  EXPECT_EQ(read_naively(file).kind, NaiveReading::Kind::damaged);
  std::ofstream(file) << R"({"tools": {"executionSandbox": {"filesystem": "workspace-write"}}})";
  EXPECT_EQ(read_naively(file).kind, NaiveReading::Kind::lax);
  std::ofstream(file) << policy_text(7);
  const NaiveReading strict = read_naively(file);
  EXPECT_EQ(strict.kind, NaiveReading::Kind::strict);
  EXPECT_TRUE(strict.has_generation);
  EXPECT_EQ(strict.generation, 7u);
  EXPECT_FALSE(naive_runs_unconfined(strict));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace holdfast::race
