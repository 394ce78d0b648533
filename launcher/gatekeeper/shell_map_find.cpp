// find PATH... EXPRESSION: the start points are read (listed); the
// expression's actions write (-fprint), delete (-delete) and run commands
// (-exec, -execdir, -ok, -okdir) on every match. A primary holdfast does
// not know is ask.
#include <algorithm>
#include <array>

#include "launcher/gatekeeper/shell_mapper.hpp"

namespace holdfast::gatekeeper::shell::detail {

namespace {

// Primaries without an argument.
// A table, packed by hand.
// clang-format off
constexpr std::string_view kNoArgument[] = {
    "-depth", "-d", "-mount", "-xdev", "-noleaf", "-ignore_readdir_race",
    "-noignore_readdir_race", "-daystart", "-follow", "-empty", "-executable", "-readable",
    "-writable", "-nouser", "-nogroup", "-true", "-false", "-print", "-print0", "-ls", "-prune",
    "-quit", "-o", "-or", "-a", "-and", "-not", "!", "(", ")", ",", "-help", "--help",
    "-version", "--version", "-warn", "-nowarn", "-delete"};
// clang-format on

// Primaries with one argument that names no file to touch (-newer and
// friends only look at a file's times).
// A table, packed by hand.
// clang-format off
constexpr std::string_view kOneArgument[] = {
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
    "-regextype", "-type", "-xtype", "-size", "-perm", "-user", "-group", "-uid", "-gid",
    "-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin", "-newer", "-anewer", "-cnewer",
    "-samefile", "-inum", "-links", "-maxdepth", "-mindepth", "-lname", "-ilname", "-fstype",
    "-used", "-context", "-printf"};
// clang-format on

bool in(std::span<const std::string_view> list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

bool is_newer_xy(std::string_view t) {
  return t.size() == 8 && t.starts_with("-newer") &&
         std::string_view("amctB").find(t[6]) != std::string_view::npos &&
         std::string_view("amctBt").find(t[7]) != std::string_view::npos;
}

}  // namespace

void CommandMapper::map_find(std::size_t i, const std::string& via) {
  std::size_t k = i + 1;
  bool follows = false;
  // Leading -H -L -P -D debugopts -Olevel.
  while (k < words_.size()) {
    const std::string& t = words_[k].text;
    if (t == "-H" || t == "-P" || t.starts_with("-O")) {
      ++k;
    } else if (t == "-L") {
      follows = true;
      ++k;
    } else if (t == "-D") {
      k += 2;
    } else {
      break;
    }
  }
  std::vector<std::size_t> roots;
  for (; k < words_.size(); ++k) {
    const std::string& t = words_[k].text;
    if (!words_[k].dynamic &&
        (t.starts_with("-") || t == "(" || t == "!" || t == ")" || t == ",")) {
      break;
    }
    roots.push_back(k);
  }
  follows = follows || std::any_of(words_.begin() + static_cast<std::ptrdiff_t>(k), words_.end(),
                                   [](const Expanded& w) { return w.text == "-follow"; });
  // find reads every directory below its start points, whatever it prints.
  const Scope walked = follows ? Scope::pattern : Scope::subtree;
  for (std::size_t root : roots) add_path(OpKind::read, root, 0, via, walked);
  if (roots.empty()) add_cwd(OpKind::read, via, walked);
  // What an action touches: anything below the roots (and, with -L,
  // anything their symlinks lead to).
  auto below_roots = [&](OpKind kind) {
    const Scope scope = follows ? Scope::pattern : Scope::subtree;
    if (roots.empty()) add_cwd(kind, via, scope);
    for (std::size_t root : roots) add_path(kind, root, 0, via, scope);
  };
  for (; k < words_.size(); ++k) {
    const std::string& t = words_[k].text;
    if (words_[k].dynamic) {
      unanalysable("the find expression has a computed word (" + words_[k].why + ")");
      runs_unknown("the find expression has a computed word (" + words_[k].why + ")");
      continue;
    }
    if (t == "-follow") follows = true;
    if (t == "-delete") {
      below_roots(OpKind::edit);
    } else if (t == "-exec" || t == "-execdir" || t == "-ok" || t == "-okdir") {
      std::size_t end = k + 1;
      while (end < words_.size() && words_[end].text != ";" &&
             !(words_[end].text == "+" && end > k + 1 && words_[end - 1].text == "{}")) {
        ++end;
      }
      // The command, with every {} a path find found.
      std::string line;
      for (std::size_t w = k + 1; w < end; ++w) {
        if (!line.empty()) line += ' ';
        line += words_[w].text.find("{}") != std::string::npos ? std::string(kEachMatch)
                                                               : line_from(w, w + 1);
      }
      unanalysable("find " + t + " runs a command on every match");
      if (!line.empty()) nest(line, "find " + t);
      k = end;
    } else if (t == "-fprint" || t == "-fprint0" || t == "-fls" || t == "-fprintf") {
      if (k + 1 < words_.size()) add_path(OpKind::write, k + 1, 0, via);
      k += t == "-fprintf" ? 2 : 1;
    } else if (t == "-files0-from") {
      if (k + 1 < words_.size()) add_path(OpKind::read, k + 1, 0, via);
      unanalysable("find -files0-from reads its start points from a file");
      add_anywhere(OpKind::read, via);
      ++k;
    } else if (in(kOneArgument, t) || is_newer_xy(t)) {
      ++k;
    } else if (!in(kNoArgument, t)) {
      unanalysable("find " + t + " is not a primary holdfast maps");
    }
  }
}

}  // namespace holdfast::gatekeeper::shell::detail
