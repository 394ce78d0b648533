// The bounded walk of a writable directory root, and what changed in it
// while a command ran.
//
// One breadth-first walk per root, nearest first, reading each directory
// once with getdents64 (no stat per entry unless the file system leaves
// d_type unknown), never following a symlink, never entering .git or
// node_modules, at most a budget of directories over all roots (the root's
// own listing is always read; a directory an earlier root's walk read is
// not read again; pseudo file systems such as /proc, /sys and cgroups are
// not entered). From the names alone it finds:
//   * the ".git" entries (directories and regular files) below the root;
//   * the protected names (every-directory ones) in every directory read,
//     the root's included;
//   * the directories with the bare-repository layout: HEAD (a file or a
//     symlink), objects/ and refs/ side by side, which git takes for a
//     repository when no .git is found ("implicit bare repository").
// The launch walks before the command starts (host_facts.hpp) and again
// after it ends; compare_scans() tells what appeared.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "launcher/sandbox/protected_names.hpp"

namespace holdfast::sandbox {

// How a walk that meets the end of its budget ends.
enum class WalkEnd {
  // The project (the workspace, and writable roots inside it): what lies
  // past the budget would stay writable, so the walk is incomplete and the
  // launch is refused (TreeScan::complete).
  must_finish,
  // A writable root wider than the project (":root", ":home", a shared
  // directory): it is walked with what the budget has left, at most
  // kWideRootWalk directories, nearest levels first, and how deep it got
  // is recorded (TreeScan::partial). Such a root gives the command the
  // operator's own files (~/.local/bin, /usr/bin) whatever the names;
  // refusing every launch under it would make the policy unusable without
  // closing that.
  best_effort,
};

// A best-effort root whose walk the budget ended.
struct PartialWalk {
  std::string root;
  // Every entry this many levels below the root, or fewer, was seen
  // (breadth first: the directories above that level were all read).
  std::size_t depth = 0;
  bool operator==(const PartialWalk&) const = default;
};

struct TreeScan {
  std::vector<std::string> roots;     // canonical, in walk order
  std::set<std::string> best_effort;  // the roots walked WalkEnd::best_effort
  std::set<std::string> listed;       // directories read
  std::set<std::string> subdirs;      // every directory met in a directory read (read or not)
  std::vector<std::string> git;       // ".git" entries below the roots (not the roots' own)
  std::vector<std::string> names;     // protected names met, the roots' included
  std::vector<std::string> bare;      // directories read that have the bare layout
  std::size_t directories = 0;        // directories read
  bool complete = true;               // false: the budget ended a must_finish walk
  std::string unfinished;             // that walk's root
  std::vector<PartialWalk> partial;   // best_effort walks the budget ended
  bool operator==(const TreeScan&) const = default;
};

// Walks `root` (canonical, a directory) into `scan`, reading at most
// `budget` directories (the root always) and subtracting what it read.
// Directories gone, replaced or unreadable to this user are skipped.
void scan_tree(const std::string& root, const ProtectedNames& names, std::size_t& budget,
               TreeScan& scan, WalkEnd end = WalkEnd::must_finish);

// What appeared between two walks of the same roots with the same budget.
struct TreeChanges {
  std::vector<std::string> bare;   // bare layouts that were not there before
  std::vector<std::string> git;    // repositories (".git") created
  std::vector<std::string> names;  // protected names created
  bool operator==(const TreeChanges&) const = default;
  bool empty() const { return bare.empty() && git.empty() && names.empty(); }
};

// Pure. A path counts as created only where `before` can prove it: its
// directory was read before and did not hold it, or its directory did not
// exist then (a directory read before did not list it, nor one of its
// ancestors). What lies past where `before` reached is not reported.
TreeChanges compare_scans(const TreeScan& before, const TreeScan& after);

// Walks `before`'s roots again with `budget` and compares. An empty
// directory is not reported: it holds nothing to run (and another launch's
// empty mount point looks like one).
TreeChanges changes_since(const TreeScan& before, const ProtectedNames& names, std::size_t budget);

}  // namespace holdfast::sandbox
