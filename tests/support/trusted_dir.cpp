#include "tests/support/trusted_dir.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "base/process.hpp"
#include "tests/support/files.hpp"

namespace holdfast::testing {

namespace fs = std::filesystem;

namespace {

// Every directory from "/" to `dir` is root's and writable by no one else.
bool only_root_can_change(const fs::path& dir) {
  fs::path at;
  for (const auto& part : dir) {
    at /= part;
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
        (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
      return false;
    }
  }
  return true;
}

fs::path trusted_base() {
  if (::geteuid() != 0) {
    std::fprintf(stderr, "TrustedDir needs root\n");
    std::abort();
  }
  for (const char* base : {"/run", "/var/lib"}) {
    if (only_root_can_change(base)) return base;
  }
  std::fprintf(stderr, "TrustedDir: neither /run nor /var/lib is root's alone\n");
  std::abort();
}

void run_or_abort(const std::vector<std::string>& argv) {
  const base::Captured ran = base::run_captured({argv, std::nullopt, {}, {}});
  if (base::exit_code(ran.status) != 0) {
    std::fprintf(stderr, "%s failed: %s%s\n", argv[0].c_str(), ran.out.c_str(), ran.err.c_str());
    std::abort();
  }
}

}  // namespace

TrustedDir::TrustedDir() : dir_(trusted_base()) {}

fs::path TrustedDir::program(const std::string& name, const std::string& text) const {
  const fs::path file = path() / name;
  write_file(file, text);
  fs::permissions(file, fs::perms(0755));
  return file;
}

TestUser::TestUser() {
  static std::atomic<int> serial{0};
  name_ = "hftest" + std::to_string(::getpid()) + "x" + std::to_string(serial++);
  run_or_abort({"/usr/sbin/useradd", "--no-create-home", "--user-group", "--shell",
                "/usr/sbin/nologin", name_});
  const passwd* entry = ::getpwnam(name_.c_str());
  if (entry == nullptr) {
    std::fprintf(stderr, "useradd made no user %s\n", name_.c_str());
    std::abort();
  }
  uid_ = entry->pw_uid;
  gid_ = entry->pw_gid;
}

TestUser::~TestUser() {
  const base::Captured ran =
      base::run_captured({{"/usr/sbin/userdel", name_}, std::nullopt, {}, {}});
  if (base::exit_code(ran.status) != 0) {
    std::fprintf(stderr, "userdel %s failed: %s%s\n", name_.c_str(), ran.out.c_str(),
                 ran.err.c_str());
  }
}

}  // namespace holdfast::testing
