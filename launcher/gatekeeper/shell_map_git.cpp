// git: its global options (-c NAME=VALUE, -C DIR, --exec-path, ...), the
// configuration it is handed (aliases and the keys whose value is a
// program), the subcommand's options that run commands or write files
// (long options may be abbreviated), and the paths `git diff` reads.
#include <algorithm>
#include <cctype>

#include "launcher/gatekeeper/path_match.hpp"
#include "launcher/gatekeeper/shell_mapper.hpp"

namespace holdfast::gatekeeper::shell::detail {

namespace {

constexpr std::string_view kGlobalOptions =
    "-C=S -c=S -p -P -v -h --paginate --no-pager --no-replace-objects --no-lazy-fetch "
    "--no-optional-locks --no-advice --bare --git-dir=U --work-tree=U --namespace= "
    "--super-prefix=U --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs "
    "--list-cmds= --attr-source= --config-env=U --exec-path=?U --html-path --man-path "
    "--info-path --version --help";

// A table, packed by hand.
// clang-format off
constexpr std::string_view kSubcommands[] = {
    "add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bundle",
    "cat-file", "check-attr", "check-ignore", "checkout", "cherry", "cherry-pick", "clean",
    "clone", "commit", "config", "count-objects", "describe", "diff", "diff-files",
    "diff-index", "diff-tree", "difftool", "fetch", "for-each-ref", "format-patch", "fsck", "gc",
    "grep", "hash-object", "help", "init", "log", "ls-files", "ls-remote", "ls-tree",
    "merge", "merge-base", "mv", "name-rev", "notes", "pull", "push", "range-diff", "rebase",
    "reflog", "remote", "reset", "restore", "rev-list", "rev-parse", "revert", "rm", "shortlog",
    "show", "show-branch", "show-ref", "sparse-checkout", "stash", "status", "submodule",
    "switch", "symbolic-ref", "tag", "update-index", "update-ref", "var", "version",
    "whatchanged", "worktree", "write-tree"};
// clang-format on

// Configuration whose value git runs as a command (or a program).
bool runs_value(std::string_view key) {
  // A table, packed by hand.
  // clang-format off
  static constexpr std::string_view kKeys[] = {
      "core.sshcommand", "core.pager",   "core.editor",        "core.askpass",
      "core.fsmonitor",  "core.gitproxy", "core.alternaterefscommand", "sequence.editor",
      "diff.external",   "credential.helper", "gpg.program",  "uploadpack.packobjectshook",
      "web.browser",     "sendemail.smtpserver", "ssh.variant"};
  // clang-format on
  if (std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys)) return true;
  const auto first = key.find('.');
  const auto last = key.rfind('.');
  const std::string_view section = key.substr(0, first);
  const std::string_view name = key.substr(last + 1);
  return section == "pager" || (section == "diff" && (name == "textconv" || name == "command")) ||
         (section == "merge" && name == "driver") ||
         (section == "filter" && (name == "clean" || name == "smudge" || name == "process")) ||
         (section == "credential" && name == "helper") || (section == "gpg" && name == "program") ||
         (section == "remote" && (name == "uploadpack" || name == "receivepack")) ||
         ((section == "mergetool" || section == "difftool" || section == "browser" ||
           section == "man") &&
          (name == "cmd" || name == "path"));
}

// Configuration that changes nothing git runs or touches outside the repository.
bool harmless_key(std::string_view key) {
  // A table, packed by hand.
  // clang-format off
  static constexpr std::string_view kSections[] = {"user.", "color.", "advice.", "column.",
                                                   "i18n.", "status.", "log.", "format."};
  // clang-format on
  static constexpr std::string_view kKeys[] = {
      "core.quotepath",     "core.autocrlf",        "core.safecrlf",
      "core.filemode",      "core.ignorecase",      "core.abbrev",
      "init.defaultbranch", "pull.rebase",          "pull.ff",
      "push.default",       "push.autosetupremote", "merge.conflictstyle",
      "merge.ff",           "diff.renames",         "diff.algorithm",
      "diff.colormoved",    "safe.directory",       "commit.gpgsign",
      "tag.sort",           "branch.sort",          "fetch.prune",
      "rebase.autostash",   "rebase.autosquash",    "gc.auto",
      "maintenance.auto",   "protocol.version",     "core.pager.color"};
  return std::any_of(std::begin(kSections), std::end(kSections),
                     [&](std::string_view s) { return key.starts_with(s); }) ||
         std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

// Subcommand options that run something (C), write (W) or read (R) a
// file; git's parse-options takes any unique prefix of a long option.
struct GitOption {
  std::string_view name;
  char effect;
};
// A table, packed by hand.
// clang-format off
constexpr GitOption kLongOptions[] = {
    {"output", 'W'},     {"output-directory", 'W'}, {"exec", 'C'},      {"extcmd", 'C'},
    {"upload-pack", 'C'}, {"receive-pack", 'C'},    {"file", 'R'},      {"template", 'R'},
    {"separate-git-dir", 'W'}, {"open-files-in-pager", 'C'}, {"config", 'S'}, {"tool", 'U'},
};
// clang-format on

}  // namespace

void CommandMapper::git_config(const std::string& entry, const std::string& via) {
  const auto eq = entry.find('=');
  std::string key = entry.substr(0, eq);
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::string value = eq == std::string::npos ? "" : entry.substr(eq + 1);
  if (harmless_key(key)) return;
  if (key.starts_with("alias.")) {
    if (value.starts_with('!')) {
      unanalysable(via + " -c " + key + " is an alias that runs a shell command");
      nest(value.substr(1), via + " alias " + key.substr(6));
    } else {
      unanalysable(via + " -c " + key + " is an alias for another git command");
    }
    return;
  }
  if (runs_value(key)) {
    unanalysable(via + " -c " + key + " names a command git runs");
    if (!value.empty()) nest(value, via + " -c " + key);
    return;
  }
  if (key.starts_with("include") || key.starts_with("protocol.") || key == "core.hookspath") {
    unanalysable(via + " -c " + key + " lets git run what other configuration names");
    runs_unknown(via + " -c " + key + " lets git run what other configuration names");
    return;
  }
  unanalysable(via + " -c " + key + " is configuration holdfast does not map");
}

void CommandMapper::git_environment_config(std::size_t index, const std::string& name,
                                           const std::string& value) {
  constexpr std::string_view kValue = "GIT_CONFIG_VALUE_";
  if (!name.starts_with(kValue)) {
    if (name.starts_with("GIT_CONFIG_KEY_") || name == "GIT_CONFIG_COUNT") return;
    // GIT_CONFIG_PARAMETERS (git's own quoting), GIT_CONFIG_GLOBAL and
    // GIT_CONFIG_SYSTEM (files): configuration holdfast does not read.
    runs_unknown("the environment variable " + name + " hands git configuration it may run");
    return;
  }
  // The key is the GIT_CONFIG_KEY_<n> given on the same line; without it,
  // the value may be any key's, so it counts as a command git may run.
  const std::string key_name = "GIT_CONFIG_KEY_" + name.substr(kValue.size());
  for (std::size_t k = 0; k < words_.size() && is_assignment(*raw_[k]); ++k) {
    const std::string& text = words_[k].text;
    if (!text.starts_with(key_name + "=")) continue;
    if (words_[k].dynamic || words_[index].dynamic) {
      runs_unknown("git configuration from the environment is computed");
      return;
    }
    git_config(text.substr(key_name.size() + 1) + "=" + value, name);
    return;
  }
  if (words_[index].dynamic) {
    runs_unknown(name + " is computed git configuration");
  } else if (!value.empty()) {
    nest(value, name + " (configuration git may run)");
  }
}

void CommandMapper::map_git(std::size_t i, const std::string& via) {
  static const OptionTable kGlobals = compile_options(kGlobalOptions, ParseStyle::exact);
  const Parsed globals = parse_args(words_, i + 1, kGlobals, true);
  for (const std::string& unknown : globals.unknown) {
    unanalysable(via + " option " + unknown + " is not one holdfast maps");
  }
  option_effects(globals, via);
  const std::vector<std::string> saved_cwds = state_.cwds;
  for (const Option& option : globals.options) {
    if (option.name == "c") {
      if (option.word >= 0 && words_[static_cast<std::size_t>(option.word)].dynamic) {
        unanalysable(via + " -c sets computed configuration");
        runs_unknown(via + " -c sets computed configuration");
      }
      git_config(option.value, via);
    } else if (option.name == "C" && option.word >= 0) {
      // git -C DIR: relative paths start there.
      const Expanded& dir = words_[static_cast<std::size_t>(option.word)];
      if (dir.dynamic) {
        state_.cwd_unknown = true;
      } else {
        for (std::string& cwd : state_.cwds) cwd = normalize_path(dir.text, cwd);
      }
    }
  }
  const std::size_t sub = globals.end;
  if (sub >= words_.size()) {
    state_.cwds = saved_cwds;
    return;
  }
  const std::string& name = words_[sub].text;
  if (words_[sub].dynamic ||
      std::find(std::begin(kSubcommands), std::end(kSubcommands), name) == std::end(kSubcommands)) {
    unanalysable(via + " " + name + " is not a subcommand holdfast maps (an alias or a git-" +
                 name + " program runs whatever it names)");
    if (words_[sub].dynamic) runs_unknown(via + " runs a computed subcommand");
  }
  std::vector<std::size_t> operands;
  bool options_done = false;
  for (std::size_t k = sub + 1; k < words_.size(); ++k) {
    const Expanded& w = words_[k];
    const std::string& t = w.text;
    if (options_done || !t.starts_with('-') || t == "-") {
      operands.push_back(k);
      continue;
    }
    if (t == "--") {
      options_done = true;
      continue;
    }
    if (w.dynamic) {
      unanalysable(via + " " + name + " has a computed option (" + w.why + ")");
      runs_unknown(via + " " + name + " has a computed option (" + w.why + ")");
      continue;
    }
    // Short options that run or write, per subcommand.
    char effect = 0;
    std::size_t value_word = SIZE_MAX;
    std::size_t offset = 0;
    if (!t.starts_with("--")) {
      const char c = t[1];
      if ((name == "rebase" && c == 'x') || (name == "difftool" && c == 'x') ||
          (name == "clone" && c == 'u') || (name == "grep" && c == 'O')) {
        effect = 'C';
      } else if ((name == "format-patch" && c == 'o') || (name == "archive" && c == 'o')) {
        effect = 'W';
      } else if (((name == "commit" || name == "tag" || name == "notes") &&
                  (c == 'F' || c == 't')) ||
                 (name == "config" && c == 'f')) {
        effect = 'R';
      } else if (name == "clone" && c == 'c') {
        effect = 'S';
      } else if (name == "difftool" && c == 't') {
        effect = 'U';
      }
      if (effect != 0) {
        if (t.size() > 2) {
          value_word = k;
          offset = 2;
        } else if (!(name == "grep" && c == 'O') && k + 1 < words_.size()) {
          value_word = ++k;
        }
      }
    } else {
      const auto eq = t.find('=');
      const std::string_view typed =
          std::string_view(t).substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      for (const GitOption& option : kLongOptions) {
        if (typed.empty() || !option.name.starts_with(typed)) continue;
        effect = option.effect;
        if (eq != std::string::npos) {
          value_word = k;
          offset = eq + 1;
        } else if (option.name != "open-files-in-pager" && k + 1 < words_.size()) {
          value_word = ++k;
        }
        break;
      }
    }
    if (effect == 0) continue;
    const std::string shown = via + " " + name + " " + t;
    if (value_word == SIZE_MAX) {
      if (effect == 'C') {
        unanalysable(shown + " runs a pager or tool of git's choosing");
      }
      continue;
    }
    const Expanded& value = words_[value_word];
    const std::string text = value.text.substr(std::min(offset, value.text.size()));
    switch (effect) {
      case 'W':
        add_path(OpKind::write, value_word, offset, via);
        break;
      case 'R':
        add_path(OpKind::read, value_word, offset, via);
        break;
      case 'S':
        git_config(text, via);
        break;
      case 'U':
        unanalysable(shown + " runs a tool holdfast does not map");
        break;
      case 'C':
        unanalysable(shown + " runs a command");
        if (value.dynamic) {
          runs_unknown(shown + " runs a computed command");
        } else {
          nest(text, shown);
        }
        break;
    }
  }
  if (name == "diff" || name == "apply" || name == "am" || name == "hash-object") {
    // git diff reads any path it is given (outside a repository, or with
    // --no-index); patches and mailboxes are files too.
    for (std::size_t k : operands) add_path(OpKind::read, k, 0, via);
  } else if (name == "init" && !operands.empty()) {
    add_path(OpKind::write, operands.back(), 0, via, Scope::subtree);
  } else if (name == "clone" && operands.size() >= 2) {
    add_path(OpKind::write, operands.back(), 0, via, Scope::subtree);
  } else if (name == "worktree" && operands.size() >= 2 && words_[operands[0]].text == "add") {
    add_path(OpKind::write, operands[1], 0, via, Scope::subtree);
  } else if (name == "bisect" && !operands.empty() && words_[operands[0]].text == "run") {
    unanalysable(via + " bisect run runs a command");
    run_words(operands[0] + 1, words_.size(), "", via + " bisect run");
  } else if (name == "submodule" && !operands.empty() && words_[operands[0]].text == "foreach") {
    unanalysable(via + " submodule foreach runs a command");
    std::string line;
    for (std::size_t k = operands[0] + 1; k < words_.size(); ++k) line += words_[k].text + " ";
    nest(line, via + " submodule foreach");
  } else if (name == "config" && operands.size() >= 2) {
    // Setting a key: a value git runs later counts now.
    git_config(words_[operands[0]].text + "=" + words_[operands[1]].text, via + " config");
  }
  state_.cwds = saved_cwds;
}

}  // namespace holdfast::gatekeeper::shell::detail
