// A temporary directory tree for tests that use real files; removed at the
// end of the test.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace holdfast::sandbox::testing {

class TempTree {
 public:
  explicit TempTree(const std::string& under = "/tmp") {
    std::string pattern = under + "/holdfast-sandbox-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = std::filesystem::canonical(pattern).string();
  }
  ~TempTree() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const std::string& root() const { return root_; }
  std::string path(const std::string& rel) const { return root_ + "/" + rel; }
  std::string dir(const std::string& rel) const {
    std::filesystem::create_directories(path(rel));
    return path(rel);
  }
  std::string file(const std::string& rel, const std::string& content = "content\n") const {
    std::filesystem::create_directories(std::filesystem::path(path(rel)).parent_path());
    std::ofstream(path(rel)) << content;
    return path(rel);
  }
  std::string symlink(const std::string& rel, const std::string& target) const {
    std::filesystem::create_symlink(target, path(rel));
    return path(rel);
  }

 private:
  std::string root_;
};

}  // namespace holdfast::sandbox::testing
