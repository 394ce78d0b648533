#include "tests/support/temp_dir.hpp"

#include <stdlib.h>

#include <cstdlib>
#include <system_error>

namespace holdfast::testing {

namespace fs = std::filesystem;

TempDir::TempDir(const fs::path& base) {
  std::string pattern = (base / "holdfast-test.XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) std::abort();
  path_ = pattern;
  fs::permissions(path_, fs::perms(0755));
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

fs::path memory_backed_base() {
  std::error_code ec;
  return fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
}

}  // namespace holdfast::testing
