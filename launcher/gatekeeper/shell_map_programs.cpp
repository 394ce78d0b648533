// The programs' rows: options with effects, then each family's operands.
#include <algorithm>

#include "launcher/gatekeeper/path_match.hpp"
#include "launcher/gatekeeper/shell_mapper.hpp"
#include "launcher/gatekeeper/shell_scripts.hpp"
#include "launcher/gatekeeper/url_host.hpp"

namespace holdfast::gatekeeper::shell::detail {

namespace {

bool has_effect(const OptionTable& table, std::initializer_list<ValueEffect> effects) {
  auto in = [&](const OptionSpec& spec) {
    return std::find(effects.begin(), effects.end(), spec.effect) != effects.end();
  };
  return std::any_of(table.shorts.begin(), table.shorts.end(), in) ||
         std::any_of(table.longs.begin(), table.longs.end(), in);
}

bool is_awk_assignment(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  for (std::size_t k = 0; k < eq; ++k) {
    const char c = text[k];
    if (!(std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_') ||
        (k == 0 && std::isdigit(static_cast<unsigned char>(c)) != 0)) {
      return false;
    }
  }
  return true;
}

std::string join_path(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (!out.ends_with('/')) out += '/';
  return out + std::string(name);
}

std::string_view strip_trailing_slashes(std::string_view path) {
  while (path.size() > 1 && path.ends_with('/')) path.remove_suffix(1);
  return path;
}

}  // namespace

void CommandMapper::option_effects(const Parsed& parsed, const std::string& via) {
  for (const Option& option : parsed.options) {
    if (option.spec == nullptr) continue;
    const std::string shown = (option.name.size() == 1 ? "-" : "--") + option.name;
    switch (option.spec->effect) {
      case ValueEffect::none:
      case ValueEffect::special:
        break;
      case ValueEffect::read:
        add_option_path(OpKind::read, option, via);
        break;
      case ValueEffect::write:
        add_option_path(OpKind::write, option, via);
        break;
      case ValueEffect::edit:
        add_option_path(OpKind::edit, option, via);
        break;
      case ValueEffect::names_files:
        add_option_path(OpKind::read, option, via);
        unanalysable(via + " " + shown + " reads the names of more files from " + option.value);
        add_anywhere(OpKind::read, via);
        break;
      case ValueEffect::program:
        run_program(option, via);
        break;
      case ValueEffect::command:
        if (option.word >= 0 && words_[static_cast<std::size_t>(option.word)].dynamic) {
          unanalysable(via + " " + shown + " runs a computed command");
          runs_unknown(via + " " + shown + " runs a computed command");
        } else if (!option.value.empty()) {
          nest(option.value, via + " " + shown);
        }
        break;
      case ValueEffect::unknown:
        unanalysable(via + " " + shown + " has effects holdfast does not map");
        runs_unknown(via + " " + shown + " has effects holdfast does not map");
        break;
    }
  }
}

// An option whose effect holdfast does not know may run anything or touch
// any path (GNU programs grow options like --compress-program).
void CommandMapper::unknown_options(const Parsed& parsed, const std::string& via) {
  for (const std::string& unknown : parsed.unknown) {
    unanalysable(via + " option " + unknown + " is not one holdfast maps");
    hidden(via + " option " + unknown + ", whose effect holdfast does not know");
  }
}

void CommandMapper::apply_script(const ScriptEffects& effects, const std::string& via) {
  for (const auto& [kind, name] : effects.files) add_literal_path(kind, name, via);
  for (const std::string& command : effects.commands)
    nest(command, via + " runs `" + command + "`");
  for (const std::string& reason : effects.unknown) unanalysable(reason);
  if (!effects.runs_unknown.empty()) {
    unanalysable(effects.runs_unknown);
    runs_unknown(effects.runs_unknown);
  }
}

// bash evaluates an array subscript in a variable name as arithmetic, and
// arithmetic runs the command substitutions written in it: test -v
// 'a[$(cmd)]', unset, printf -v, declare, read.
void CommandMapper::check_subscripts(std::size_t index, const std::string& via) {
  const std::string& text = words_[index].text;
  const auto open = text.find('[');
  if (open == std::string::npos) return;
  const auto close = text.rfind(']');
  const std::string sub = text.substr(
      open + 1, close == std::string::npos || close < open ? std::string::npos : close - open - 1);
  if (sub == "@" || sub == "*" || (!sub.empty() && is_plain_arithmetic(sub))) return;
  unanalysable(via + " evaluates the array subscript [" + sub + "] as arithmetic");
  for (const std::string& body : substitutions_in(sub)) nest(body, via + " subscript");
}

void CommandMapper::check_arithmetic(std::size_t index, const std::string& via) {
  if (index >= words_.size()) return;
  const Expanded& word = words_[index];
  if (word.dynamic) {
    unanalysable(via + " evaluates " + word.text + " as arithmetic");
    return;
  }
  if (is_plain_arithmetic(word.text)) return;
  unanalysable(via + " evaluates " + word.text + " as arithmetic");
  for (const std::string& body : substitutions_in(word.text)) nest(body, via + " arithmetic");
}

void CommandMapper::map_test(std::size_t i, const std::string& via) {
  for (std::size_t k = i + 1; k < words_.size(); ++k) {
    const std::string& t = words_[k].text;
    if ((t == "-v" || t == "-R") && k + 1 < words_.size()) check_subscripts(k + 1, via);
    if (via == "[[" &&
        (t == "-eq" || t == "-ne" || t == "-lt" || t == "-le" || t == "-gt" || t == "-ge")) {
      check_arithmetic(k - 1, via);
      check_arithmetic(k + 1, via);
    }
  }
}

void CommandMapper::map_names(const Program& program, const Parsed& parsed,
                              const std::string& via) {
  const bool exported = program.name == "export" || find_option(parsed, {"x"}) != nullptr;
  for (std::size_t k : parsed.operands) {
    if (program.name == "let") {
      check_arithmetic(k, via);
      continue;
    }
    check_subscripts(k, via);
    if (words_[k].text.find('=') != std::string::npos) check_assignment(k, exported);
    for (const std::string& body : substitutions_in(words_[k].text)) nest(body, via);
  }
}

void CommandMapper::map_sed(const Parsed& parsed, const std::string& via) {
  const auto& ops = parsed.operands;
  std::string script;
  bool script_given = false;
  for (const Option& option : parsed.options) {
    if (option.name == "e" || option.name == "expression") {
      script_given = true;
      if (option.word >= 0 && words_[static_cast<std::size_t>(option.word)].dynamic) {
        runs_unknown("the sed script is computed");
      }
      script += option.value + "\n";
    } else if (option.name == "f" || option.name == "file") {
      script_given = true;
      add_option_path(OpKind::read, option, via);
      unanalysable("the sed script is in the file " + option.value);
      runs_unknown("the sed script is in the file " + option.value);
    }
  }
  std::size_t first_file = 0;
  if (!script_given) {
    if (ops.empty()) return;
    if (words_[ops[0]].dynamic) {
      unanalysable("the sed script is computed");
      runs_unknown("the sed script is computed");
    }
    script = words_[ops[0]].text;
    first_file = 1;
  }
  apply_script(sed_script_effects(script), via);
  const Option* in_place = find_option(parsed, {"i", "in-place"});
  for (std::size_t k = first_file; k < ops.size(); ++k) {
    add_path(in_place != nullptr ? OpKind::edit : OpKind::read, ops[k], 0, via);
    if (in_place == nullptr || in_place->value.empty()) continue;
    // The backup: FILE+SUFFIX, or SUFFIX with * as the file's name (in
    // the file's directory unless it names one).
    const std::string file(strip_trailing_slashes(words_[ops[k]].text));
    const std::string_view name = basename_of(file);
    std::string backup = in_place->value;
    if (backup.find('*') == std::string::npos) {
      backup = file + backup;
    } else {
      for (auto at = backup.find('*'); at != std::string::npos; at = backup.find('*', at)) {
        backup.replace(at, 1, name);
        at += name.size();
      }
      if (backup.find('/') == std::string::npos) {
        backup = join_path(file.substr(0, file.size() - name.size()), backup);
      }
    }
    add_literal_path(OpKind::write, backup, via);
  }
}

void CommandMapper::map_awk(const Parsed& parsed, const std::string& via) {
  const auto& ops = parsed.operands;
  bool program_given = false;
  bool in_place = false;
  for (const Option& option : parsed.options) {
    const std::string& n = option.name;
    if (n == "f" || n == "file" || n == "E" || n == "exec" ||
        ((n == "i" || n == "include") && option.value != "inplace")) {
      program_given = program_given || !(n == "i" || n == "include");
      add_option_path(OpKind::read, option, via);
      unanalysable("the awk program is in the file " + option.value);
      runs_unknown("the awk program is in the file " + option.value);
    } else if (n == "i" || n == "include") {
      in_place = true;
    } else if (n == "e" || n == "source") {
      program_given = true;
      apply_script(awk_program_effects(option.value), via);
    }
  }
  std::size_t first_file = 0;
  if (!program_given) {
    if (ops.empty()) return;
    if (words_[ops[0]].dynamic) {
      unanalysable("the awk program is computed");
      runs_unknown("the awk program is computed");
    }
    apply_script(awk_program_effects(words_[ops[0]].text), via);
    first_file = 1;
  }
  for (std::size_t k = first_file; k < ops.size(); ++k) {
    if (is_awk_assignment(words_[ops[k]].text)) continue;  // var=value, not a file
    add_path(in_place ? OpKind::edit : OpKind::read, ops[k], 0, via);
  }
}

void CommandMapper::map_jq(const Parsed& parsed, const std::string& via) {
  const auto& ops = parsed.operands;
  std::size_t first_file = 0;
  if (const Option* file = find_option(parsed, {"f", "from-file"})) {
    add_option_path(OpKind::read, *file, via);
    unanalysable("the jq filter is in the file " + file->value + " (its imports are not seen)");
  } else if (!ops.empty()) {
    const ScriptEffects effects = jq_filter_effects(words_[ops[0]].text);
    if (words_[ops[0]].dynamic) unanalysable("the jq filter is computed");
    apply_script(effects, via);
    first_file = 1;
  }
  // After --args or --jsonargs, jq takes the operands as values ($ARGS),
  // not files (jq 1.6 main.c): the first such word that is an option, not
  // an option's value or an operand after `--`.
  std::size_t values_from = SIZE_MAX;
  for (std::size_t w = 0; w < words_.size() && values_from == SIZE_MAX; ++w) {
    const std::string& t = words_[w].text;
    if (words_[w].dynamic || (t != "--args" && t != "--jsonargs")) continue;
    const bool is_value =
        std::any_of(parsed.options.begin(), parsed.options.end(), [&](const Option& o) {
          return o.word == static_cast<int>(w) || o.word2 == static_cast<int>(w);
        });
    if (!is_value && std::find(ops.begin(), ops.end(), w) == ops.end()) values_from = w;
  }
  for (std::size_t k = first_file; k < ops.size(); ++k) {
    if (ops[k] < values_from) add_path(OpKind::read, ops[k], 0, via);
  }
}

void CommandMapper::map_grep(const Program& program, const Parsed& parsed, const std::string& via) {
  const auto& ops = parsed.operands;
  const bool is_rg = program.family == Family::rg;
  const bool follows =
      find_option(parsed, {"R", "dereference-recursive", "L", "follow"}) != nullptr;
  const Option* directories = find_option(parsed, {"d", "directories"});
  const bool recursive = is_rg || follows || find_option(parsed, {"r", "recursive"}) != nullptr ||
                         (directories != nullptr && directories->value == "recurse");
  const bool no_pattern =
      find_option(parsed, {"e", "f", "regexp", "file", "files", "type-list"}) != nullptr;
  const std::size_t first_file = no_pattern ? 0 : 1;
  const Scope scope = !recursive ? Scope::exact : follows ? Scope::pattern : Scope::subtree;
  if (recursive && ops.size() <= first_file) add_cwd(OpKind::read, via, scope);
  for (std::size_t k = first_file; k < ops.size(); ++k)
    add_path(OpKind::read, ops[k], 0, via, scope);
}

void CommandMapper::map_copy(const Program& program, const Parsed& parsed, const std::string& via) {
  const auto& ops = parsed.operands;
  const bool move = program.family == Family::move;
  const OpKind source_kind = move ? OpKind::edit : OpKind::read;
  const bool recursive =
      move || (program.name == "cp" &&
               find_option(parsed, {"r", "R", "a", "recursive", "archive"}) != nullptr);
  const bool follows = program.name == "cp" && find_option(parsed, {"L", "dereference"}) != nullptr;
  const Scope scope = !recursive ? Scope::exact : follows ? Scope::pattern : Scope::subtree;
  const bool no_target_dir = find_option(parsed, {"T", "no-target-directory"}) != nullptr;
  if (program.name == "install" && find_option(parsed, {"d", "directory"})) {
    for (std::size_t k : ops) add_path(OpKind::write, k, 0, via);
    return;
  }
  const Option* target = find_option(parsed, {"t", "target-directory"});
  std::vector<std::size_t> sources(ops.begin(), ops.end());
  std::string dest;
  if (target != nullptr) {
    dest = target->value;
  } else if (!ops.empty()) {
    sources.pop_back();
    if (!no_target_dir && !words_[ops.back()].dynamic) dest = words_[ops.back()].text;
  }
  for (std::size_t k : sources) add_path(source_kind, k, 0, via, scope);
  if (target == nullptr && !ops.empty()) {
    add_path(OpKind::write, ops.back(), 0, via, recursive ? scope : Scope::exact);
  }
  for (std::size_t k : sources) {
    // Into a directory: DEST/NAME is what is written.
    if (!dest.empty() && !words_[k].dynamic && !words_[k].pattern) {
      const std::string_view name = basename_of(strip_trailing_slashes(words_[k].text));
      add_literal_path(OpKind::write, join_path(dest, name), via, recursive ? scope : Scope::exact);
    }
  }
}

bool CommandMapper::map_family(const Program& program, std::size_t i) {
  const std::string via(program.name);
  if (program.family == Family::literal) return true;
  if (program.family == Family::find) {
    map_find(i, via);
    return true;
  }
  if (program.family == Family::git) {
    // git's own effects (hooks, the repository's configuration) are not
    // mapped: without a Bash rule it asks. What its arguments run, read
    // and write is.
    map_git(i, via);
    hidden("git, which runs the repository's hooks and the programs its configuration names");
    result_.arguments_mapped = true;
    return false;
  }
  if (program.family == Family::test) {
    map_test(i, via);
    return true;
  }
  const Parsed p = parse_args(words_, i + 1, program.options, false);
  unknown_options(p, via);
  const bool no_effect = program.family == Family::none || program.family == Family::no_operands ||
                         program.family == Family::names || program.family == Family::printf_;
  for (std::size_t k : p.operands) {
    const Expanded& w = words_[k];
    if (no_effect || !w.dynamic) continue;
    if (w.splits) unanalysable("the word " + w.text + " may split into several arguments");
    if (w.text.starts_with('$') || w.text.starts_with('`')) {
      unanalysable("the word " + w.text + " may be any option of " + via);
      if (has_effect(program.options,
                     {ValueEffect::program, ValueEffect::command, ValueEffect::unknown})) {
        runs_unknown("the word " + w.text + " may be an option of " + via + " that runs a program");
      }
    }
  }
  option_effects(p, via);
  const auto& ops = p.operands;
  auto all = [&](OpKind kind, std::size_t from, Scope scope) {
    for (std::size_t k = from; k < ops.size(); ++k) add_path(kind, ops[k], 0, via, scope);
  };
  switch (program.family) {
    case Family::literal:
    case Family::find:
    case Family::git:
    case Family::test:
    case Family::none:
      break;
    case Family::no_operands:
      if (!ops.empty()) unanalysable(via + " with an operand changes something");
      break;
    case Family::names:
      map_names(program, p, via);
      break;
    case Family::printf_:
      if (const Option* v = find_option(p, {"v"}); v != nullptr && v->word >= 0) {
        check_subscripts(static_cast<std::size_t>(v->word), via + " -v");
      }
      break;
    case Family::read_all: {
      // A recursive listing reads every directory below its operands (ls -R
      // ~ lists ~/.ssh); du always walks the whole tree. -L follows links.
      const bool recursive =
          program.name == "du" ||
          (program.name == "ls" && find_option(p, {"R", "recursive"}) != nullptr) ||
          (program.name == "diff" && find_option(p, {"r", "recursive"}) != nullptr);
      const bool follows = find_option(p, {"L", "dereference"}) != nullptr;
      const Scope scope = !recursive ? Scope::exact : follows ? Scope::pattern : Scope::subtree;
      if (ops.empty() && (program.name == "ls" || program.name == "du")) {
        add_cwd(OpKind::read, via, scope);
      }
      all(OpKind::read, 0, scope);
      if (find_option(p, {"c", "check"}) != nullptr && program.name.ends_with("sum")) {
        unanalysable(via + " --check reads the files its list names");
        add_anywhere(OpKind::read, via);
      }
      break;
    }
    case Family::grep:
    case Family::rg:
      map_grep(program, p, via);
      break;
    case Family::sed:
      map_sed(p, via);
      break;
    case Family::awk:
      map_awk(p, via);
      break;
    case Family::jq:
      map_jq(p, via);
      break;
    case Family::write_all:
      all(OpKind::write, 0, Scope::exact);
      break;
    case Family::edit_all: {
      const bool recursive = find_option(p, {"r", "R", "recursive"}) != nullptr;
      all(OpKind::edit, 0, recursive ? Scope::subtree : Scope::exact);
      if (program.name == "rmdir" && find_option(p, {"p", "parents"}) != nullptr) {
        // rmdir -p a/b/c also removes a/b and a (as written: no "..").
        for (std::size_t k : ops) {
          if (words_[k].dynamic || words_[k].pattern) continue;  // add_path asked already
          std::string_view path = strip_trailing_slashes(words_[k].text);
          for (auto slash = path.rfind('/'); slash != std::string_view::npos && slash > 0;
               slash = path.rfind('/')) {
            path = strip_trailing_slashes(path.substr(0, slash));
            add_literal_path(OpKind::edit, std::string(path), via);
          }
        }
      }
      break;
    }
    case Family::chmod:
    case Family::edit_after_first: {
      static constexpr std::string_view kModes[] = {"r", "w", "x", "X", "s", "t", "u", "g", "o",
                                                    "a", "0", "1", "2", "3", "4", "5", "6", "7"};
      const bool mode_as_option =
          program.family == Family::chmod && find_option(p, std::span(kModes)) != nullptr;
      const bool reference = find_option(p, {"reference"}) != nullptr;
      const bool follows = find_option(p, {"L"}) != nullptr;
      const bool recursive = find_option(p, {"R", "recursive"}) != nullptr;
      const Scope scope = !recursive ? Scope::exact : follows ? Scope::pattern : Scope::subtree;
      all(OpKind::edit, mode_as_option || reference ? 0 : 1, scope);
      break;
    }
    case Family::copy:
    case Family::move:
      map_copy(program, p, via);
      break;
    case Family::read_then_write:
      if (!ops.empty()) add_path(OpKind::read, ops[0], 0, via);
      if (ops.size() > 1) add_path(OpKind::write, ops[1], 0, via);
      break;
    case Family::dd:
      for (std::size_t k : ops) {
        if (words_[k].text.starts_with("if=")) add_path(OpKind::read, k, 3, via);
        if (words_[k].text.starts_with("of=")) add_path(OpKind::write, k, 3, via);
      }
      break;
    case Family::curl:
    case Family::wget:
      map_fetch(program, p, via);
      break;
  }
  return true;
}

void CommandMapper::map_fetch(const Program& program, const Parsed& p, const std::string& via) {
  const bool is_curl = program.family == Family::curl;
  for (const Option& option : p.options) {
    const std::string& n = option.name;
    if (is_curl) {
      if ((n == "d" || n.starts_with("data") || n == "json") && option.value.starts_with("@")) {
        Option file = option;
        file.offset += 1;
        add_option_path(OpKind::read, file, via);
      } else if ((n == "F" || n == "form") && (option.value.find("=@") != std::string::npos ||
                                               option.value.find("=<") != std::string::npos)) {
        Option file = option;
        const auto at = option.value.find("=@") != std::string::npos ? option.value.find("=@")
                                                                     : option.value.find("=<");
        file.offset += at + 2;
        add_option_path(OpKind::read, file, via);
      } else if (n == "url" && option.word >= 0) {
        add_fetch(static_cast<std::size_t>(option.word), option.offset, via);
      } else if (n == "O" || n == "remote-name" || n == "remote-name-all") {
        unanalysable("curl -O writes a file named by the server");
        add_cwd(OpKind::write, via, Scope::subtree);
      }
    } else if (n == "i" || n == "input-file") {
      add_option_path(OpKind::read, option, via);
      unanalysable("wget -i fetches URLs listed in a file");
    }
  }
  if (!is_curl && find_option(p, {"O", "output-document", "P", "directory-prefix"}) == nullptr) {
    // wget saves into the current directory under a name from the URL.
    add_cwd(OpKind::write, via, Scope::subtree);
  }
  for (std::size_t k : p.operands) add_fetch(k, 0, via);
}

void CommandMapper::add_fetch(std::size_t index, std::size_t offset, const std::string& via) {
  if (index >= words_.size()) return;
  const Expanded& e = words_[index];
  if (e.dynamic) {
    unanalysable("the URL " + e.text + " depends on " + e.why);
    return;
  }
  const std::string host =
      url_host(std::string_view(e.text).substr(std::min(offset, e.text.size())));
  if (host.empty()) {
    unanalysable("no host in the URL " + e.text);
    return;
  }
  result_.ops.push_back({OpKind::fetch, host, via, ""});
}

}  // namespace holdfast::gatekeeper::shell::detail
