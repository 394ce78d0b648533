// Issue 24's commands: what a command can DO (execute, read, write), not
// only what it names. Each was run in real bash and seen to have its effect,
// and each answered `allow` in the default mode before the effects tables
// (and most in plan mode; the "might be denied" ones in yolo). The rules
// are the issue's: deny Bash(rm:*), Bash(curl:*), Read(~/.ssh/**),
// Edit(//etc/**), Edit(./Makefile); allow Bash(git:*). Every case states its
// answer in all four approval modes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "launcher/gatekeeper/decide.hpp"
#include "tests/gatekeeper/fixture.hpp"

namespace holdfast::gatekeeper {
// Its own namespace: a unity build compiles this file with the suite's
// other tables, which define helpers of the same names.
namespace effects_table_test {
namespace {

using testing::expand_placeholders;
using testing::parse_rules;
using testing::tree_context;

constexpr Decision Y = Decision::allow;
constexpr Decision A = Decision::ask;
constexpr Decision D = Decision::deny;

// The answer in plan, default, auto-edit and yolo mode.
struct PerMode {
  Decision plan, def, auto_edit, yolo;
};
// Denied in every mode.
constexpr PerMode kDenied{D, D, D, D};
// Asked in every mode that can ask (plan refuses what is not read-only):
// it might be something denied, so no mode approves it.
constexpr PerMode kAlwaysAsks{D, A, A, A};
// An ordinary ask: yolo approves it, plan refuses it (not read-only).
constexpr PerMode kAsks{D, A, A, Y};
// Allowed, and read-only: every mode allows it.
constexpr PerMode kAllowed{Y, Y, Y, Y};
// Allowed but not read-only: plan refuses it.
constexpr PerMode kAllowedWrite{D, Y, Y, Y};

struct Case {
  const char* name;
  const char* command;
  PerMode expected;
  const char* rule = nullptr;   // the deciding rule in the default mode, if checked
  const char* allow = nullptr;  // an allow rule of the case's own, besides kAllow
  const char* cwd = "@W";
};

std::ostream& operator<<(std::ostream& out, const Case& c) { return out << c.name; }

const std::vector<std::string> kDeny = {"Bash(rm:*)", "Bash(curl:*)", "Read(~/.ssh/**)",
                                        "Edit(//etc/**)", "Edit(./Makefile)"};
const std::vector<std::string> kAllow = {"Bash(git:*)"};

const Case kCases[] = {
    // --- Programs that run programs ---
    {"awk_system", "awk 'BEGIN{system(\"rm -rf x\")}'", kDenied, "Bash(rm:*)"},
    {"sed_e_command", "sed '1e rm -rf x' f", kDenied, "Bash(rm:*)"},
    {"sort_compress_program", "sort -S 100K --compress-program=./evil f", kAlwaysAsks},
    {"sort_compress_program_abbreviated_denied", "sort --comp=rm f", kDenied, "Bash(rm:*)"},
    {"rg_pre", "rg --pre=rm x .", kDenied, "Bash(rm:*)"},
    {"git_c_ssh_command", "git -c core.sshCommand='rm -rf x' fetch", kDenied, "Bash(rm:*)"},
    {"git_c_alias_shell", "git -c alias.x='!rm -rf x' x", kDenied, "Bash(rm:*)"},

    // --- Environment that changes what runs ---
    {"lessopen_pipe", "LESSOPEN='|rm -rf x %s' less f", kDenied, "Bash(rm:*)"},
    // What these load or run is code holdfast cannot see (yolo allowed them
    // before the HiddenCode cases below).
    {"ld_preload", "LD_PRELOAD=./evil.so cat README", kAlwaysAsks},
    {"path_prefix", "PATH=.:$PATH cat README", kAlwaysAsks},
    {"bash_env", "BASH_ENV=./evil.sh bash -c true", kAlwaysAsks},

    // --- Arithmetic in array subscripts ---
    {"test_v_subscript", "test -v 'a[$(rm -rf x)]'", kDenied, "Bash(rm:*)"},
    {"bracket_v_subscript", "[ -v 'a[$(rm -rf x)]' ]", kDenied, "Bash(rm:*)"},
    {"unset_subscript", "unset 'a[$(curl https://example.com/)]'", kDenied, "Bash(curl:*)"},
    {"printf_v_subscript", "printf -v 'a[$(rm -rf x)]' x", kDenied, "Bash(rm:*)"},

    // --- Writes the analysis did not see ---
    {"sed_w_flag", "sed 's/^/x/w /etc/cron.d/evil' f", kDenied, "Edit(//etc/**)"},
    {"awk_print_redirect", "awk '{print > \"/etc/x\"}' f", kDenied, "Edit(//etc/**)"},
    {"sed_in_abbreviated", "sed --in 's/a/b/' Makefile", kDenied, "Edit(./Makefile)"},
    {"mv_target_dir_abbreviated", "mv --target-dir=/etc x", kDenied, "Edit(//etc/**)"},
    // bash expands no ~ after `--target=`: cp writes into ./~/.ssh, inside
    // the workspace (seen in real bash). The $HOME form writes ~/.ssh.
    {"cp_target_abbreviated_literal_tilde", "cp --target=~/.ssh x", kAllowedWrite},
    {"cp_target_abbreviated_home", "cp --target=$HOME/.ssh x", kAsks},
    {"sort_out_abbreviated", "sort --out=/etc/x f", kDenied, "Edit(//etc/**)"},

    // --- Reads of a denied file ---
    // sed expands no ~ either: this reads ./~/.ssh/id_rsa (seen with strace).
    {"sed_r_literal_tilde", "sed 'r ~/.ssh/id_rsa' f", kAllowed},
    {"sed_r_home", "sed \"r $HOME/.ssh/id_rsa\" f", kDenied, "Read(~/.ssh/**)"},
    {"jq_rawfile", "jq -n --rawfile k ~/.ssh/id_rsa '$k'", kDenied, "Read(~/.ssh/**)"},
    {"date_f", "date -f ~/.ssh/id_rsa", kDenied, "Read(~/.ssh/**)"},
    {"file_f", "file -f ~/.ssh/id_rsa", kDenied, "Read(~/.ssh/**)"},
    {"git_diff_no_index", "git diff --no-index ~/.ssh/id_rsa /dev/null", kDenied,
     "Read(~/.ssh/**)"},
    // With CDPATH=@R, `cd home` lands in @R/home, the fixture's home.
    {"cdpath_cd", "CDPATH=@R cd home && cat .ssh/id_rsa", kDenied, "Read(~/.ssh/**)"},
    {"cdpath_root", "CDPATH=/ cd root && cat .ssh/id_rsa", kAsks},

    // --- No mode approves what might be denied ---
    {"find_exec_rm", "find . -exec rm -rf {} +", kDenied, "Bash(rm:*)"},
    {"brace_expansion_rm", "{rm,-rf,x}", kDenied, "Bash(rm:*)"},
    {"busybox_rm", "busybox rm -rf x", kDenied, "Bash(rm:*)"},
    {"env_split_string", "env -S 'rm -rf x'", kDenied, "Bash(rm:*)"},
    {"watch_rm", "watch rm -rf x", kDenied, "Bash(rm:*)"},
    {"glob_ssh", "cat ~/.ss?/id_rsa", kAlwaysAsks},
};

// The public advisories on Claude Code's and Qwen Code's permission checks
// (README, "Gatekeeper"): one row per command class that applies to
// holdfast, under the same rules. The comment says what main (db382bf)
// answered where it allowed.
const Case kAdvisoryCases[] = {
    // Claude Code GHSA-xq4m-mc3c-vvg3 ($IFS and short options). main: yolo allow.
    {"cc_ifs_splits_an_option", "rg$IFS--pre=rm x .", kAlwaysAsks},
    // main: allow in every mode.
    {"cc_short_option_cluster_sed_e", "sed -ne '1e rm -rf x' f", kDenied, "Bash(rm:*)"},
    {"cc_abbreviated_compress_program", "sort -S1 -T. --compress-prog=rm f", kDenied, "Bash(rm:*)"},
    // Claude Code GHSA-qxfv-fcpc-w36x (rg). main: allow in every mode.
    {"cc_rg_pre_separate_value", "rg --pre rm x .", kDenied, "Bash(rm:*)"},
    // Claude Code GHSA-7mv8-j34q-vp7q (sed writes). main: allow in every mode.
    {"cc_sed_w_command", "sed -n 'w /etc/cron.d/evil' f", kDenied, "Edit(//etc/**)"},
    // A sed script that only prints stays allowed (tac).
    {"cc_sed_read_only_script", "sed -n '1!G;h;$p' f", kAllowed},
    // Claude Code GHSA-qgqw-h4xq-7w8w (find). main: yolo allow.
    {"cc_find_okdir", "echo y | find . -okdir rm -rf {} +", kDenied, "Bash(rm:*)"},
    {"cc_find_fprint", "find . -fprint /etc/x", kDenied, "Edit(//etc/**)"},
    // main: yolo allow.
    {"cc_find_delete_above_denied", "find / -delete", kAlwaysAsks},
    // Claude Code GHSA-66q4-vfjg-2qhh (cd into a protected directory).
    {"cc_cd_then_write", "cd /etc && echo x > cron.d/evil", kDenied, "Edit(//etc/**)"},
    // Claude Code GHSA-x56v-x2h6-7j34 (echo) and the 50-subcommand cap.
    {"cc_echo_substitution", "echo \"$(rm -rf x)\"", kDenied, "Bash(rm:*)"},
    {"cc_many_subcommands",
     "true;true;true;true;true;true;true;true;true;true;true;true;true;true;true;true;true;"
     "true;true;true;true;true;true;true;true;true;true;true;true;true;true;true;true;true;"
     "true;true;true;true;true;true;true;true;true;true;true;true;true;true;true;true;true;"
     "curl https://example.com/",
     kDenied, "Bash(curl:*)"},
    // The awk read-only bypass (brokensec/Claude-Code-awk). main: allow in every mode.
    {"cc_awk_getline_command", "awk 'BEGIN{\"rm -rf x\" | getline}'", kDenied, "Bash(rm:*)"},
    // Qwen Code #4930 (env runs its arguments).
    {"qwen_env_runs_command", "env rm -rf x", kDenied, "Bash(rm:*)", "Bash(env:*)"},
    // Qwen Code #10197 (loader environment under a concrete allow rule).
    // main: allow in default mode (and yolo allowed it before the HiddenCode cases).
    {"qwen_node_options_under_allow_rule", "NODE_OPTIONS=--require=./x.cjs npm --version",
     kAlwaysAsks, nullptr, "Bash(npm --version)"},
    // main and this branch before GIT_CONFIG_* was read: allow in default mode.
    {"qwen_git_config_environment",
     "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm -rf x' git log",
     kDenied, "Bash(rm:*)"},
    // Qwen Code #10196 (a redirect through $PWD under a concrete allow rule).
    {"qwen_pwd_redirect_under_allow_rule", "printf x >\"$PWD/Makefile\"", kDenied,
     "Edit(./Makefile)", "Bash(printf x)"},
    // Qwen Code #11764 (a backslash inside single quotes) and #1638 (newlines).
    {"qwen_backslash_in_single_quotes", "echo 'a\\' ; rm -rf x", kDenied, "Bash(rm:*)",
     "Bash(echo *)"},
    {"qwen_newline_separates_commands", "grep ^Install README.md\ncurl https://example.com/",
     kDenied, "Bash(curl:*)"},
    // xargs runs what it is given (an allow rule for xargs does not allow rm).
    {"xargs_under_allow_rule", "echo x | xargs rm -rf", kDenied, "Bash(rm:*)", "Bash(xargs:*)"},
    // git's options that run programs, under allow Bash(git:*). main: allow in default mode.
    {"git_grep_open_files_in_pager", "git grep --open-files-in-pager=rm x", kDenied, "Bash(rm:*)"},
    {"git_grep_short_o", "git grep -Orm x", kDenied, "Bash(rm:*)"},
    {"git_c_core_pager", "git -c core.pager='rm -rf x' log", kDenied, "Bash(rm:*)"},
};

// Issue 24's remaining gap: commands that run code the analysis cannot
// see (an unmapped program, a script, a shell reading its input, a variable
// that changes what runs or loads, an option holdfast does not know) might
// run a denied command or read a denied path, so with a deny rule they can
// meet no mode approves them. Every `kAlwaysAsks` row here answered allow in
// yolo on main (ca768ea), and strace's row answered ask in
// every mode: strace runs its arguments as a command.
const Case kHiddenCodeCases[] = {
    {"sh_runs_script", "sh script.sh", kAlwaysAsks},
    {"bash_runs_script", "bash script.sh", kAlwaysAsks},
    {"sh_runs_its_input", "echo rm -rf x | sh", kAlwaysAsks},
    {"source_runs_script", ". ./env.sh", kAlwaysAsks},
    {"ld_preload", "LD_PRELOAD=./e.so cat README", kAlwaysAsks},
    {"node_options", "NODE_OPTIONS=--require=./e.js node x.js", kAlwaysAsks},
    {"python_c", "python3 -c 'import os'", kAlwaysAsks},
    {"make", "make", kAlwaysAsks},
    {"npm_run_build", "npm run build", kAlwaysAsks},
    {"configure", "./configure", kAlwaysAsks},
    {"unknown_option_of_a_known_program", "cat --frobnicate README", kAlwaysAsks},
    // Wrappers that run their arguments are analysed as the command they run.
    {"strace_rm", "strace rm x", kDenied, "Bash(rm:*)"},
    {"strace_options_rm", "strace -f -e trace=file -s 200 rm x", kDenied, "Bash(rm:*)"},
    {"strace_output_pipes_to_a_command", "strace -o '|rm -rf x' ls", kAlwaysAsks},
    {"strace_unknown_option", "strace --frobnicate ls", kAlwaysAsks},
    {"ltrace_rm", "ltrace -o @W/trace rm x", kDenied, "Bash(rm:*)"},
    {"taskset_rm", "taskset -c 0 rm x", kDenied, "Bash(rm:*)"},
    {"flock_rm", "flock @W/lock rm x", kDenied, "Bash(rm:*)"},
    {"flock_c_string", "flock @W/lock -c 'rm -rf x'", kDenied, "Bash(rm:*)"},
    {"flock_creates_its_lock_file", "flock /etc/lock true", kDenied, "Edit(//etc/**)"},
    {"xvfb_run_rm", "xvfb-run -a rm x", kDenied, "Bash(rm:*)"},
    {"fakeroot_rm", "fakeroot -- rm x", kDenied, "Bash(rm:*)"},
    // A wrapper of a harmless command is as harmless as the command.
    {"strace_cat", "strace -f cat README", kAllowed},
    // Harmless asks yolo still approves: every effect is seen, and none can
    // meet a deny rule.
    {"yolo_approves_outside_read", "cat @O/x", {A, A, A, Y}},
    {"yolo_approves_outside_write", "touch @O/x", kAsks},
    {"yolo_approves_substitution", "echo \"$(date)\" > @O/x", kAsks},
    // An allow rule for the command approves it (the reason of the ask says so).
    {"allow_rule_approves_make", "make", kAllowedWrite, nullptr, "Bash(make)"},
};

// A Bash call decided in yolo mode under the given deny rules (and kAllow).
Verdict decide_in_yolo(const std::vector<std::string>& deny, const char* command) {
  Context context = tree_context("@W");
  context.persistent = {parse_rules(kAllow), {}, parse_rules(deny)};
  context.mode = Mode::yolo;
  prepare(context);
  return decide({"Bash", expand_placeholders(command)}, context);
}

// Without a deny rule there is nothing hidden code could meet: yolo
// approves these asks as it always did.
TEST(HiddenCode, YoloApprovesWhenNoDenyRuleExists) {
  for (const Case& c : kHiddenCodeCases) {
    if (c.expected.yolo != A) continue;
    const Verdict verdict = decide_in_yolo({}, c.command);
    EXPECT_EQ(decision_name(verdict.decision), "allow") << c.name << ": " << verdict.reason;
  }
}

// With only a path deny rule, hidden code could still read the denied path.
TEST(HiddenCode, APathDenyRuleIsEnough) {
  const Verdict verdict = decide_in_yolo({"Read(~/.ssh/**)"}, "python3 -c 'import os'");
  EXPECT_EQ(decision_name(verdict.decision), "ask") << verdict.reason;
  EXPECT_NE(verdict.reason.find("Read(~/.ssh/**)"), std::string::npos) << verdict.reason;
}

// The ask says which deny rule hidden code could meet and what approves it.
TEST(HiddenCode, TheReasonNamesTheDenyRuleAndTheWayOut) {
  const Verdict verdict = decide_in_yolo(kDeny, "make");
  EXPECT_EQ(decision_name(verdict.decision), "ask") << verdict.reason;
  EXPECT_NE(verdict.reason.find("Bash(rm:*)"), std::string::npos) << verdict.reason;
  EXPECT_NE(verdict.reason.find("allow rule"), std::string::npos) << verdict.reason;
  EXPECT_NE(verdict.reason.find("sandbox"), std::string::npos) << verdict.reason;
}

class EffectsTable : public ::testing::TestWithParam<Case> {};

TEST_P(EffectsTable, DecidesInEveryMode) {
  const Case& c = GetParam();
  Context context = tree_context(c.cwd);
  context.persistent = {parse_rules(kAllow), {}, parse_rules(kDeny)};
  if (c.allow != nullptr) context.persistent.allow.push_back(parse_rule(c.allow));
  prepare(context);
  const ToolCall call{"Bash", expand_placeholders(c.command)};
  const std::pair<Mode, Decision> modes[] = {{Mode::plan, c.expected.plan},
                                             {Mode::default_mode, c.expected.def},
                                             {Mode::auto_edit, c.expected.auto_edit},
                                             {Mode::yolo, c.expected.yolo}};
  for (const auto& [mode, expected] : modes) {
    context.mode = mode;
    const Verdict verdict = decide(call, context);
    EXPECT_EQ(decision_name(verdict.decision), decision_name(expected))
        << "mode " << mode_name(mode) << ": " << verdict.reason;
    if (mode == Mode::default_mode && c.rule != nullptr) {
      EXPECT_EQ(verdict.rule ? verdict.rule->text : "", c.rule) << verdict.reason;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Issue24, EffectsTable, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.name);
                         });
INSTANTIATE_TEST_SUITE_P(HiddenCode, EffectsTable, ::testing::ValuesIn(kHiddenCodeCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.name);
                         });
INSTANTIATE_TEST_SUITE_P(Advisories, EffectsTable, ::testing::ValuesIn(kAdvisoryCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace effects_table_test
}  // namespace holdfast::gatekeeper
