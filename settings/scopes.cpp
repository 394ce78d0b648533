#include "settings/scopes.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "base/files.hpp"
#include "base/name_table.hpp"
#include "base/path_chain.hpp"
#include "base/system_error.hpp"
#include "settings/errors.hpp"

namespace holdfast::settings {

namespace {

constexpr NameRow<Scope> kScopeNames[] = {{Scope::system_defaults, "system-defaults"},
                                          {Scope::user, "user"},
                                          {Scope::workspace, "workspace"},
                                          {Scope::system, "system"}};

}  // namespace

std::string_view scope_name(Scope scope) { return name_in(kScopeNames, scope); }

std::optional<Scope> parse_scope(std::string_view name) { return parse_in(kScopeNames, name); }

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

std::optional<std::filesystem::path> optional_state_dir() {
  try {
    return state_dir_from_environment();
  } catch (const UsageError&) {
    return std::nullopt;
  }
}

namespace {

// What is wrong with the state directory's walk, or nullopt.
std::optional<std::string> state_dir_problem(const std::filesystem::path& dir,
                                             const std::vector<base::PathStep>& steps,
                                             uid_t caller) {
  std::string named = dir.string();
  while (named.size() > 1 && named.back() == '/') named.pop_back();
  for (const base::PathStep& step : steps) {
    if (S_ISLNK(step.mode) && step.path == named) {
      return dir.string() + " is a symlink; set HOLDFAST_STATE_DIR to the directory itself";
    }
  }
  const base::PathStep& own = steps.back();
  for (std::size_t i = 0; i + 1 < steps.size(); ++i) {
    if (auto problem =
            base::ownership_problem(steps[i], caller, base::StickyDirectories::root_owned)) {
      return *problem +
             "; make it root's or yours and chmod go-w it, or set HOLDFAST_STATE_DIR "
             "to a directory of your own";
    }
  }
  if (own.owner != caller) {
    return own.path + " is owned by uid " + std::to_string(own.owner) + ", not by you (uid " +
           std::to_string(caller) +
           "); remove it (another user made it) or set HOLDFAST_STATE_DIR to a directory of your "
           "own";
  }
  if ((own.mode & 077) != 0) {
    return own.path + " has mode " + base::octal_mode(own.mode) +
           " (others can read or write it: launch records, presence memory); run chmod 700 " +
           own.path;
  }
  return std::nullopt;
}

}  // namespace

void prepare_state_dir(const std::filesystem::path& dir) {
  base::make_directories(dir, 0700);
  const base::WalkedPath walked = base::walk_path(dir, O_PATH | O_DIRECTORY);
  if (auto problem = state_dir_problem(dir, walked.steps, ::getuid())) {
    throw UnsafeStateDir("unsafe state directory " + dir.string() + ": " + *problem);
  }
}

}  // namespace holdfast::settings
