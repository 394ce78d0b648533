#include "settings/scopes.hpp"

#include <cstdlib>

#include "settings/errors.hpp"

namespace holdfast::settings {

std::string_view scope_name(Scope scope) {
  switch (scope) {
    case Scope::system_defaults:
      return "system-defaults";
    case Scope::user:
      return "user";
    case Scope::workspace:
      return "workspace";
    case Scope::system:
      return "system";
  }
  return "?";
}

std::optional<Scope> parse_scope(std::string_view name) {
  for (Scope scope : kScopesInPrecedenceOrder) {
    if (scope_name(scope) == name) return scope;
  }
  return std::nullopt;
}

std::optional<std::filesystem::path> ScopePaths::file(Scope scope) const {
  switch (scope) {
    case Scope::system_defaults:
      return system_dir / "system-defaults.json";
    case Scope::user:
      return config_dir / "settings.json";
    case Scope::workspace:
      if (!workspace) return std::nullopt;
      return *workspace / ".holdfast" / "settings.json";
    case Scope::system:
      return system_dir / "settings.json";
  }
  return std::nullopt;
}

namespace {

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read at start-up
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

}  // namespace

ScopePaths scope_paths_from_environment(std::optional<std::filesystem::path> workspace) {
  ScopePaths paths;
  paths.system_dir = env("HOLDFAST_SYSTEM_DIR").value_or("/etc/holdfast");
  if (auto dir = env("HOLDFAST_CONFIG_DIR")) {
    paths.config_dir = *dir;
  } else if (auto xdg = env("XDG_CONFIG_HOME")) {
    paths.config_dir = std::filesystem::path(*xdg) / "holdfast";
  } else if (auto home = env("HOME")) {
    paths.config_dir = std::filesystem::path(*home) / ".config" / "holdfast";
  } else {
    throw UsageError(
        "cannot find the user settings directory: none of HOLDFAST_CONFIG_DIR, XDG_CONFIG_HOME "
        "or HOME is set; set one of them");
  }
  if (workspace) paths.workspace = std::filesystem::absolute(*workspace).lexically_normal();
  paths.state_dir = state_dir_from_environment();
  return paths;
}

std::filesystem::path state_dir_from_environment() {
  // Only absolute values count: a relative one would name a different
  // place from every working directory.
  const auto absolute = [](const char* name) -> std::optional<std::filesystem::path> {
    auto value = env(name);
    if (!value || value->front() != '/') return std::nullopt;
    return std::filesystem::path(*value).lexically_normal();
  };
  if (auto dir = absolute("HOLDFAST_STATE_DIR")) return *dir;
  if (auto xdg = absolute("XDG_STATE_HOME")) return *xdg / "holdfast";
  if (auto home = absolute("HOME")) return *home / ".local" / "state" / "holdfast";
  throw UsageError(
      "cannot find holdfast's state directory: none of HOLDFAST_STATE_DIR, XDG_STATE_HOME or "
      "HOME is set to an absolute path; set one of them");
}

}  // namespace holdfast::settings
