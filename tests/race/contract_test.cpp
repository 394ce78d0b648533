// The contract with a user's programs, piece by piece: placeholders and
// shell quoting (through a real /bin/sh), which placeholders each option
// takes, how a reader's report and a launcher's output are judged, how the
// file after a user writer's save is judged, and evidence made printable.
#include "race-harness/contract.hpp"

#include <gtest/gtest.h>

#include "race-harness/documents.hpp"
#include "race-harness/evidence.hpp"
#include "race-harness/external_launcher.hpp"
#include "race-harness/external_writer.hpp"
#include "race-harness/spec.hpp"
#include "tests/support/process.hpp"

namespace holdfast::race {
// Its own namespace: a unity build compiles this file with the suite's
// other tables, which define helpers of the same names.
namespace contract_test {
namespace {

// What /bin/sh makes of `command`: each word it passes to printf, a line each.
std::string words_of(const std::string& command) {
  const auto r = holdfast::testing::run_command({"/bin/sh", "-c", "printf '%s\\n' " + command}, {});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(Contract, ShellQuotingSurvivesTheShellWhateverTheTextHolds) {
  for (const std::string text :
       {"plain", "two words", "it's", "'", "$HOME `id` \"q\" \\n *", "", "new\nline"}) {
    EXPECT_EQ(words_of(shell_quote(text)), text + "\n") << text;
  }
}

TEST(Contract, PlaceholdersBecomeQuotedWordsAndOtherBracesStay) {
  const std::string command = expand_command(
      "run --in {workspace} -- {probe} ${HOME+x} {unknown}",
      {{"{workspace}", {"/tmp/a b"}}, {"{probe}", {"/w/probe", "read:/w/it's", "socket-inet"}}});
  EXPECT_EQ(command,
            "run --in '/tmp/a b' -- '/w/probe' 'read:/w/it'\\''s' 'socket-inet' ${HOME+x} "
            "{unknown}");
  EXPECT_EQ(words_of("{probe}"), "{probe}\n");  // not given a value: left as it is
  EXPECT_EQ(words_of(expand_command("{probe}", {{"{probe}", {"a b", "c"}}})), "a b\nc\n");
}

TEST(Contract, EachOptionTakesOnlyItsOwnPlaceholders) {
  EXPECT_NO_THROW(check_command("cp {file} {settings}", Role::writer));
  EXPECT_NO_THROW(check_command("launch --ws {workspace} -- {probe}", Role::launcher));
  EXPECT_NO_THROW(check_command("cat {settings} >&3", Role::reader));
  EXPECT_NO_THROW(check_command("saver --dir {settings_dir}", Role::writer_daemon));
  EXPECT_THROW(check_command("launch {file}", Role::launcher), SpecError);
  EXPECT_THROW(check_command("cp {probe} x", Role::writer), SpecError);
  // A long-running writer gets its documents on stdin, never as a file.
  EXPECT_THROW(check_command("saver {file}", Role::writer_daemon), SpecError);
  EXPECT_THROW(check_command("read {workspace}", Role::reader), SpecError);
  EXPECT_THROW(check_command("  ", Role::reader), SpecError);
  try {
    check_command("launch {file}", Role::launcher);
  } catch (const SpecError& e) {
    EXPECT_STREQ(e.what(), "--launcher-cmd names {file}, which only these have: --writer-cmd");
  }
}

TEST(Contract, TheEnvironmentNamesTheSettingsFileAndItsDirectory) {
  const auto environment = contract_environment("/s/config/settings.json");
  EXPECT_EQ(environment.at(kEnvSettingsFile), "/s/config/settings.json");
  EXPECT_EQ(environment.at(kEnvSettingsDir), "/s/config");
}

TEST(ClassifyRead, TheReportedPolicyDecides) {
  const std::string policy = policy_text(7);
  EXPECT_EQ(classify_read(0, policy, "", 125).outcome, Outcome::honoured);
  // Effective settings reformatted as one line carry the policy too.
  EXPECT_EQ(classify_read(0, policy_document(7).dump(), "", 125).outcome, Outcome::honoured);

  const Trial nothing = classify_read(0, "", "", 125);
  EXPECT_EQ(nothing.outcome, Outcome::violated);
  EXPECT_EQ(nothing.kind, "no policy read");
  EXPECT_EQ(classify_read(0, policy.substr(0, 30), "", 125).kind, "file damaged");
  EXPECT_EQ(classify_read(0, "{}", "", 125).kind, "policy replaced");
  EXPECT_EQ(nothing.evidence["reported_policy"], "nothing (no settings found)");
}

TEST(ClassifyRead, ItsRefusalExitIsARefusalAndOtherFailuresAreErrors) {
  const Trial refused = classify_read(125, "", "refusing: torn\n", 125);
  EXPECT_EQ(refused.outcome, Outcome::refused);
  EXPECT_EQ(refused.note, "refusing: torn\\n");
  EXPECT_EQ(classify_read(3, "", "", 3).outcome, Outcome::refused);
  EXPECT_EQ(classify_read(125, "", "", 3).outcome, Outcome::error);
  EXPECT_EQ(classify_read(1, policy_text(1), "crashed", 125).outcome, Outcome::error);
}

TEST(ProbeLine, TheLastResultsLineAmongALaunchersOwnOutput) {
  EXPECT_EQ(probe_line("starting...\n{\"results\":[1]}\n{\"other\":1}\n{\"results\":[2]}\nbye\n"),
            "{\"results\":[2]}");
  EXPECT_EQ(probe_line("no probe here\n"), "");
}

TEST(CheckAfterSave, TheDocumentJustSavedIsFine) {
  EXPECT_FALSE(check_after_save(policy_text(5), 5, true, 4));
  // Formatting may differ: the same JSON is the same document.
  EXPECT_FALSE(check_after_save(policy_document(5).dump(), 5, true, 4));
  // After a failed save the file may hold either document.
  EXPECT_FALSE(check_after_save(policy_text(5), 5, false, 4));
  EXPECT_FALSE(check_after_save(policy_text(4), 5, false, 4));
}

TEST(CheckAfterSave, MissingTornAlteredAndOlderAreFindings) {
  EXPECT_EQ(check_after_save(std::nullopt, 5, true, 4)->kind, "missing after save");
  EXPECT_EQ(check_after_save(std::nullopt, 5, false, 4)->kind, "missing after save");
  const std::string text = policy_text(5);
  const auto torn = check_after_save(text.substr(0, text.size() / 2), 5, true, 4);
  ASSERT_TRUE(torn);
  EXPECT_EQ(torn->kind, "torn");
  EXPECT_NE(torn->note.find("expected document 5"), std::string::npos) << torn->note;
  EXPECT_EQ(check_after_save("", 5, true, 4)->kind, "torn");
  auto altered = policy_document(5);
  altered["tools"]["executionSandbox"]["network"] = "open";
  EXPECT_EQ(check_after_save(altered.dump(), 5, true, 4)->kind, "not a document it was given");
  EXPECT_EQ(check_after_save(policy_text(9), 5, true, 4)->kind, "not a document it was given");
  EXPECT_EQ(check_after_save(policy_text(4), 5, true, 4)->kind, "lost save");
  EXPECT_EQ(check_after_save(policy_text(3), 5, false, 4)->kind, "lost save");
}

TEST(Evidence, BytesBecomePrintableTextWithTheirEndShown) {
  EXPECT_EQ(printable(std::string("a\\b\n\t\r\x01\xff z", 10)), "a\\\\b\\n\\t\\r\\x01\\xff z");
  const std::string long_text = std::string(300, 'x') + "THE END";
  const std::string shown = printable(long_text, 100);
  EXPECT_TRUE(shown.starts_with(std::string(60, 'x'))) << shown;
  EXPECT_TRUE(shown.ends_with("THE END")) << shown;
  EXPECT_NE(shown.find("(307 bytes)"), std::string::npos) << shown;
  EXPECT_EQ(slug("launcher-cmd vs rename-backup (control)"),
            "launcher-cmd-vs-rename-backup-control");
  EXPECT_EQ(slug("***"), "phase");
}

}  // namespace
}  // namespace contract_test
}  // namespace holdfast::race
