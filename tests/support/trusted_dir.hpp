// Places only root can change, and local users made for one test: what the
// tests of holdfast's trust boundaries need besides a temp directory.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

#include "tests/support/temp_dir.hpp"

namespace holdfast::testing {

// A root-owned 0755 directory in a chain of root-owned directories no one
// else can write (under /run, else /var/lib): where an operator installs a
// program holdfast will agree to execute (a fake bubblewrap, here). Needs
// root; removed with its content.
class TrustedDir {
 public:
  TrustedDir();
  const std::filesystem::path& path() const { return dir_.path(); }
  // Writes `text` to NAME in it, root's, mode 0755; returns its path.
  std::filesystem::path program(const std::string& name, const std::string& text) const;

 private:
  TempDir dir_;
};

// A real local user made for the test with useradd (its own group, no home
// directory, no login shell), removed with userdel when the test ends.
// Needs root.
class TestUser {
 public:
  TestUser();
  ~TestUser();
  TestUser(const TestUser&) = delete;
  TestUser& operator=(const TestUser&) = delete;
  const std::string& name() const { return name_; }
  uid_t uid() const { return uid_; }
  gid_t gid() const { return gid_; }

 private:
  std::string name_;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
};

}  // namespace holdfast::testing
