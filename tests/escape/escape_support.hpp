// The fixture of the attack tests: RunTest (tests/run) run once as root and
// once as uid 65534. As 65534 the workspace, home, state and "outside"
// directories belong to that user, so that on the host it could write all of
// them; the settings stay root's. Where uid 65534 cannot create user
// namespaces (bubblewrap needs them unprivileged) that half is skipped.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "run_support.hpp"

namespace holdfast::run::testing {

enum class Caller { root, user };

// "AsRoot" / "AsUser", for the parameterised test names.
std::string caller_name(const ::testing::TestParamInfo<Caller>& info);

class EscapeTest : public RunTest, public ::testing::WithParamInterface<Caller> {
 protected:
  void SetUp() override;

  bool as_root() const { return GetParam() == Caller::root; }
  // `launch` as the caller of this run (uid 65534 for the user half).
  Launch as_caller(Launch launch = {}) const;
  // holdfast run -- holdfast-probe CHECKS..., as the caller.
  ProbeRun probe(const std::vector<std::string>& checks, Launch launch = {});
  // holdfast run [OPTIONS] -- COMMAND, as the caller.
  Result run_as_caller(const std::vector<std::string>& command,
                       const std::vector<std::string>& options = {}, Launch launch = {});
  // holdfast-probe CHECKS... started directly on the host, as the caller:
  // the control that shows an attempt succeeds where no sandbox forbids it.
  ProbeRun probe_on_host(const std::vector<std::string>& checks, const Launch& launch = {});
  // Makes `path` (created by root) the caller's.
  void give_to_caller(const fs::path& path) const;
};

#define HOLDFAST_ESCAPE_SUITE(Suite)                                                      \
  INSTANTIATE_TEST_SUITE_P(Callers, Suite, ::testing::Values(Caller::root, Caller::user), \
                           caller_name)

}  // namespace holdfast::run::testing
