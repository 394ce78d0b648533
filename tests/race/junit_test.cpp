// The JUnit XML a campaign writes: valid against tests/race/junit.xsd
// (checked by xmllint, the libxml2 schema validator), one test case per
// phase, each failure of the right type with its evidence; and the
// thresholds that turn a pass into "unmet" (exit 5).
#include "race-harness/junit.hpp"

#include <gtest/gtest.h>

#include "base/files.hpp"
#include "race-harness/thresholds.hpp"
#include "tests/race/phase_fixture.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::race {
namespace {

// A phase of the user's writer cmd-1.
PhaseResult cmd_phase(const std::string& name, bool control, std::uint64_t honoured,
                      std::uint64_t violated, std::uint64_t refused = 0) {
  return phase(name, control, honoured, violated, refused, "cmd-1");
}

// Every kind of test case: a control that saw the race and one that saw
// nothing; a clean phase, one with violations and their evidence (bytes no
// XML file may hold among them), one whose writer tore its saves, one that
// could not be judged; crash cells.
Merged every_kind() {
  CampaignResult c;
  c.mode = "launch";
  c.writers = {"rename-backup:20@50ms", "cmd-1:20"};
  c.commands = {{"cmd-1", "./save.sh {file} {settings}"},
                {"launcher-cmd", "naive-launcher {probe} && echo \"<done>\""}};
  c.phases.push_back(cmd_phase("naive vs rename-backup (control)", true, 2, 18));
  c.phases.push_back(cmd_phase("naive vs cmd-1 (control)", true, 20, 0));
  c.phases.push_back(cmd_phase("launcher-cmd vs rename-backup", false, 20, 0, 1));
  PhaseResult violated = cmd_phase("launcher-cmd vs cmd-1", false, 12, 8);
  violated.violation_kinds = {{"no policy read", 8}};
  violated.evidence.push_back({"no policy read",
                               "no policy read, so workspace writable; it reported \x01\x02 <&>",
                               "/evidence/trial-1.json"});
  c.phases.push_back(violated);
  PhaseResult torn = cmd_phase("launcher-cmd vs mixed", false, 20, 0);
  torn.writer_stats["cmd-1"].findings = 3;
  torn.evidence.push_back(
      {"torn", "cmd-1 save 3: the file holds 60 bytes", "/e/cmd-1-save-3.bytes"});
  c.phases.push_back(torn);
  PhaseResult unjudged = cmd_phase("launcher-cmd vs other", false, 0, 0, 5);
  c.phases.push_back(unjudged);
  CrashResult crash;
  crash.cells.push_back({"holdfast", "rename", 4, 4, 0, 0, 0, 0, 0, 0});
  crash.cells.push_back({"rename-backup", "rename_to_backup", 4, 0, 4, 0, 0, 0, 0, 0});
  return {{c}, {crash}};
}

// xmllint's verdict on `xml` against the schema, and an XPath count.
struct Linted {
  int exit_code = -1;
  std::string err;
};

Linted validate(const std::string& xml, const testing::TempDir& dir) {
  base::write_file(dir / "junit.xml", xml);
  const auto r = testing::run_command(
      {"/usr/bin/xmllint", "--noout", "--schema", JUNIT_XSD, (dir / "junit.xml").string()}, {});
  return {r.exit_code, r.err};
}

std::string xpath(const std::string& xml, const std::string& expression,
                  const testing::TempDir& dir) {
  base::write_file(dir / "query.xml", xml);
  const auto r = testing::run_command(
      {"/usr/bin/xmllint", "--xpath", expression, (dir / "query.xml").string()}, {});
  EXPECT_EQ(r.exit_code, 0) << expression << ": " << r.err;
  // xmllint ends the answer with a newline of its own.
  return r.out.ends_with('\n') ? r.out.substr(0, r.out.size() - 1) : r.out;
}

TEST(JUnit, EveryKindOfTestCaseMeetsTheSchema) {
  const testing::TempDir dir;
  const std::string xml = junit_xml(every_kind());
  const Linted linted = validate(xml, dir);
  EXPECT_EQ(linted.exit_code, 0) << linted.err << xml;
}

TEST(JUnit, TheSchemaRejectsWhatCiReadersRefuse) {
  // The check above means something: the schema turns away a test case
  // with two failures, and one without a name.
  const testing::TempDir dir;
  std::string xml = junit_xml(every_kind());
  const auto end = xml.find("</failure>") + std::string("</failure>").size();
  EXPECT_NE(validate(xml.substr(0, end) + "<failure/>" + xml.substr(end), dir).exit_code, 0);
  std::string unnamed = xml;
  unnamed.replace(unnamed.find(" name=\"naive vs rename-backup (control)\""),
                  std::string(" name=\"naive vs rename-backup (control)\"").size(), "");
  EXPECT_NE(validate(unnamed, dir).exit_code, 0);
}

TEST(JUnit, OneTestCasePerPhaseEachFailureOfItsKind) {
  const testing::TempDir dir;
  const std::string xml = junit_xml(every_kind());
  // 6 phases; 2 crash cells and the crash control.
  EXPECT_EQ(xpath(xml, "count(//testcase)", dir), "9");
  const auto failure = [&](const std::string& name) {
    return xpath(xml, "string(//testcase[@name='" + name + "']/failure/@type)", dir);
  };
  EXPECT_EQ(failure("naive vs rename-backup (control)"), "");
  EXPECT_EQ(failure("naive vs cmd-1 (control)"), "insensitive-control");
  EXPECT_EQ(failure("launcher-cmd vs rename-backup"), "");
  EXPECT_EQ(failure("launcher-cmd vs cmd-1"), "violations");
  EXPECT_EQ(failure("launcher-cmd vs mixed"), "writer-findings");
  EXPECT_EQ(xpath(xml, "string(//testcase[@name='launcher-cmd vs other']/error/@type)", dir),
            "harness-error");
  EXPECT_EQ(xpath(xml, "string(/testsuites/@failures)", dir), "3");
  EXPECT_EQ(xpath(xml, "string(/testsuites/@errors)", dir), "1");
  // The failure carries its evidence, where it is kept, in printable form.
  const std::string text =
      xpath(xml, "string(//testcase[@name='launcher-cmd vs cmd-1']/failure)", dir);
  EXPECT_NE(text.find("evidence: no policy read, so workspace writable; it reported \\x01\\x02 <&> "
                      "[kept in /evidence/trial-1.json]"),
            std::string::npos)
      << text;
  // The control that saw nothing says so in words.
  const std::string message =
      xpath(xml, "string(//testcase[@name='naive vs cmd-1 (control)']/failure/@message)", dir);
  EXPECT_NE(message.find("saw nothing"), std::string::npos) << message;
  EXPECT_NE(message.find("cmd-1 (./save.sh {file} {settings})"), std::string::npos) << message;
  EXPECT_NE(message.find("prove nothing"), std::string::npos) << message;
  EXPECT_EQ(xpath(xml, "string(//property[@name='launcher-cmd']/@value)", dir),
            "naive-launcher {probe} && echo \"<done>\"");
}

CampaignResult clean(std::uint64_t trials, std::uint64_t refused) {
  CampaignResult c;
  c.mode = "snapshot";
  c.phases.push_back(cmd_phase("naive vs cmd-1 (control)", true, 10, 10));
  c.phases.push_back(cmd_phase("reader-cmd vs cmd-1", false, trials - refused, 0, refused));
  return c;
}

TEST(Thresholds, TooManyRefusalsOrTooFewTrialsAreUnmet) {
  EXPECT_EQ(verdict_of(clean(1000, 100), Thresholds{}), Verdict::pass);
  EXPECT_EQ(verdict_of(clean(1000, 100), Thresholds{0.2, std::nullopt}), Verdict::pass);
  const auto refusals = unmet_thresholds(clean(1000, 100), Thresholds{0.05, std::nullopt});
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_EQ(refusals[0],
            "reader-cmd vs cmd-1: 100 of 1000 trials refused (0.1), more than "
            "--max-refusal-rate 0.05");
  EXPECT_EQ(verdict_of(clean(1000, 100), Thresholds{0.05, std::nullopt}), Verdict::unmet);
  // 0 violations in 1000 trials bound the rate at 3/1000.
  EXPECT_EQ(verdict_of(clean(1000, 0), Thresholds{std::nullopt, 0.003}), Verdict::pass);
  EXPECT_EQ(verdict_of(clean(999, 0), Thresholds{std::nullopt, 0.003}), Verdict::unmet);
  // A threshold never hides a worse verdict, and controls are not held to them.
  CampaignResult violated = clean(1000, 500);
  violated.phases[1].violated = 1;
  EXPECT_EQ(verdict_of(violated, Thresholds{0.05, 0.003}), Verdict::violations);
  EXPECT_TRUE(unmet_thresholds(violated.phases[0], Thresholds{0.0, 1e-9}).empty());
  EXPECT_EQ(exit_code_of(Verdict::unmet), 5);
}

}  // namespace
}  // namespace holdfast::race
