// Bounds. The private /tmp, /dev/shm and /dev were tmpfs mounts limited
// only by half of the machine's memory, and processes and memory were
// limited per process (rlimits) if at all, so a fork bomb, a set of
// processes or a memfd inside reached the host's limits. The private tmpfs
// mounts have a size (limits.tmpfsMiB, 1024 by default), /dev is read-only,
// and each launch has a cgroup bounding the whole sandbox's processes and
// memory, with built-in defaults (launcher/run/cgroup.hpp).
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "escape_support.hpp"

namespace holdfast::run::testing {
namespace {

using nlohmann::json;

constexpr unsigned long long kMiB = 1024 * 1024;

json bounds_policy(json limits = nullptr) {
  json p = {{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}};
  if (!limits.is_null()) p["limits"] = limits;
  return p;
}

class BoundsTest : public EscapeTest {};
HOLDFAST_ESCAPE_SUITE(BoundsTest);

TEST_P(BoundsTest, PrivateTmpfsMountsHaveTheDefaultSize) {
  set_policy(bounds_policy());
  const auto probe = this->probe({"fs-size:/tmp", "fs-size:/dev/shm"});
  EXPECT_EQ(probe.at("fs-size:/tmp").value, std::to_string(1024 * kMiB));
  EXPECT_EQ(probe.at("fs-size:/dev/shm").value, std::to_string(1024 * kMiB));
}

TEST_P(BoundsTest, ConfiguredTmpfsSizeStopsWritesAndDevIsReadOnly) {
  set_policy(bounds_policy({{"tmpfsMiB", 1}}));
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

// The caller's own cgroup in the v1 hierarchy of `controller`, from
// /proc/self/cgroup ("" when there is none).
fs::path own_v1_cgroup(const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    const std::string controllers = line.substr(first + 1, second - first - 1);
    if (("," + controllers + ",").find("," + controller + ",") != std::string::npos) {
      return fs::path("/sys/fs/cgroup") / controller /
             fs::path(line.substr(second + 1)).relative_path();
    }
  }
  return {};
}

// A cgroup of uid 65534's own in the pids and memory hierarchies, as an
// administrator delegates one: the user's holdfast starts in it and may
// make the launch's cgroup below it. cgroup v1 only (this project's test
// machines); elsewhere the user half of the tests that need it is skipped.
class DelegatedCgroup {
 public:
  DelegatedCgroup() {
    for (const std::string controller : {"pids", "memory"}) {
      const fs::path own = own_v1_cgroup(controller);
      if (own.empty() || !fs::is_directory(own)) return;
      const fs::path dir =
          own / ("holdfast-test-" + std::to_string(::getpid()) + "-" + std::to_string(serial()++));
      if (::mkdir(dir.c_str(), 0755) != 0) return;
      dirs_.push_back(dir);
      for (const char* file : {"", "cgroup.procs", "tasks"}) {
        if (::chown((dir / file).c_str(), kNobody, kNobody) != 0) return;
      }
      procs_.push_back(dir / "cgroup.procs");
    }
    ok_ = true;
  }
  ~DelegatedCgroup() {
    // The user's launches remove their cgroups; the processes of a test's
    // holdfast are gone once it was waited for.
    for (auto it = dirs_.rbegin(); it != dirs_.rend(); ++it) {
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(*it, ec)) {
        if (entry.is_directory()) ::rmdir(entry.path().c_str());
      }
      ::rmdir(it->c_str());
    }
  }
  bool ok() const { return ok_; }
  const std::vector<fs::path>& procs() const { return procs_; }
  const std::vector<fs::path>& dirs() const { return dirs_; }

 private:
  static int& serial() {
    static int n = 0;
    return n;
  }
  std::vector<fs::path> dirs_;
  std::vector<fs::path> procs_;
  bool ok_ = false;
};

// The bounds tests run as root and as uid 65534 started in a cgroup
// delegated to it (without one its bounds cannot hold: see
// UnprivilegedWithoutACgroup below).
class CgroupBoundsTest : public EscapeTest {
 protected:
  void SetUp() override {
    EscapeTest::SetUp();
    if (IsSkipped() || as_root()) return;
    if (!delegated_.ok()) GTEST_SKIP() << "no cgroup v1 pids and memory hierarchy to delegate here";
  }
  Launch launch() const {
    Launch l;
    if (!as_root()) l.join_cgroups = delegated_.procs();
    return l;
  }
  // Where the caller's launches make their cgroups: its own v1 pids and
  // memory cgroups (root), or the ones delegated to it.
  std::vector<fs::path> launch_parents() const {
    if (!as_root()) return delegated_.dirs();
    return {own_v1_cgroup("pids"), own_v1_cgroup("memory")};
  }
  // The cgroups of the launches of the holdfast with this pid.
  std::vector<fs::path> launch_cgroups(pid_t holdfast) const {
    const std::string prefix = "holdfast.launch-" + std::to_string(holdfast) + "-";
    std::vector<fs::path> out;
    for (const auto& parent : launch_parents()) {
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(parent, ec)) {
        if (entry.path().filename().string().starts_with(prefix)) out.push_back(entry.path());
      }
    }
    return out;
  }
  // FIFOs DIR/ready and DIR/release for the probe's fork-hold check, made
  // in the workspace and given to the caller.
  fs::path hold_fifos() const {
    const fs::path fifos = workspace_ / "fifos";
    fs::create_directory(fifos);
    EXPECT_EQ(::mkfifo((fifos / "ready").c_str(), 0600), 0);
    EXPECT_EQ(::mkfifo((fifos / "release").c_str(), 0600), 0);
    for (const auto& path : {fifos, fifos / "ready", fifos / "release"}) give_to_caller(path);
    return fifos;
  }

