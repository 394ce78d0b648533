// Bounds. The private /tmp, /dev/shm and /dev were tmpfs mounts limited
// only by half of the machine's memory, and nothing limited processes, so a
// full /tmp or a fork bomb inside reached the host. The private tmpfs
// mounts now have a size (tools.executionSandbox.limits.tmpfsMiB, 1024 by
// default), /dev is read-only, and the policy can limit processes, memory
// and CPU time.
#include "escape_support.hpp"

namespace holdfast::run::testing {
namespace {

using nlohmann::json;

constexpr unsigned long long kMiB = 1024 * 1024;

json policy(json limits = nullptr) {
  json p = {{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}};
  if (!limits.is_null()) p["limits"] = limits;
  return p;
}

class BoundsTest : public EscapeTest {};
HOLDFAST_ESCAPE_SUITE(BoundsTest);

TEST_P(BoundsTest, PrivateTmpfsMountsHaveTheDefaultSize) {
  set_policy(policy());
  const auto probe = this->probe({"fs-size:/tmp", "fs-size:/dev/shm"});
  EXPECT_EQ(probe.at("fs-size:/tmp").value, std::to_string(1024 * kMiB));
  EXPECT_EQ(probe.at("fs-size:/dev/shm").value, std::to_string(1024 * kMiB));
}

TEST_P(BoundsTest, ConfiguredTmpfsSizeStopsWritesAndDevIsReadOnly) {
  set_policy(policy({{"tmpfsMiB", 1}}));
  const std::string tmp_small = "fill:/tmp/small:" + std::to_string(kMiB / 4);
  const std::string tmp_big = "fill:/tmp/big:" + std::to_string(2 * kMiB);
  const std::string shm_big = "fill:/dev/shm/big:" + std::to_string(2 * kMiB);
  const std::string dev = "write:/dev/new-file";
  const auto probe = this->probe({tmp_small, tmp_big, shm_big, dev});
  EXPECT_TRUE(probe.at(tmp_small).allowed) << probe.at(tmp_small).errname;  // control
  EXPECT_FALSE(probe.at(tmp_big).allowed);
  EXPECT_EQ(probe.at(tmp_big).errname, "ENOSPC");
  EXPECT_FALSE(probe.at(shm_big).allowed);
  EXPECT_EQ(probe.at(shm_big).errname, "ENOSPC");
  EXPECT_FALSE(probe.at(dev).allowed);
  EXPECT_EQ(probe.at(dev).errname, "EROFS");
}

TEST_P(BoundsTest, ProcessLimitBoundsForksOrIsRefusedForRoot) {
  set_policy(policy({{"processes", 64}}));
  if (as_root()) {
    // The kernel does not apply RLIMIT_NPROC to uid 0: a limit that would
    // not hold is refused, never silently dropped.
    const auto refused = run_as_caller({"/bin/true"});
    EXPECT_EQ(refused.exit_code, 125);
    EXPECT_NE(refused.err.find("limits.processes"), std::string::npos) << refused.err;
    return;
  }
  const auto probe = this->probe({"fork-count:200", "rlimit:nproc"});
  EXPECT_EQ(probe.at("rlimit:nproc").value, "64:64");
  EXPECT_FALSE(probe.at("fork-count:200").allowed);
  EXPECT_LT(std::stoi(probe.at("fork-count:200").value), 64);
  EXPECT_GT(std::stoi(probe.at("fork-count:200").value), 0);
  EXPECT_EQ(probe.at("fork-count:200").errname, "EAGAIN");

  // Control: without the limit the same forks all start.
  set_policy(policy());
  const auto unlimited = this->probe({"fork-count:200"});
  EXPECT_TRUE(unlimited.at("fork-count:200").allowed) << unlimited.at("fork-count:200").value;
}

TEST_P(BoundsTest, MemoryAndCpuLimitsAreApplied) {
#if defined(__SANITIZE_ADDRESS__)
  // The probe is built with AddressSanitizer here, whose shadow memory is a
  // private mapping of terabytes: under RLIMIT_DATA it cannot start at all.
  GTEST_SKIP() << "RLIMIT_DATA and AddressSanitizer's shadow memory do not mix; the "
                  "non-sanitizer build runs this test";
#endif
  set_policy(policy({{"memoryMiB", 512}, {"cpuSeconds", 100}}));
  const std::string small = "alloc:" + std::to_string(64 * kMiB);
  const std::string big = "alloc:" + std::to_string(600 * kMiB);
  const auto probe = this->probe({"rlimit:data", "rlimit:cpu", small, big});
  EXPECT_EQ(probe.at("rlimit:data").value,
            std::to_string(512 * kMiB) + ":" + std::to_string(512 * kMiB));
  EXPECT_EQ(probe.at("rlimit:cpu").value, "100:100");
  EXPECT_TRUE(probe.at(small).allowed) << probe.at(small).errname;  // control
  EXPECT_FALSE(probe.at(big).allowed);
  EXPECT_EQ(probe.at(big).errname, "ENOMEM");
}

}  // namespace
}  // namespace holdfast::run::testing
