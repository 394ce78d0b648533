// The caller's environment and descriptors. The command's own environment
// is cleaned (--clearenv and an allow-list), but every process inside is
// visible in /proc: bubblewrap's init is pid 1 there, and /proc/1/environ
// showed the environment bubblewrap was started with — every token the
// caller had. And nothing the caller or holdfast has open (bubblewrap's
// --info-fd, --json-status-fd, --seccomp, a descriptor the caller leaked)
// may reach the command.
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "escape_support.hpp"

namespace holdfast::run::testing {
namespace {

class EnvironmentTest : public EscapeTest {};
HOLDFAST_ESCAPE_SUITE(EnvironmentTest);

constexpr const char* kSecret = "tok-9f8e7d6c5b4a-holdfast-escape";

TEST_P(EnvironmentTest, CallerSecretsAreInNoProcessInside) {
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}});
  Launch launch;
  launch.env["AGENT_API_TOKEN"] = kSecret;
  std::string hex;
  for (const char c : std::string(kSecret)) {
    static constexpr char kDigits[] = "0123456789abcdef";
    hex += kDigits[static_cast<unsigned char>(c) >> 4];
    hex += kDigits[static_cast<unsigned char>(c) & 0xf];
  }
  const std::string check = "environ-contains:" + hex;
  const auto inside = probe({check}, launch);
  const auto& answer = inside.at(check);
  EXPECT_FALSE(answer.allowed) << answer.value;
  // Not vacuous: the environment of pid 1 (bubblewrap's init) was read;
  // where Landlock applies, the command's domain cannot even read it (a
  // Landlock domain keeps /proc/PID/environ of processes outside it).
  const std::string readable = answer.value.substr(0, answer.value.find(' '));
  const bool pid1_read =
      ("," + readable.substr(readable.find('=') + 1) + ",").find(",1,") != std::string::npos;
  const bool landlock = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, 1U) > 0;
  EXPECT_EQ(pid1_read, !landlock) << answer.value;

  // Control: the same search on the host finds the secret (in the probe's
  // own environment, which the caller gave it).
  const auto control = probe_on_host({check}, launch);
  EXPECT_TRUE(control.at(check).allowed) << control.at(check).value;
}

TEST_P(EnvironmentTest, CommandSeesOnlyTheStandardDescriptors) {
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}});
  // A descriptor the caller leaks to holdfast (no close-on-exec).
  const int leaked = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(leaked, 3);
  const auto inside = probe({"fds"});
  ::close(leaked);
  EXPECT_EQ(inside.at("fds").value, "0 1 2");
}

}  // namespace
}  // namespace holdfast::run::testing
