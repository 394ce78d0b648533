#include "tests/gatekeeper/fixture.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "launcher/gatekeeper/symlinks.hpp"

namespace holdfast::gatekeeper::testing {

namespace {

namespace fs = std::filesystem;

class TreeEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    if (!tree_root().empty()) fs::remove_all(tree_root());
  }
  static std::string& tree_root() {
    static std::string root;
    return root;
  }
};

[[maybe_unused]] auto* const environment =
    ::testing::AddGlobalTestEnvironment(new TreeEnvironment);  // gtest owns it

Tree make_tree() {
  std::string pattern = (fs::temp_directory_path() / "holdfast-gatekeeper-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  Tree t;
  t.root = fs::canonical(pattern).string();
  TreeEnvironment::tree_root() = t.root;
  t.workspace = t.root + "/ws";
  t.home = t.root + "/home";
  t.outside = t.root + "/outside";
  t.tmp = t.root + "/tmp";
  write_file(t.home + "/.ssh/id_rsa", "secret key\n");
  write_file(t.home + "/notes.txt", "notes\n");
  write_file(t.outside + "/secret", "outside secret\n");
  write_file(t.outside + "/x", "x\n");
  write_file(t.root + "/secret", "root secret\n");
  write_file(t.workspace + "/src/a.c", "int main;\n");
  write_file(t.workspace + "/protected/f", "protected\n");
  write_file(t.workspace + "/.env", "TOKEN=1\n");
  fs::create_directories(t.workspace + "/sub");
  fs::create_directories(t.tmp);
  // Symlinks from inside the workspace to places rules deny or the
  // defaults do not trust.
  fs::create_directory_symlink(t.home + "/.ssh", t.workspace + "/link_to_ssh");
  fs::create_symlink(t.home + "/.ssh/id_rsa", t.workspace + "/key");
  fs::create_directory_symlink(t.workspace + "/protected", t.workspace + "/plink");
  fs::create_directory_symlink(t.outside, t.workspace + "/outlink");
  fs::create_directory_symlink(t.workspace, t.root + "/wslink");
  return t;
}

}  // namespace

const Tree& tree() {
  static const Tree t = make_tree();
  return t;
}

std::string expand_placeholders(std::string text) {
  const Tree& t = tree();
  const std::pair<const char*, const std::string*> keys[] = {
      {"@W", &t.workspace}, {"@H", &t.home}, {"@O", &t.outside}, {"@R", &t.root}, {"@T", &t.tmp}};
  for (const auto& [key, value] : keys) {
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
      text.replace(at, 2, *value);
      at += value->size();
    }
  }
  return text;
}

std::vector<Rule> parse_rules(const std::vector<std::string>& texts) {
  std::vector<Rule> rules;
  for (const auto& text : texts) rules.push_back(parse_rule(expand_placeholders(text)));
  return rules;
}

Context tree_context(const std::string& cwd) {
  Context context;
  context.workspace = tree().workspace;
  context.cwd = expand_placeholders(cwd);
  context.home = tree().home;
  context.tmp = tree().tmp;
  context.resolve = resolve_symlinks;
  return context;
}

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace holdfast::gatekeeper::testing
