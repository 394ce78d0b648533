#include "race-harness/contract.hpp"

#include <algorithm>

#include "race-harness/spec.hpp"

namespace holdfast::race {

namespace {

struct Placeholder {
  std::string_view name;
  std::vector<Role> roles;
};

const std::vector<Placeholder>& placeholders() {
  using enum Role;
  static const std::vector<Placeholder> table = {
      {"{settings}", {writer, writer_daemon, launcher, reader}},
      {"{settings_dir}", {writer, writer_daemon, launcher, reader}},
      {"{file}", {writer}},
      {"{workspace}", {launcher}},
      {"{probe}", {launcher}},
  };
  return table;
}

}  // namespace

std::string option_of(Role role) {
  switch (role) {
    case Role::writer:
      return "--writer-cmd";
    case Role::writer_daemon:
      return "--writer-daemon";
    case Role::launcher:
      return "--launcher-cmd";
    case Role::reader:
      return "--reader-cmd";
  }
  return "";
}

void check_command(const std::string& command, Role role) {
  if (command.find_first_not_of(" \t\n") == std::string::npos) {
    throw SpecError(option_of(role) + " is empty; give the shell command to run");
  }
  for (const auto& p : placeholders()) {
    if (command.find(p.name) == std::string::npos) continue;
    if (std::find(p.roles.begin(), p.roles.end(), role) != p.roles.end()) continue;
    std::string where;
    for (const Role r : p.roles) where += (where.empty() ? "" : ", ") + option_of(r);
    throw SpecError(option_of(role) + " names " + std::string(p.name) +
                    ", which only these have: " + where);
  }
}

std::string expand_command(const std::string& command,
                           const std::map<std::string, std::vector<std::string>>& values) {
  std::string out;
  std::size_t at = 0;
  while (at < command.size()) {
    bool replaced = false;
    if (command[at] == '{') {
      for (const auto& [name, words] : values) {
        if (command.compare(at, name.size(), name) != 0) continue;
        std::string quoted;
        for (const auto& word : words) quoted += (quoted.empty() ? "" : " ") + shell_quote(word);
        out += quoted;
        at += name.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += command[at++];
  }
  return out;
}

std::map<std::string, std::string> contract_environment(
    const std::filesystem::path& settings_file) {
  return {{kEnvSettingsFile, settings_file.string()},
          {kEnvSettingsDir, settings_file.parent_path().string()}};
}

std::string contract_help() {
  return R"(Your own programs in a campaign (the contract):
  Each is one shell command, run with /bin/sh -c. In it {settings} is the
  settings file being raced and {settings_dir} its directory (each replaced
  shell-quoted). Every command also gets in its environment
    HOLDFAST_RACE_SETTINGS_FILE, HOLDFAST_RACE_SETTINGS_DIR: the same two;
    HOLDFAST_CONFIG_DIR, HOLDFAST_SYSTEM_DIR, HOLDFAST_STATE_DIR: the same
    settings, and a state directory, for holdfast itself.
  Every document the harness hands out is a complete JSON policy: file system
  read-only, network closed, Read(/secret.txt) denied, stamped with
  "raceHarness": {"generation": N}.
  Writers:
    --writer-cmd CMD runs once per save, --writer-cmd-rate saves a second (back
      to back in its control phase). The document to save is on its stdin and
      in the file {file} (HOLDFAST_RACE_DOCUMENT); HOLDFAST_RACE_SAVE is the
      save's number. Exit 0: saved; any other: the save failed.
    --writer-daemon CMD starts once per phase and runs until it ends (stdin
      closed, then SIGTERM). Each document comes as one line of JSON on its
      stdin; after saving it, it prints "ok" on a line of stdout (any other
      line: that save failed).
    While a writer is alone in its phase, the harness reads the file after
    each of its saves: it must be the document just saved, as JSON (after a
    failed save, that one or the one before). A missing file, bytes that are
    not a document the writer was given, or an older one are findings
    (violations); the bytes are kept as evidence (--evidence).
  Launchers and readers:
    --launcher-cmd CMD makes one confined start per trial (launch mode), run
      in the workspace. {workspace} (HOLDFAST_RACE_WORKSPACE) is the workspace
      to confine the command to; {probe} is the command to start there, as
      shell-quoted words (HOLDFAST_RACE_PROBE: the same, as one string). Pass
      the command's stdout through: the probe prints one line
      {"results":[{"check":...,"allowed":...},...]}. The start is a violation
      when the probe could write the workspace or open an AF_INET socket, an
      error when it could not read the workspace's marker file.
    --reader-cmd CMD makes one read of the settings per trial (snapshot mode).
    Each writes the policy it acted on to descriptor 3 (HOLDFAST_RACE_REPORT_FD):
    the bytes of the settings it read, or the effective settings as JSON;
    nothing when it found no settings. (A launcher closes it before it starts
    the command.) It exits 125 (--refusal-exit) when it refused to go on:
    failing closed, counted apart, never a violation. A read is a violation
    when what it reported is not the policy (nothing, bytes that do not parse,
    a policy without read-only and network closed); a launcher's report says
    what it read, beside the probe's results, in a violation's evidence.
)";
}

}  // namespace holdfast::race
