#include "escape_support.hpp"

#include <unistd.h>

#include <cstring>

namespace holdfast::run::testing {

std::string caller_name(const ::testing::TestParamInfo<Caller>& info) {
  return info.param == Caller::root ? "AsRoot" : "AsUser";
}

void EscapeTest::SetUp() {
  ASSERT_EQ(::geteuid(), 0u) << "the attack tests run as root (and drop to uid 65534)";
  RunTest::SetUp();
  if (as_root()) return;
  const int userns = userns_errno_as(kNobody);
  if (userns != 0) {
    GTEST_SKIP() << "uid 65534 cannot create user namespaces here (unshare: "
                 << (userns == 100 ? "could not drop privileges" : std::strerror(userns))
                 << "); bubblewrap needs them to run unprivileged";
  }
  for (const auto& dir : {workspace_, home_, state_dir_, outside_}) give_to_caller(dir);
}

Launch EscapeTest::as_caller(Launch launch) const {
  if (!as_root()) launch.uid = kNobody;
  return launch;
}

ProbeRun EscapeTest::probe(const std::vector<std::string>& checks, Launch launch) {
  return probe_run(checks, as_caller(std::move(launch)));
}

Result EscapeTest::run_as_caller(const std::vector<std::string>& command,
                                 const std::vector<std::string>& options, Launch launch) {
  return run(command, options, as_caller(std::move(launch)));
}

ProbeRun EscapeTest::probe_on_host(const std::vector<std::string>& checks, const Launch& launch) {
  holdfast::testing::Command command;
  command.argv = {probe_.string()};
  command.argv.insert(command.argv.end(), checks.begin(), checks.end());
  command.env = environment(launch);
  command.cwd = workspace_;
  if (!as_root()) command.uid = kNobody;
  command.out = base_ / ("host-probe." + std::to_string(++serial_) + ".out");
  command.err = base_ / ("host-probe." + std::to_string(serial_) + ".err");
  ProbeRun probe;
  probe.result = wait(holdfast::testing::start_command(command));
  EXPECT_EQ(probe.result.exit_code, 0) << probe.result.err;
  parse_probe_output(probe);
  return probe;
}

void EscapeTest::give_to_caller(const fs::path& path) const {
  if (as_root()) return;
  ASSERT_EQ(::lchown(path.c_str(), kNobody, kNobody), 0) << path << ": " << std::strerror(errno);
}

}  // namespace holdfast::run::testing
