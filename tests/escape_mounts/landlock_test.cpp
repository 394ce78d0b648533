// The second layer. Mount flags were the only wall, and the kernel skips
// the read-only check for special files: a host FIFO under /run opened for
// writing through a read-only mount (as root, systemd's /run/initctl takes
// runlevel requests). Landlock now checks every open against the plan, and
// known request FIFOs are masked. Each test launches as root and as uid
// 65534 with the default kind of policy (":root" read, the workspace
// writable). Landlock is on this kernel (the tests say so when it is not,
// and check the mount layer alone).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape_support.hpp"
#include "launcher/landlock/second_layer.hpp"

namespace holdfast::run::testing {
namespace {

using nlohmann::json;

class LandlockTest : public EscapeTest {
 protected:
  bool has_landlock() const { return landlock::kernel_abi() > 0; }
};

// A FIFO of the caller's own, in a directory the policy keeps read-only,
// with a reader on the host waiting for requests.
TEST_P(LandlockTest, AHostFifoUnderAReadOnlyPathDoesNotOpenForWriting) {
  if (!has_landlock()) GTEST_SKIP() << "this kernel has no Landlock";
  set_policy(kWorkspaceWrite);
  const fs::path fifo = outside_ / "requests";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0);
  ::chmod(fifo.c_str(), 0666);
  own(fifo);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  const auto probe = probe_run({"write:" + fifo.string()}, as_caller());
  ::close(reader);
  EXPECT_FALSE(probe.at("write:" + fifo.string()).allowed)
      << "a host FIFO under a read-only path opened for writing";
  EXPECT_EQ(probe.at("write:" + fifo.string()).errname, "EACCES");
}

// No FIFO or socket is made on a host path, even where the policy lets the
// command write; in the private /tmp both are.
TEST_P(LandlockTest, FifosAndSocketsAreMadeOnlyInThePrivateTmp) {
  if (!has_landlock()) GTEST_SKIP() << "this kernel has no Landlock";
  set_policy({{"filesystem", {{":root", "read"}, {":workspace", "write"}}},
              {"network", "closed"},
              {"unixSockets", "allow"}});
  const auto probe = probe_run(
      {"mkfifo:" + (workspace_ / "f").string(), "unix-local-pair:" + (workspace_ / "s").string(),
       "mkfifo:/tmp/f", "unix-local-pair:/tmp/s", "write:" + (workspace_ / "plain").string()},
      as_caller());
  EXPECT_FALSE(probe.at("mkfifo:" + (workspace_ / "f").string()).allowed)
      << "a FIFO was made in the workspace";
  EXPECT_FALSE(probe.at("unix-local-pair:" + (workspace_ / "s").string()).allowed)
      << "a socket was bound in the workspace";
  EXPECT_TRUE(probe.at("mkfifo:/tmp/f").allowed);
  EXPECT_TRUE(probe.at("unix-local-pair:/tmp/s").allowed);
  EXPECT_TRUE(probe.at("write:" + (workspace_ / "plain").string()).allowed)
      << "the workspace is writable";
  EXPECT_FALSE(fs::exists(workspace_ / "f"));
}

// Signals do not leave the sandbox's Landlock domain (ABI 6): bubblewrap's
// init, outside it, is out of reach.
TEST_P(LandlockTest, SignalsStayInsideTheSandbox) {
  if (landlock::kernel_abi() < 6) GTEST_SKIP() << "this kernel's Landlock has no scopes";
  set_policy(kWorkspaceWrite);
  const auto probe = probe_run({"kill:1:0"}, as_caller());
  EXPECT_FALSE(probe.at("kill:1:0").allowed) << "the command signalled bubblewrap's init";
}

// systemd's initctl FIFO is masked (the first layer, on any kernel). The
// test makes one where systemd would, only when there is none.
TEST_P(LandlockTest, TheInitctlFifoIsMasked) {
  const fs::path initctl = "/run/initctl";
  if (fs::exists(fs::symlink_status(initctl))) GTEST_SKIP() << "this host has a real " << initctl;
  ASSERT_EQ(::mkfifo(initctl.c_str(), 0666), 0);
  ::chmod(initctl.c_str(), 0666);
  struct Remove {
    fs::path path;
    ~Remove() { ::unlink(path.c_str()); }
  } remove{initctl};
  const int reader = ::open(initctl.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  set_policy(kWorkspaceWrite);
  const auto probe = probe_run({"write:/run/initctl"}, as_caller());
  ::close(reader);
  EXPECT_FALSE(probe.at("write:/run/initctl").allowed) << "initctl opened for writing";
  const auto dry = holdfast({"run", "--dry-run", "--", "/bin/true"}, as_caller());
  EXPECT_NE(dry.out.find("--ro-bind-data"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("/run/initctl"), std::string::npos) << dry.out;
}

// What a launch says about the layer: the record and --explain.
TEST_P(LandlockTest, TheLaunchRecordAndTheExplanationSayTheAbi) {
  set_policy(kWorkspaceWrite);
  const int abi = landlock::kernel_abi();
  const auto explain = holdfast({"run", "--explain", "--", "/bin/true"}, as_caller());
  EXPECT_EQ(explain.exit_code, 0) << explain.err;
  if (abi > 0) {
    EXPECT_NE(explain.out.find("landlock: ABI " + std::to_string(std::min(abi, 7))),
              std::string::npos)
        << explain.out;
  } else {
    EXPECT_NE(explain.out.find("landlock: not available"), std::string::npos) << explain.out;
  }
  const auto result = run({"/bin/true"}, {}, as_caller());
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const std::string records = read_file(state_dir_ / "holdfast" / "launches.jsonl");
  const auto last = json::parse(records.substr(records.rfind('\n', records.size() - 2) + 1));
  EXPECT_EQ(last["landlock"]["abi"], std::min(abi, 7));
  EXPECT_EQ(last["landlock"]["applied"], abi > 0);
}

INSTANTIATE_TEST_SUITE_P(Callers, LandlockTest, ::testing::Values(Caller::root, Caller::user),
                         caller_name);

}  // namespace
}  // namespace holdfast::run::testing
