// Doctor tells the truth. With "/tmp": "write" and tmpfsMiB 16, doctor said
// "a 16 MiB private /tmp" while the command wrote the host's /tmp. Now
// doctor's claims come from the plan of its trial launch (the plan `run`
// makes); for a table of policies, each claim is held against what a probe
// finds inside a real launch, as root and as uid 65534.
#include <sched.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>

#include "escape_support.hpp"

namespace holdfast::run::testing {
namespace {

using nlohmann::json;

struct Case {
  std::string name;
  json policy;
};

std::vector<Case> cases() {
  const json limits = {{"tmpfsMiB", 16}};
  return {
      {"private tmp",
       {{"filesystem", {{":root", "read"}, {":workspace", "write"}}},
        {"network", "closed"},
        {"limits", limits}}},
      {"host tmp writable",
       {{"filesystem", {{":root", "read"}, {"/tmp", "write"}, {":workspace", "write"}}},
        {"network", "closed"},
        {"limits", limits}}},
      {"host tmp read-only",
       {{"filesystem", {{":root", "read"}, {"/tmp", "read"}, {":workspace", "write"}}},
        {"network", "closed"}}},
      {"tmp denied",
       {{"filesystem", {{":root", "read"}, {"/tmp", "deny"}, {":workspace", "write"}}},
        {"network", "closed"}}},
      {"network open",
       {{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "open"}}},
  };
}

class DoctorClaimsTest : public EscapeTest {
 protected:
  // The host's /tmp is every test's: beside the suite's other tests (ctest
  // --parallel), "/tmp": "write" made this test's launches stand on their
  // entries (another test's /tmp/.git of uid 65534 refused the launch, a
  // /tmp/.claude removed while bubblewrap started failed it). The test gets
  // a /tmp of its own: a tmpfs, in a mount namespace of its own, that the
  // launches and doctor it starts inherit.
  static void use_a_tmp_of_our_own() {
    ASSERT_EQ(::unshare(CLONE_NEWNS), 0) << std::strerror(errno);
    ASSERT_EQ(::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr), 0)
        << std::strerror(errno);
    ASSERT_EQ(::mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777"), 0)
        << std::strerror(errno);
  }
};

TEST_P(DoctorClaimsTest, EveryClaimHoldsInsideARealLaunch) {
  use_a_tmp_of_our_own();
  std::mt19937_64 random(std::random_device{}());
  const std::string tag = std::to_string(random());
  // A file the host's /tmp holds, to tell "read-only" from "hidden".
  const fs::path seen = "/tmp/holdfast-claims-seen-" + tag;
  write_file(seen, "host\n");
  ::chmod(seen.c_str(), 0644);
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    set_policy(c.policy);
    const auto doctor = holdfast({"doctor", "--json"}, as_caller());
    const json report = json::parse(doctor.out, nullptr, false);
    ASSERT_FALSE(report.is_discarded()) << doctor.out << doctor.err;
    json claims;
    for (const auto& check : report["checks"]) {
      if (check["check"] == "confinement") claims = check.value("claims", json());
    }
    ASSERT_TRUE(claims.is_object()) << "doctor made no confinement claims: " << doctor.out;

    const fs::path mark = "/tmp/holdfast-claims-" + tag;
    const auto probe = probe_run(
        {"fs-size:/tmp", "fs-size:/dev/shm", "write:/proc/self/oom_score_adj",
         "read:" + seen.string(), "socket-inet", "mkfifo:" + (workspace_ / "fifo").string()},
        as_caller());
    const auto wrote =
        run({"/bin/sh", "-c", "echo inside > \"$1\"", "sh", mark.string()}, {}, as_caller());
    const bool on_host = fs::exists(mark);
    fs::remove(mark);

    const json& tmp = claims["tmp"];
    if (tmp["kind"] == "private") {
      EXPECT_EQ(wrote.exit_code, 0) << "a private /tmp is writable: " << wrote.err;
      EXPECT_FALSE(on_host) << "doctor claims a private /tmp; the command wrote the host's";
      EXPECT_EQ(probe.at("fs-size:/tmp").value,
                std::to_string(tmp["size_mib"].get<std::uint64_t>() * 1024 * 1024));
      EXPECT_FALSE(probe.at("read:" + seen.string()).allowed);
    } else if (tmp["kind"] == "host") {
      EXPECT_EQ(wrote.exit_code == 0, tmp["writable"].get<bool>()) << wrote.err;
      EXPECT_EQ(on_host, tmp["writable"].get<bool>())
          << "doctor claims the host's /tmp, writable=" << tmp["writable"];
      EXPECT_TRUE(probe.at("read:" + seen.string()).allowed) << "the host's /tmp is shown";
    } else {
      EXPECT_EQ(tmp["kind"], "hidden");
      EXPECT_NE(wrote.exit_code, 0);
      EXPECT_FALSE(on_host);
      EXPECT_FALSE(probe.at("read:" + seen.string()).allowed);
    }
    EXPECT_EQ(probe.at("fs-size:/dev/shm").value,
              std::to_string(claims["dev"]["shm_mib"].get<std::uint64_t>() * 1024 * 1024));
    EXPECT_EQ(!probe.at("write:/proc/self/oom_score_adj").allowed,
              claims["proc"]["read_only"].get<bool>());
    EXPECT_EQ(probe.at("socket-inet").allowed, claims["network"] == "open");
    EXPECT_EQ(!probe.at("mkfifo:" + (workspace_ / "fifo").string()).allowed,
              claims["landlock_abi"].get<int>() > 0)
        << "Landlock refuses FIFOs on host paths exactly when doctor says it is applied";
  }
  fs::remove(seen);
}

INSTANTIATE_TEST_SUITE_P(Callers, DoctorClaimsTest, ::testing::Values(Caller::root, Caller::user),
                         caller_name);

}  // namespace
}  // namespace holdfast::run::testing