  // How many children the probe's fork-hold check holds, read from
  // DIR/ready; nullopt when holdfast ended first (then `early` has its end).
  std::optional<int> children_held(const fs::path& fifos, const Started& started, Result& early) {
    const int ready = ::open((fifos / "ready").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, started.pid, 0));
    if (ready < 0 || pidfd < 0) {
      ADD_FAILURE() << "cannot open the ready FIFO or holdfast's pidfd";
      return std::nullopt;
    }
    std::string count;
    std::optional<int> held;
    for (;;) {
      pollfd fds[2] = {{ready, POLLIN, 0}, {pidfd, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0 && errno != EINTR) break;
      char buffer[32];
      const ssize_t n = ::read(ready, buffer, sizeof buffer);
      if (n > 0) count.append(buffer, static_cast<std::size_t>(n));
      if (count.find('\n') != std::string::npos) {
        held = std::stoi(count);
        break;
      }
      if (fds[1].revents & POLLIN) {
        early = wait(started);
        break;
      }
    }
    ::close(ready);
    ::close(pidfd);
    return held;
  }
  DelegatedCgroup delegated_;
};
HOLDFAST_ESCAPE_SUITE(CgroupBoundsTest);

// Forks children that wait, and touches `bytes` of memory: what another
// program on the host must still be able to do while a sandbox is at its
// limits. True when all of it worked.
bool host_can_fork_and_allocate(int children, std::size_t bytes) {
  std::vector<pid_t> started;
  bool ok = true;
  for (int i = 0; i < children; ++i) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      ok = false;
      break;
    }
    if (pid == 0) {
      ::pause();
      ::_exit(0);
    }
    started.push_back(pid);
  }
  void* memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    ok = false;
  } else {
    std::memset(memory, 1, bytes);
    ::munmap(memory, bytes);
  }
  for (const pid_t pid : started) ::kill(pid, SIGKILL);
  for (const pid_t pid : started) ::waitpid(pid, nullptr, 0);
  return ok;
}

