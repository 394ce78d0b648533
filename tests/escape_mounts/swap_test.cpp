// A directory swapped for a symlink after holdfast looked at it and before
// bubblewrap mounts it. Anything that can write the parent directory can do
// this: another user's process, a neighbouring sandbox whose workspace
// contains this one. Here the swap happens at the worst moment on purpose:
// the bubblewrap an operator scope names (security.bubblewrap) is a
// wrapper, installed where only root can change it, that swaps, then execs the real bubblewrap
// with the argv (and the descriptors) holdfast prepared. Mounts must be made
// from what holdfast checked, so the launch fails closed instead of binding
// wherever the symlink points.
#include <sys/stat.h>

#include "escape_support.hpp"
#include "tests/support/trusted_dir.hpp"

namespace holdfast::run::testing {
namespace {

class SwapTest : public EscapeTest {
 protected:
  // Makes `script` the bubblewrap of the next launches: a program in a
  // directory only root can change, named in the system scope.
  void use_bubblewrap(const std::string& name, const std::string& script) {
    const fs::path wrapper = trusted_.program(name, script);
    write_settings(system_dir_,
                   nlohmann::json{{"security", {{"bubblewrap", wrapper.string()}}}}.dump());
  }

  // A launch whose bubblewrap renames `path` away (to PATH.moved) and puts
  // a symlink to `target` in its place just before the real bubblewrap
  // runs. The target is relative, as an attacker would make it: bubblewrap
  // resolves destinations under its own temporary root, where an absolute
  // target names nothing.
  Launch swapping(const fs::path& path, const fs::path& target, Launch launch = {}) {
    use_bubblewrap("bwrap-swap", "#!/bin/sh\nmv -T '" + path.string() + "' '" + path.string() +
                                     ".moved' && ln -s '" + target.string() + "' '" +
                                     path.string() + "' || exit 99\nexec '" + kRealBwrap +
                                     "' \"$@\"\n");
    return as_caller(launch);
  }

  holdfast::testing::TrustedDir trusted_;
};

// A missing .git under the writable workspace is kept from being created
// by an empty read-only mount there. If a symlink takes its place just
// before bubblewrap runs, that mount lands on the symlink's target, and the
// command can replace the symlink with a repository of its own.
TEST_P(SwapTest, MissingProtectedNameSwappedForASymlinkStaysUncreatable) {
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}});
  fs::create_directory(base_ / "elsewhere");
  use_bubblewrap("bwrap-plant", "#!/bin/sh\nln -s ../elsewhere '" + (workspace_ / ".git").string() +
                                    "' || exit 99\nexec '" + kRealBwrap + "' \"$@\"\n");
  const auto result = run(
      {"/bin/sh", "-c", "rm -f .git && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit"},
      {}, as_caller());
  EXPECT_FALSE(fs::exists(workspace_ / ".git" / "hooks" / "pre-commit"))
      << "the command created .git";
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_NE(result.err.find("not built as checked"), std::string::npos) << result.err;
}

// The workspace becomes a symlink to $HOME: bound by path, $HOME would be
// writable inside.
TEST_P(SwapTest, WorkspaceSwappedForASymlinkToHomeIsNotMounted) {
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}});
  const fs::path parent = base_ / "projects";  // a sibling of home_
  const fs::path ws = parent / "ws";
  fs::create_directories(ws);
  own(parent);
  own(ws);
  Launch launch;
  launch.cwd = ws;
  const auto result = run({"/bin/sh", "-c", "echo x > \"$1\"/escaped", "sh", home_.string()}, {},
                          swapping(ws, "../home", launch));
  EXPECT_FALSE(fs::exists(home_ / "escaped")) << "the workspace bind landed on $HOME";
  EXPECT_EQ(result.exit_code, 125) << result.err;
  EXPECT_NE(result.err.find("bubblewrap could not set up the sandbox"), std::string::npos)
      << result.err;
}

// A writable entry outside the workspace becomes a symlink to a directory
// the policy keeps read-only.
TEST_P(SwapTest, WritableDirectorySwappedForASymlinkToAReadOnlyOneIsNotMounted) {
  const fs::path parent = base_ / "projects";  // a sibling of outside_
  const fs::path shared = parent / "shared";
  fs::create_directories(shared);
  own(parent);
  own(shared);
  set_policy(
      {{"filesystem", {{":root", "read"}, {":workspace", "write"}, {shared.string(), "write"}}},
       {"network", "closed"}});
  const auto result = run({"/bin/sh", "-c", "echo x > \"$1\"/escaped", "sh", outside_.string()}, {},
                          swapping(shared, "../outside"));
  EXPECT_FALSE(fs::exists(outside_ / "escaped")) << "a read-only directory became writable";
  EXPECT_EQ(result.exit_code, 125) << result.err;
}

// A read-only carve-out in the writable workspace becomes a symlink: its
// read-only bind would land on the symlink's target, and the real directory,
// moved aside, would be writable.
TEST_P(SwapTest, ReadOnlyCarveOutSwappedForASymlinkStaysReadOnly) {
  fs::create_directories(workspace_ / "vendor");
  fs::create_directories(workspace_ / "other");
  write_file(workspace_ / "vendor" / "lib.c", "original\n");
  for (const auto& p :
       {workspace_ / "vendor", workspace_ / "vendor" / "lib.c", workspace_ / "other"})
    own(p);
  set_policy(
      {{"filesystem", {{":root", "read"}, {":workspace", "write"}, {":workspace/vendor", "read"}}},
       {"network", "closed"}});
  const auto result = run({"/bin/sh", "-c", "echo evil > vendor.moved/lib.c"}, {},
                          swapping(workspace_ / "vendor", "other"));
  EXPECT_EQ(read_file(workspace_ / "vendor.moved" / "lib.c"), "original\n")
      << "the read-only carve-out became writable";
  EXPECT_EQ(result.exit_code, 125) << result.err;
}

INSTANTIATE_TEST_SUITE_P(Callers, SwapTest, ::testing::Values(Caller::root, Caller::user),
                         caller_name);

}  // namespace
}  // namespace holdfast::run::testing
