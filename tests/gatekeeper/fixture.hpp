// A real directory tree for the gatekeeper tests: a workspace, a home with
// ~/.ssh, a place outside both, a private tmp, and symlinks from the
// workspace into denied places. Removed at the end of the test program.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "launcher/gatekeeper/decide.hpp"

namespace holdfast::gatekeeper::testing {

struct Tree {
  std::string root, workspace, home, outside, tmp;
};

// Created once per test program.
const Tree& tree();

// @W workspace, @H home, @O outside, @R root, @T private tmp.
std::string expand_placeholders(std::string text);

// Rules from their texts, placeholders expanded.
std::vector<Rule> parse_rules(const std::vector<std::string>& texts);

// A context on the tree: its workspace, home and private tmp, the cwd
// given (placeholders expanded), real symlink resolution; no rules.
Context tree_context(const std::string& cwd);

// Writes a file, making its directories.
void write_file(const std::filesystem::path& path, const std::string& text);

}  // namespace holdfast::gatekeeper::testing