void release_children(const fs::path& fifos) {
  const int release = ::open((fifos / "release").c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(release, 0);
  ASSERT_EQ(::write(release, "x", 1), 1);
  ::close(release);
}

// A fork bomb under the default policy: the sandbox stops at the built-in
// bound of 4096 processes and threads (its cgroup), and while it holds them
// a program on the host still forks and allocates. Without the cgroup the
// same command started all 20,000 children. Its cgroup is gone when the
// launch has ended.
TEST_P(CgroupBoundsTest, ForkBombStopsAtTheSandboxBoundAndTheHostGoesOn) {
  set_policy(bounds_policy());
  const fs::path fifos = hold_fifos();
  const std::string check = "fork-hold:20000:" + fifos.string();
  const Started started = start({"run", "--", probe_.string(), check}, as_caller(launch()));
  Result early;
  const std::optional<int> held = children_held(fifos, started, early);
  ASSERT_TRUE(held) << "holdfast ended before the children were up: " << early.exit_code << "\n"
                    << early.err << early.out;
  EXPECT_EQ(launch_cgroups(started.pid).size(), 2u) << "the launch's pids and memory cgroups";
  EXPECT_LE(*held, 4096) << "children the sandbox started";
  EXPECT_GT(*held, 1000) << "children the sandbox started";
  EXPECT_TRUE(host_can_fork_and_allocate(50, 64 << 20));

  release_children(fifos);
  ProbeRun probe;
  probe.result = wait(started);
  ASSERT_EQ(probe.result.exit_code, 0) << probe.result.err;
  parse_probe_output(probe);
  EXPECT_FALSE(probe.at(check).allowed);
  EXPECT_EQ(probe.at(check).errname, "EAGAIN");
  EXPECT_EQ(launch_cgroups(started.pid), std::vector<fs::path>{}) << "left behind";
}

// holdfast killed while its sandbox runs: bubblewrap dies with it
// (--die-with-parent, and the sandbox's PID namespace goes with its init),
// which leaves the launch's cgroups empty; the next launch in the same
// place removes them.
TEST_P(CgroupBoundsTest, AKilledLaunchsCgroupIsRemovedByTheNextLaunch) {
  set_policy(bounds_policy());
  const fs::path fifos = hold_fifos();
  const std::string check = "fork-hold:5:" + fifos.string();
  const Started started = start({"run", "--", probe_.string(), check}, as_caller(launch()));
  Result early;
  ASSERT_TRUE(children_held(fifos, started, early))
      << "holdfast ended before the children were up: " << early.exit_code << "\n"
      << early.err << early.out;
  const std::vector<fs::path> groups = launch_cgroups(started.pid);
  ASSERT_EQ(groups.size(), 2u) << "the launch's pids and memory cgroups";
  // Every process of the sandbox, to see them end.
  std::vector<int> pidfds;
  {
    std::ifstream procs(groups.front() / "cgroup.procs");
    for (pid_t pid = 0; procs >> pid;) {
      const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
      if (fd >= 0) pidfds.push_back(fd);
    }
  }
  EXPECT_GE(pidfds.size(), 7u) << "bubblewrap, its init, the probe and 5 children";
  ASSERT_EQ(::kill(started.pid, SIGKILL), 0);
  EXPECT_EQ(wait(started).exit_code, -SIGKILL);
  for (const int fd : pidfds) {
    pollfd ended{fd, POLLIN, 0};
    while (::poll(&ended, 1, -1) < 0 && errno == EINTR) {
    }
    ::close(fd);
  }
  for (const auto& group : groups) EXPECT_TRUE(fs::exists(group)) << "nothing removed it yet";

  const auto next = this->probe({"rlimit:core"}, launch());
  EXPECT_EQ(next.result.exit_code, 0) << next.result.err;
  for (const auto& group : groups) EXPECT_FALSE(fs::exists(group)) << group;
}

// limits.processes bounds the sandbox as a whole, root's launches too (the
// rlimit it replaces did not apply to uid 0 at all).
TEST_P(CgroupBoundsTest, ProcessLimitBoundsTheWholeSandbox) {
  set_policy(bounds_policy({{"processes", 64}}));
  const auto probe = this->probe({"fork-count:200"}, launch());
  EXPECT_FALSE(probe.at("fork-count:200").allowed);
  EXPECT_LT(std::stoi(probe.at("fork-count:200").value), 64);
  EXPECT_GT(std::stoi(probe.at("fork-count:200").value), 0);
  EXPECT_EQ(probe.at("fork-count:200").errname, "EAGAIN");
}

// limits.memoryMiB bounds all of the sandbox's memory: three processes of
// 100 MiB each do not fit in 256 MiB together (each fitted under the old
// per-process limit), nor does a 512 MiB memfd (which no rlimit counts);
// one of 64 MiB does.
TEST_P(CgroupBoundsTest, MemoryLimitBoundsTheWholeSandbox) {
  set_policy(bounds_policy({{"memoryMiB", 256}}));
  const std::string alone = "touch:" + std::to_string(64 * kMiB);
  const std::string together = "touch-together:3:" + std::to_string(100 * kMiB);
  const auto probe = this->probe({alone, together}, launch());
  EXPECT_TRUE(probe.at(alone).allowed) << probe.at(alone).detail;  // control
  EXPECT_FALSE(probe.at(together).allowed) << probe.at(together).value;
  EXPECT_LT(std::stoi(probe.at(together).value), 3);
}

// A memfd holds memory that belongs to no process's private mappings: no
// rlimit sees it, the sandbox's cgroup charges it. Filling 512 MiB under a
// 256 MiB bound fails: the write stops, or the kernel's out-of-memory
// killer, confined to the sandbox's cgroup, ends a process of the sandbox
// (which one is the kernel's choice: an unmapped memfd counts for none;
// when it is bubblewrap, holdfast says that the memory bound was reached).
TEST_P(CgroupBoundsTest, AMemfdCountsAgainstTheSandboxsMemory) {
  set_policy(bounds_policy({{"memoryMiB", 256}}));
  const std::string memfd = "memfd-fill:" + std::to_string(512 * kMiB);
  const Result result = run_as_caller({probe_.string(), memfd}, {}, launch());
  if (result.exit_code == 137) return;  // killed inside its cgroup
  if (result.exit_code == 125) {
    // The kernel chose bubblewrap (it is in the cgroup too): holdfast says
    // why, from the cgroup's count of such kills.
    EXPECT_NE(result.err.find("the sandbox reached its memory bound"), std::string::npos)
        << result.err;
    return;
  }
  ProbeRun probe;
  probe.result = result;
  parse_probe_output(probe);
  EXPECT_FALSE(probe.at(memfd).allowed) << probe.at(memfd).value;
}

// No core files from crashes inside unless the policy asks: the host's core
// handler runs outside the sandbox. The caller's own limit is unlimited
// here, so only holdfast can have made it 0.
TEST_P(CgroupBoundsTest, CoreFilesAreOffUnlessThePolicyAsks) {
  const rlimit unlimited{RLIM_INFINITY, RLIM_INFINITY};
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_CORE, &saved), 0);
  ASSERT_EQ(::setrlimit(RLIMIT_CORE, &unlimited), 0);
  set_policy(bounds_policy());
  const auto off = this->probe({"rlimit:core"}, launch());
  set_policy(bounds_policy({{"coreDumps", true}}));
  const auto on = this->probe({"rlimit:core"}, launch());
  ::setrlimit(RLIMIT_CORE, &saved);
  EXPECT_EQ(off.at("rlimit:core").value, "0:0");
  EXPECT_EQ(on.at("rlimit:core").value, "unlimited:unlimited");
}

