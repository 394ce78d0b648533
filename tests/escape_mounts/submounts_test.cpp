// Mounts below a bound path. bubblewrap's recursive binds carry every mount
// below the workspace with that mount's own flags: a chroot there (proc,
// sys, a bind of /etc) gave root inside a writable kernel.core_pattern and
// /etc, and a bind of a denied ~/.ssh under the workspace showed the key.
// Each test mounts on the host (as root) what a user's chroot or an
// earlier bind left there, then launches as root and as uid 65534.
#include <cerrno>
#include <cstring>

#include "escape_support.hpp"
#include "host_mount.hpp"
#include "launcher/sandbox/mount_table.hpp"

namespace holdfast::run::testing {
namespace {

using nlohmann::json;

class SubmountsTest : public EscapeTest {
 protected:
  json policy() const {
    return {{"filesystem",
             {{":root", "read"}, {":workspace", "write"}, {(home_ / ".ssh").string(), "deny"}}},
            {"network", "closed"}};
  }
};

// A chroot in the workspace: proc, sys, and binds of /etc and of a
// directory the policy keeps read-only.
TEST_P(SubmountsTest, AChrootsKernelInterfacesAndBindsStayClosed) {
  set_policy(policy());
  const fs::path chroot = workspace_ / "chroot";
  write_file(outside_ / "kept", "precious\n");
  own(outside_ / "kept");
  HostMount proc("proc", chroot / "proc", "proc");
  HostMount sys("sysfs", chroot / "sys", "sysfs");
  HostMount etc("/etc", chroot / "etc", "");
  HostMount out(outside_, chroot / "out", "");
  ASSERT_TRUE(proc.mounted() && sys.mounted() && etc.mounted() && out.mounted());
  const auto probe = probe_run(
      {"write:" + (chroot / "proc/sys/kernel/core_pattern").string(),
       "read:" + (chroot / "sys/kernel/uevent_seqnum").string(),
       "write:" + (chroot / "etc/hostname").string(), "write:" + (chroot / "out/kept").string()},
      as_caller());
  EXPECT_FALSE(probe.at("write:" + (chroot / "proc/sys/kernel/core_pattern").string()).allowed)
      << "the host's kernel.core_pattern is writable through the chroot's proc";
  EXPECT_FALSE(probe.at("read:" + (chroot / "sys/kernel/uevent_seqnum").string()).allowed)
      << "the host's sysfs shows through the chroot's sys";
  EXPECT_FALSE(probe.at("write:" + (chroot / "etc/hostname").string()).allowed)
      << "the host's /etc is writable through a bind below the workspace";
  EXPECT_FALSE(probe.at("write:" + (chroot / "out/kept").string()).allowed)
      << "a directory the policy keeps read-only is writable through a bind below the workspace";
  EXPECT_EQ(read_file(outside_ / "kept"), "precious\n");
}

// The denied ~/.ssh bound again under the workspace, and the whole home
// bound there: the key must stay unreadable and authorized_keys unwritable
// through both aliases.
TEST_P(SubmountsTest, ADeniedDirectoryBoundAgainUnderTheWorkspaceStaysDenied) {
  set_policy(policy());
  const fs::path ssh = home_ / ".ssh";
  fs::create_directory(ssh);
  write_file(ssh / "id_ed25519", "PRIVATE KEY\n");
  write_file(ssh / "authorized_keys", "ssh-ed25519 AAAA operator\n");
  for (const auto& p : {ssh, ssh / "id_ed25519", ssh / "authorized_keys"}) own(p);
  HostMount keys(ssh, workspace_ / "keys", "");
  HostMount home(home_, workspace_ / "h", "");
  ASSERT_TRUE(keys.mounted() && home.mounted());
  const auto probe = probe_run({"read:" + (workspace_ / "keys/id_ed25519").string(),
                                "write:" + (workspace_ / "keys/authorized_keys").string(),
                                "read:" + (workspace_ / "h/.ssh/id_ed25519").string(),
                                "write:" + (workspace_ / "h/.ssh/authorized_keys").string(),
                                "read:" + (ssh / "id_ed25519").string()},
                               as_caller());
  for (const auto& check : {"read:" + (workspace_ / "keys/id_ed25519").string(),
                            "write:" + (workspace_ / "keys/authorized_keys").string(),
                            "read:" + (workspace_ / "h/.ssh/id_ed25519").string(),
                            "write:" + (workspace_ / "h/.ssh/authorized_keys").string(),
                            "read:" + (ssh / "id_ed25519").string()}) {
    EXPECT_FALSE(probe.at(check).allowed) << check << ": the denied ~/.ssh shows through an alias";
  }
  EXPECT_EQ(read_file(ssh / "authorized_keys"), "ssh-ed25519 AAAA operator\n");
}

// What stays usable: a mount below the workspace that the policy names
// with write is writable; others are readable.
TEST_P(SubmountsTest, AMountThePolicyNamesWithWriteStaysWritable) {
  const fs::path data = workspace_ / "data";
  const fs::path cache = workspace_ / "cache";
  HostMount data_mount("tmpfs", data, "tmpfs");
  HostMount cache_mount("tmpfs", cache, "tmpfs");
  ASSERT_TRUE(data_mount.mounted() && cache_mount.mounted());
  own(data);
  own(cache);
  write_file(cache / "hit", "cached\n");
  own(cache / "hit");
  set_policy(
      {{"filesystem", {{":root", "read"}, {":workspace", "write"}, {data.string(), "write"}}},
       {"network", "closed"}});
  const auto result = run({"/bin/sh", "-c",
                           "echo new > data/file && cat cache/hit && "
                           "{ echo x > cache/hit; } 2>/dev/null; echo $?"},
                          {}, as_caller());
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "cached\n2\n") << result.err;
  EXPECT_EQ(read_file(data / "file"), "new\n");
  EXPECT_EQ(read_file(cache / "hit"), "cached\n");
}

INSTANTIATE_TEST_SUITE_P(Callers, SubmountsTest, ::testing::Values(Caller::root, Caller::user),
                         caller_name);

}  // namespace
}  // namespace holdfast::run::testing
