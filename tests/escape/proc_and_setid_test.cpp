// Root inside: host knobs under /proc, and set-id files left behind.
//
// As root, the sandbox's uid 0 is the host's uid 0 with every capability
// dropped: it still passes owner checks on root-owned files. /proc/sys was
// writable (kernel.core_pattern runs a program as host root on the next
// crash), and a set-user-ID file made in the workspace runs as its owner
// for whoever starts it later on the host. As a user the same attempts are
// made: a set-user-ID file of the caller is the caller's identity lent to
// whoever runs it.
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "escape_support.hpp"

namespace holdfast::run::testing {
namespace {

using nlohmann::json;

json workspace_write() {
  return {{"filesystem", {{":root", "read"}, {":workspace", "write"}}}, {"network", "closed"}};
}

class ProcAndSetIdTest : public EscapeTest {};
HOLDFAST_ESCAPE_SUITE(ProcAndSetIdTest);

TEST_P(ProcAndSetIdTest, NothingUnderProcIsWritable) {
  set_policy(workspace_write());
  // Control: the same walk finds a writable file where there is one.
  const fs::path writable = workspace_ / "walk" / "deep";
  fs::create_directories(writable);
  write_file(writable / "file", "x");
  for (const auto& path : {workspace_ / "walk", writable, writable / "file"}) give_to_caller(path);
  const std::string control = "writable-files:" + (workspace_ / "walk").string();

  const auto inside = probe({"writable-files:/proc", control});
  EXPECT_TRUE(inside.at(control).allowed) << inside.at(control).value;
  EXPECT_EQ(inside.at(control).value, (writable / "file").string());
  EXPECT_FALSE(inside.at("writable-files:/proc").allowed)
      << "writable inside: " << inside.at("writable-files:/proc").value.substr(0, 400);
}

TEST_P(ProcAndSetIdTest, KernelCorePatternCannotBeRewritten) {
  set_policy(workspace_write());
  const std::string before = read_file("/proc/sys/kernel/core_pattern");
  // Writes back the value it read, so a failure of the sandbox changes nothing.
  const auto result = run_as_caller(
      {"/bin/sh", "-c",
       "v=$(cat /proc/sys/kernel/core_pattern) && echo \"$v\" > /proc/sys/kernel/core_pattern "
       "2>/dev/null && exit 40; exit 0"});
  EXPECT_EQ(result.exit_code, 0) << "/proc/sys/kernel/core_pattern was writable inside";
  EXPECT_EQ(read_file("/proc/sys/kernel/core_pattern"), before);
}

// Every way to give a file the set-user-ID or set-group-ID bit.
const std::vector<std::string> kWays = {"chmod",  "fchmod", "fchmodat", "fchmodat2", "open",
                                        "openat", "creat",  "mknod",    "mknodat",   "tmpfile"};

TEST_P(ProcAndSetIdTest, NoSetIdFileCanBeMade) {
  set_policy(workspace_write());
  std::vector<std::string> checks;
  for (const char* bit : {"setuid", "setgid"}) {
    for (const auto& way : kWays) {
      checks.push_back(std::string(bit) + ":" + way + ":" +
                       (workspace_ / (std::string(bit) + "-" + way)).string());
    }
  }
  const auto inside = probe(checks);
  for (const auto& check : checks) {
    EXPECT_FALSE(inside.at(check).allowed) << check << ": " << inside.at(check).detail;
  }
  // On the host, no file in the workspace carries either bit.
  for (const auto& entry : fs::directory_iterator(workspace_)) {
    struct stat st {};
    ASSERT_EQ(::lstat(entry.path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & (S_ISUID | S_ISGID), 0u) << entry.path();
  }

  // Control: without the sandbox each way works for this caller.
  std::vector<std::string> host_checks;
  for (const auto& way : kWays) {
    host_checks.push_back("setuid:" + way + ":" + (outside_ / ("setuid-" + way)).string());
  }
  host_checks.push_back("setgid:chmod:" + (outside_ / "setgid-chmod").string());
  const auto host = probe_on_host(host_checks);
  for (const auto& check : host_checks) {
    EXPECT_TRUE(host.at(check).allowed)
        << check << ": " << host.at(check).detail << " " << host.at(check).errname;
  }
  // And inside, the same calls with plain modes still work.
  const std::string plain = (workspace_ / "plain").string();
  const auto ordinary = run_as_caller(
      {"/bin/sh", "-c", "umask 022 && echo x > \"$1\" && chmod 0755 \"$1\" && test -x \"$1\"", "sh",
       plain});
  EXPECT_EQ(ordinary.exit_code, 0) << ordinary.err;
}

struct MountLine {
  std::string id, parent, point, options, line;
};

// The mounts a process can reach: not stacked under another mount at the
// same point, and not inside one that is. Covered mounts (the host's own
// /dev/shm under the fresh /dev, say) stay in mountinfo but cannot be
// opened, and mount/umount are refused, so they cannot be uncovered.
std::vector<MountLine> reachable_mounts(const std::string& mountinfo) {
  std::vector<MountLine> all;
  std::istringstream lines(mountinfo);
  for (std::string line; std::getline(lines, line);) {
    MountLine m;
    std::istringstream fields(line);
    std::string device, root;
    fields >> m.id >> m.parent >> device >> root >> m.point >> m.options;
    m.line = line;
    all.push_back(m);
  }
  std::map<std::string, const MountLine*> by_id;
  for (const auto& m : all) by_id[m.id] = &m;
  const auto covered = [&](const MountLine& m) {
    return std::any_of(all.begin(), all.end(), [&](const MountLine& other) {
      return other.parent == m.id && other.point == m.point;
    });
  };
  std::vector<MountLine> out;
  for (const auto& m : all) {
    // Up the parent chain: a mount inside a covered parent is hidden; a
    // mount stacked on its parent (same point) is what covers it.
    bool reachable = !covered(m);
    for (const MountLine* at = &m; reachable;) {
      const auto parent = by_id.find(at->parent);
      if (parent == by_id.end() || parent->second == at) break;
      if (parent->second->point != at->point && covered(*parent->second)) reachable = false;
      at = parent->second;
    }
    if (reachable) out.push_back(m);
  }
  return out;
}

TEST_P(ProcAndSetIdTest, EveryReachableMountInsideIsNosuid) {
  set_policy(workspace_write());
  const auto result = run_as_caller({"/bin/cat", "/proc/self/mountinfo"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto mounts = reachable_mounts(result.out);
  std::set<std::string> points;
  for (const auto& m : mounts) {
    points.insert(m.point);
    EXPECT_NE(("," + m.options + ",").find(",nosuid,"), std::string::npos) << m.line;
  }
  // Not vacuous: the mounts the sandbox is made of are among them.
  for (const auto& point : {std::string("/"), std::string("/dev"), std::string("/proc"),
                            std::string("/tmp"), workspace_.string()}) {
    EXPECT_TRUE(points.contains(point)) << point << " in\n" << result.out;
  }
}

}  // namespace
}  // namespace holdfast::run::testing