// The sandbox cannot move itself out of its cgroup: the hierarchies are
// not writable inside, not even under a policy that names /sys/fs/cgroup
// with write (each hierarchy is a mount of its own below it, and a mount
// below a writable path stays read-only unless the policy names that mount
// itself). As root every cgroup.procs is the caller's to write; as uid
// 65534 the delegated cgroup the launch was made in is the user's own, so
// both halves matter.
TEST_P(CgroupBoundsTest, TheSandboxCannotLeaveItsCgroup) {
  set_policy(
      {{"filesystem", {{":root", "read"}, {":workspace", "write"}, {"/sys/fs/cgroup", "write"}}},
       {"network", "closed"}});
  std::vector<std::string> checks;
  for (const auto& parent : launch_parents()) {
    checks.push_back("write:" + (parent / "cgroup.procs").string());
    // v1's per-thread file, which the launch itself joins through.
    if (fs::exists(parent / "tasks")) checks.push_back("write:" + (parent / "tasks").string());
  }
  std::vector<std::string> command = {probe_.string()};
  command.insert(command.end(), checks.begin(), checks.end());
  const Result result = run_as_caller(command, {}, launch());
  // An unprivileged caller cannot be given the root-owned /sys/fs/cgroup
  // to write at all: bubblewrap cannot make the protected names' mount
  // points there, and the launch fails closed before anything runs. (When
  // the root run of this test beside it has just made one of those mount
  // points and removed it again, bubblewrap fails on mounting there
  // instead: "Can't remount readonly on /newroot/sys/fs/cgroup/.claude".)
  if (GetParam() == Caller::user && result.exit_code == 125 &&
      result.err.find("bwrap: Can't") != std::string::npos &&
      result.err.find("/sys/fs/cgroup/") != std::string::npos) {
    GTEST_SKIP() << "uid 65534 cannot be given /sys/fs/cgroup to write (the launch fails "
                    "closed): "
                 << result.err;
  }
  ProbeRun probe;
  probe.result = result;
  parse_probe_output(probe);
  for (const auto& check : checks) EXPECT_FALSE(probe.at(check).allowed) << check;
}

// Without a cgroup of its own, an unprivileged caller's launch cannot be
// bounded: bounds an operator set are refused with the remedy, and the
// built-in defaults are said to be unenforced (--explain, the report) while
// the launch goes ahead.
class UnprivilegedWithoutACgroup : public RunTest {};

TEST_F(UnprivilegedWithoutACgroup, OperatorBoundsAreRefusedAndDefaultsSaidUnenforced) {
  if (userns_errno_as(kNobody) != 0) GTEST_SKIP() << "uid 65534 cannot create user namespaces";
  for (const auto& dir : {workspace_, home_, state_dir_}) {
    ASSERT_EQ(::lchown(dir.c_str(), kNobody, kNobody), 0);
  }
  Launch as_user;
  as_user.uid = kNobody;
  set_policy(bounds_policy({{"processes", 64}}));
  const auto refused = run({"/bin/true"}, {}, as_user);
  EXPECT_EQ(refused.exit_code, 125);
  EXPECT_NE(refused.err.find("limit-not-enforceable"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("To fix:"), std::string::npos) << refused.err;

  set_policy(bounds_policy());
  const auto ran = run({"/bin/true"}, {}, as_user);
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  const auto explained = holdfast({"run", "--explain", "--", "true"}, as_user);
  EXPECT_NE(explained.out.find("NOT enforced on this host"), std::string::npos) << explained.out;
}

}  // namespace
}  // namespace holdfast::run::testing
