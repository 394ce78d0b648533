// Shared by the attack tests on mounts, files holdfast writes or trusts,
// and repositories: the `holdfast run` fixture, run either as root (the
// tests run as root) or as uid 65534, which then owns the workspace, home,
// state and "outside" directories (and, where a test says so, the user
// settings), as an unprivileged operator would.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "run_support.hpp"

namespace holdfast::run::testing {

enum class Caller { root, user };

// The bubblewrap a test's wrapper execs: the one holdfast trusts when no
// operator scope names another (security.bubblewrap).
inline constexpr const char* kRealBwrap = "/usr/bin/bwrap";

// The default policy's shape, written out: the host read-only, the
// workspace writable, the network closed.
inline const nlohmann::json kWorkspaceWrite = {
    {"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}};

inline std::string caller_name(const ::testing::TestParamInfo<Caller>& info) {
  return info.param == Caller::root ? "AsRoot" : "AsUid65534";
}

class EscapeTest : public RunTest, public ::testing::WithParamInterface<Caller> {
 protected:
  void SetUp() override {
    RunTest::SetUp();
    if (!as_user()) return;
    ASSERT_EQ(::geteuid(), 0u) << "dropping to uid 65534 needs root";
    if (const int error = userns_errno_as(kNobody); error != 0) {
      GTEST_SKIP() << "uid 65534 cannot create user namespaces here ("
                   << (error == 100 ? "could not drop privileges" : std::strerror(error))
                   << "); bubblewrap needs them to run unprivileged";
    }
    for (const auto& dir : {workspace_, home_, state_dir_, outside_}) own(dir);
  }

  bool as_user() const { return GetParam() == Caller::user; }

  // The caller's launch: as uid 65534 for the user variant.
  Launch as_caller(Launch launch = {}) const {
    if (as_user()) launch.uid = kNobody;
    return launch;
  }

  // Gives `path` to the caller (uid 65534 in the user variant).
  void own(const fs::path& path) const {
    if (as_user()) {
      ASSERT_EQ(::lchown(path.c_str(), kNobody, kNobody), 0) << path;
    }
  }

  // The user settings directory and file belong to the caller, as they do
  // for an unprivileged operator.
  void own_user_settings() const {
    own(config_dir_);
    if (fs::exists(config_dir_ / "settings.json")) own(config_dir_ / "settings.json");
  }
};

}  // namespace holdfast::run::testing
