#include "launcher/sandbox/mount_table.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <charconv>

#include "base/fd.hpp"
#include "base/system_error.hpp"
#include "launcher/sandbox/paths.hpp"

namespace holdfast::sandbox {

namespace {

constexpr std::string_view kKernelInterfaces[] = {
    "proc",     "sysfs",      "devtmpfs",  "devpts",  "debugfs",    "tracefs",     "securityfs",
    "configfs", "bpf",        "cgroup",    "cgroup2", "fusectl",    "binfmt_misc", "efivarfs",
    "pstore",   "mqueue",     "hugetlbfs", "autofs",  "rpc_pipefs", "nfsd",        "selinuxfs",
    "smackfs",  "nsfs",       "binder",    "resctrl", "apparmorfs", "ipathfs",     "qibfs",
    "usbfs",    "functionfs", "xenfs"};

// The next space-separated field of `line` from `at`; empty at the end.
std::string_view next_field(std::string_view line, std::size_t& at) {
  while (at < line.size() && line[at] == ' ') ++at;
  const std::size_t start = at;
  while (at < line.size() && line[at] != ' ') ++at;
  return line.substr(start, at - start);
}

// \ooo escapes back to their bytes; anything else as written.
std::string unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto octal = [&](std::size_t k) { return text[k] >= '0' && text[k] <= '7'; };
    if (text[i] == '\\' && i + 3 < text.size() && octal(i + 1) && octal(i + 2) && octal(i + 3)) {
      out.push_back(static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 +
                                      (text[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

bool parse_int(std::string_view text, int& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

bool parse_device(std::string_view text, dev_t& device) {
  const auto colon = text.find(':');
  int major_number = 0;
  int minor_number = 0;
  if (colon == std::string_view::npos || !parse_int(text.substr(0, colon), major_number) ||
      !parse_int(text.substr(colon + 1), minor_number) || major_number < 0 || minor_number < 0) {
    return false;
  }
  device = makedev(static_cast<unsigned>(major_number), static_cast<unsigned>(minor_number));
  return true;
}

bool has_option(std::string_view options, std::string_view name) {
  std::size_t start = 0;
  while (start <= options.size()) {
    const std::size_t end = std::min(options.find(',', start), options.size());
    if (options.substr(start, end - start) == name) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

MountTable parse_mountinfo(std::string_view text) {
  MountTable table;
  std::size_t line_start = 0;
  int line_number = 0;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    const std::string_view line = text.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    ++line_number;
    if (line.empty()) continue;
    const auto bad = [&](const std::string& what) {
      return MountTableError("mountinfo line " + std::to_string(line_number) + ": " + what + ": " +
                             std::string(line.substr(0, 200)));
    };
    std::size_t at = 0;
    MountEntry entry;
    if (!parse_int(next_field(line, at), entry.id)) throw bad("no mount id");
    if (!parse_int(next_field(line, at), entry.parent_id)) throw bad("no parent id");
    if (!parse_device(next_field(line, at), entry.device)) throw bad("no major:minor");
    const std::string_view root = next_field(line, at);
    const std::string_view mount_point = next_field(line, at);
    const std::string_view options = next_field(line, at);
    if (root.empty() || mount_point.empty() || options.empty()) throw bad("too few fields");
    entry.root = unescape(root);
    entry.mount_point = unescape(mount_point);
    entry.read_only = has_option(options, "ro");
    // Optional fields (shared:N, master:N, ...) up to the separator.
    for (std::string_view field = next_field(line, at);; field = next_field(line, at)) {
      if (field.empty()) throw bad("no \" - \" separator");
      if (field == "-") break;
    }
    entry.fs_type = unescape(next_field(line, at));
    entry.source = unescape(next_field(line, at));
    if (entry.fs_type.empty()) throw bad("no filesystem type");
    table.push_back(std::move(entry));
  }
  return table;
}

namespace {

// Opens the mount table at `path`; the kernel notes, at the open, how many
// mounts, unmounts and remounts its namespace has seen.
base::UniqueFd open_mountinfo(const std::string& path) {
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) base::throw_errno("cannot open the mount table", path);
  return fd;
}

// Whether a mount, an unmount or a remount happened in the namespace of
// the table open as `fd` since it was opened: the kernel then reports a
// priority event on it (proc(5), "/proc/pid/mounts ... pollable").
bool changed_since_open(const base::UniqueFd& fd, const std::string& path) {
  pollfd event{fd.get(), POLLPRI, 0};
  const int ready = ::poll(&event, 1, 0);
  if (ready < 0) base::throw_errno("cannot poll the mount table", path);
  return (event.revents & (POLLPRI | POLLERR)) != 0;
}

}  // namespace

std::string read_mountinfo_once(const std::string& pid) {
  const std::string path = "/proc/" + pid + "/mountinfo";
  return base::read_all(open_mountinfo(path).get(), path);
}

std::string read_mountinfo(const std::string& pid) {
  const std::string path = "/proc/" + pid + "/mountinfo";
  // The kernel hands the table out a page per read(), so a reading that
  // spans a change joins the table from before it with the one after (and
  // kernels before 5.8, which resumed by position, could skip an entry:
  // seen, a mount made before the read was absent from the plan). A
  // reading that no change overlapped is whole: one reading and a look at
  // the kernel's change count, again while that moved.
  for (int attempt = 0; attempt < 16; ++attempt) {
    const base::UniqueFd fd = open_mountinfo(path);
    std::string text = base::read_all(fd.get(), path);
    if (!changed_since_open(fd, path)) return text;
  }
  throw MountTableError(path +
                        " kept changing while it was read (mounts made and removed "
                        "without pause); try again when the host is quieter");
}

bool is_kernel_interface(std::string_view fs_type) {
  return std::find(std::begin(kKernelInterfaces), std::end(kKernelInterfaces), fs_type) !=
         std::end(kKernelInterfaces);
}

bool is_system_sysfs(const MountEntry& mount) {
  if (mount.fs_type == "sysfs") return mount.mount_point == "/sys";
  if (mount.fs_type == "cgroup" || mount.fs_type == "cgroup2") {
    return is_within(mount.mount_point, "/sys/fs/cgroup");
  }
  return false;
}

}  // namespace holdfast::sandbox
