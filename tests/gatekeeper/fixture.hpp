// A real directory tree for the gatekeeper tests: a workspace, a home with
// ~/.ssh, a place outside both, a private tmp, and symlinks from the
// workspace into denied places. Removed at the end of the test program.
#pragma once

#include <filesystem>
#include <string>

namespace holdfast::gatekeeper::testing {

struct Tree {
  std::string root, workspace, home, outside, tmp;
};

// Created once per test program.
const Tree& tree();

// @W workspace, @H home, @O outside, @R root, @T private tmp.
std::string expand_placeholders(std::string text);

}  // namespace holdfast::gatekeeper::testing
