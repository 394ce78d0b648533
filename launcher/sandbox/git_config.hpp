// What a git configuration file makes git read or run from elsewhere.
//
// The .git directory of a repository is read-only inside the sandbox, but
// its configuration can point out of it, into the writable workspace:
// core.hooksPath=.husky runs .husky/pre-commit on the next commit,
// include.path=../x.inc reads more configuration (a core.fsmonitor that runs
// on the next status), core.fsmonitor and core.sshCommand name programs.
// The launch reads the configuration git would read for each repository it
// finds (the system's, the user's and the repository's own, with their
// includes) and keeps every path these settings name read-only where it
// would otherwise be writable (host_facts.hpp, resolve.hpp).
//
// Pure: configuration files are project content (hostile), so the parser is
// linear, bounded by the text, and skips what it cannot read rather than
// stopping (git would refuse such a file altogether).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace holdfast::sandbox {

struct GitConfigEntry {
  std::string section;     // lower case: "core", "includeif"
  std::string subsection;  // as written ("gitdir:~/work/"), empty when none
  std::string key;         // lower case: "hookspath"
  std::string value;       // unquoted, escapes applied; "" for a bare key
  bool operator==(const GitConfigEntry&) const = default;
};

std::vector<GitConfigEntry> parse_git_config(std::string_view text);

enum class GitPathKind {
  include,   // another configuration file (include.path, includeIf.*.path)
  hooks,     // the hooks directory (core.hooksPath)
  worktree,  // the working tree (core.worktree)
  program,   // a program git runs, or a path in its command line
};

// A path one setting names, as written (not yet resolved).
struct GitPathSetting {
  std::string setting;  // "core.hooksPath", "includeIf.gitdir:~/w/.path", "alias.x"
  GitPathKind kind = GitPathKind::program;
  std::string path;        // "~/x", "/abs" or relative
  bool first_word = true;  // a program's own path (not one of its arguments)
  bool operator==(const GitPathSetting&) const = default;
};

// The paths the entries name: include targets, the hooks directory, the
// working tree, and of every setting whose value git runs (core.fsmonitor
// unless a boolean, core.sshCommand, core.pager, core.editor,
// core.askPass, core.gitProxy, sequence.editor, gpg.program, gpg.*.program,
// diff.external, diff.*.command, diff.*.textconv, filter.*.clean / smudge /
// process, merge.*.driver, credential.helper, credential.*.helper,
// pager.*, alias.* and submodule.*.update starting with "!",
// remote.*.uploadpack / receivepack, difftool.* / mergetool.*.cmd / path,
// man.* / browser.*.cmd / path) every word that contains a slash (a word
// without one is looked up on PATH).
std::vector<GitPathSetting> git_path_settings(const std::vector<GitConfigEntry>& entries);

// An absolute path for a written one: "~/" against `home` (nullopt without
// one), a relative path against `base`; "~user/", "%(prefix)/" and empty
// paths are nullopt. ":(optional)" in front is dropped. No ".." is
// resolved here (probe_path resolves it against the real directories).
std::optional<std::string> resolve_git_path(std::string_view written, const std::string& base,
                                            const std::string& home);

}  // namespace holdfast::sandbox
