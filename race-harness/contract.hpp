// The contract between holdfast-race and a user's own program: a writer
// (--writer-cmd, --writer-daemon), a launcher (--launcher-cmd) or a reader
// (--reader-cmd), each given as one shell command. How the program learns
// where the settings are, how it reports the policy it acted on, and how a
// launched command's probe reports what it could reach: contract_help()
// says it in full (it is the --help text and the README's).
//
// Pure: placeholder expansion, shell quoting, and the environment.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/shell_quote.hpp"

namespace holdfast::race {

// The environment every user command gets, besides the harness's own
// (which carries HOLDFAST_CONFIG_DIR, HOLDFAST_SYSTEM_DIR and
// HOLDFAST_STATE_DIR, so that `holdfast` itself reads the raced settings).
inline constexpr const char* kEnvSettingsFile = "HOLDFAST_RACE_SETTINGS_FILE";
inline constexpr const char* kEnvSettingsDir = "HOLDFAST_RACE_SETTINGS_DIR";
// Launchers and readers: the descriptor to write the policy they acted on to.
inline constexpr const char* kEnvReportFd = "HOLDFAST_RACE_REPORT_FD";
inline constexpr int kReportFd = 3;
// Launchers: the workspace, and the command to start in it (shell-quoted).
inline constexpr const char* kEnvWorkspace = "HOLDFAST_RACE_WORKSPACE";
inline constexpr const char* kEnvProbe = "HOLDFAST_RACE_PROBE";
// Writers run once per save: the file holding the document to save, and
// the save's number (1, 2, ...).
inline constexpr const char* kEnvDocument = "HOLDFAST_RACE_DOCUMENT";
inline constexpr const char* kEnvSave = "HOLDFAST_RACE_SAVE";

// What a user command is to the campaign; each allows its own placeholders.
enum class Role { writer, writer_daemon, launcher, reader };

// The option that gives a command of `role` ("--writer-cmd", ...).
std::string option_of(Role role);

// Single-quoted for /bin/sh, whatever the text holds.
using base::shell_quote;

// Throws SpecError (spec.hpp) when `command` is empty or names a
// placeholder that `role` does not have ({file} in a launcher, {probe} in a
// writer, {file} in a long-running writer).
void check_command(const std::string& command, Role role);

// `command` with each {name} of `values` replaced by its words, each
// shell-quoted, separated by spaces. Braces that name nothing in `values`
// (a shell's ${VAR}) are left as they are.
std::string expand_command(const std::string& command,
                           const std::map<std::string, std::vector<std::string>>& values);

// The variables every user command of a phase gets for `settings_file`.
std::map<std::string, std::string> contract_environment(const std::filesystem::path& settings_file);

// The contract, in words: for --help and the README.
std::string contract_help();

}  // namespace holdfast::race
