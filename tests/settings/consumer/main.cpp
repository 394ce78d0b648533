// Saves a setting through the installed library and reads it back.
#include <cstdio>
#include <cstdlib>
#include <settings/store.hpp>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  namespace hs = holdfast::settings;
  hs::ScopePaths paths;
  paths.system_dir = std::filesystem::path(argv[1]) / "etc";
  paths.config_dir = std::filesystem::path(argv[1]) / "config";
  hs::Store store(paths);
  store.set(hs::Scope::user, hs::parse_key_path("tools.executionSandbox.network"), "closed");
  const hs::Effective effective = store.snapshot().effective;
  const bool ok = effective.value["tools"]["executionSandbox"]["network"] == "closed" &&
                  store.load(hs::Scope::user).revision == 1;
  std::puts(ok ? "consumer: ok" : "consumer: wrong value");
  return ok ? 0 : 1;
}
