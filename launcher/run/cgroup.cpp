#include "launcher/run/cgroup.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <sstream>

#include "base/files.hpp"
#include "base/system_error.hpp"

namespace holdfast::launcher::cgroup {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;
// How long the end of a launch waits for its sandbox's last processes to
// leave the cgroup (they are being killed; a process stuck in the kernel
// leaves its cgroup to the next launch's sweep instead).
constexpr std::chrono::milliseconds kLeavingTime{2000};
constexpr std::string_view kNamePrefix = "holdfast.launch-";
const fs::path kCgroupRoot = "/sys/fs/cgroup";

bool is_file_system(const fs::path& path, long magic) {
  struct statfs st {};
  return ::statfs(path.c_str(), &st) == 0 && static_cast<long>(st.f_type) == magic;
}

bool has_word(std::string_view list, std::string_view word, char separator) {
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(separator, start), list.size());
    if (list.substr(start, end - start) == word) return true;
    start = end + 1;
  }
  return false;
}

// The lines of `text`, without their newlines (no empty last one).
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string read_text(const fs::path& file) {
  try {
    return base::read_file(file);
  } catch (const base::SystemError&) {
    return {};
  }
}

// Whether a v2 control file listing controllers ("cpu memory pids\n")
// names both of the bounds'.
bool lists_bounds(const fs::path& file) {
  std::string controllers = read_text(file);
  for (char& c : controllers) {
    if (c == '\n') c = ' ';
  }
  return has_word(controllers, "pids", ' ') && has_word(controllers, "memory", ' ');
}

// The controllers a v2 cgroup can give its children.
bool v2_offers_bounds(const fs::path& dir) { return lists_bounds(dir / "cgroup.controllers"); }

// Already given to the children: nothing to enable per launch.
bool v2_gives_bounds(const fs::path& dir) { return lists_bounds(dir / "cgroup.subtree_control"); }

// v2 lets a cgroup with processes of its own give no controllers to its
// children, except the hierarchy's true root (which has no cgroup.type). The
// top of a cgroup namespace (a container's own cgroup, seen as "/") is not
// that root.
bool v2_cannot_give_bounds(const fs::path& dir) {
  if (v2_gives_bounds(dir) || !fs::exists(dir / "cgroup.type")) return false;
  return !read_text(dir / "cgroup.procs").empty();
}

bool writable(const fs::path& path) { return ::access(path.c_str(), W_OK) == 0; }

std::string who() {
  return ::geteuid() == 0 ? std::string("root") : "uid " + std::to_string(::geteuid());
}

Placement place_v2(const std::vector<Membership>& own) {
  Placement placement;
  std::string path;
  for (const auto& m : own) {
    if (m.controllers.empty()) path = m.path;
  }
  const fs::path parent = path.empty() || path == "/"
                              ? kCgroupRoot
                              : kCgroupRoot / fs::path(path).relative_path().parent_path();
  if (!v2_offers_bounds(parent)) {
    placement.unavailable = "the cgroup " + parent.string() +
                            " does not offer the pids and memory controllers (cgroup.controllers)";
    return placement;
  }
  if (v2_cannot_give_bounds(parent)) {
    placement.unavailable =
        "the cgroup " + parent.string() +
        " has processes of its own, so cgroup v2 lets it give no controllers to a launch's "
        "cgroup: start holdfast in a cgroup of its own below it (e.g. move the container's "
        "processes into a child cgroup and enable +pids +memory in " +
        parent.string() + "/cgroup.subtree_control)";
    return placement;
  }
  if (!writable(parent) || !writable(parent / "cgroup.procs") ||
      !writable(parent / "cgroup.subtree_control")) {
    placement.unavailable =
        "the cgroup " + parent.string() +
        " (the parent of this process's own) is not delegated to " + who() +
        ": start holdfast in a delegated cgroup, e.g. under systemd: systemd-run --user --scope "
        "-p Delegate=yes holdfast run ...";
    return placement;
  }
  placement.version = Version::v2;
  placement.hierarchies.push_back({"", parent});
  return placement;
}

Placement place_v1(const std::vector<Membership>& own) {
  Placement placement;
  for (const std::string controller : {"pids", "memory"}) {
    std::string path = "/";
    for (const auto& m : own) {
      if (has_word(m.controllers, controller, ',')) path = m.path;
    }
    const fs::path parent = kCgroupRoot / controller / fs::path(path).relative_path();
    if (!writable(parent)) {
      placement.unavailable = "the cgroup " + parent.string() +
                              " (this process's own) is not writable by " + who() +
                              ": an administrator can give the user a cgroup of their own in the "
                              "pids and memory hierarchies and start holdfast in it";
      placement.hierarchies.clear();
      return placement;
    }
    placement.hierarchies.push_back({controller, parent});
  }
  placement.version = Version::v1;
  return placement;
}

bool process_alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

// Cgroups of launches whose holdfast is gone: the sandbox's last processes
// were still leaving when it ended, so rmdir failed then.
void sweep_stale(const fs::path& parent) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(kNamePrefix)) continue;
    const pid_t pid = static_cast<pid_t>(std::atol(name.c_str() + kNamePrefix.size()));
    if (pid > 0 && !process_alive(pid)) ::rmdir(entry.path().c_str());
  }
}

// The first process listed in `procs` (a cgroup.procs text) other than
// `allowed`; 0 when there is none.
pid_t first_other(std::string_view procs, pid_t allowed) {
  for (const std::string_view line : lines_of(procs)) {
    pid_t pid = 0;
    std::from_chars(line.data(), line.data() + line.size(), pid);
    if (pid > 0 && pid != allowed) return pid;
  }
  return 0;
}

// bubblewrap's outer process ends as soon as its init reports the
// command's status, while that init (and, through it, the rest of the
// sandbox's PID namespace) is still being killed: the cgroup empties a
// moment later. Waits for each process listed in `dir`'s cgroup.procs but
// `allowed` to end (a pidfd each: an event, no polling of the file), until
// none but `allowed` is left or `limit` has passed. A pid reused by a
// process outside the cgroup after it was listed costs at most the limit.
void wait_for_all_but(const fs::path& dir, pid_t allowed, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const pid_t pid = first_other(read_text(dir / "cgroup.procs"), allowed);
    if (pid == 0) return;
    const base::UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
    if (!pidfd.valid()) {
      if (errno == ESRCH) continue;  // gone between the read and the open
      return;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return;
    pollfd ended{pidfd.get(), POLLIN, 0};
    const int ready = ::poll(&ended, 1, static_cast<int>(left.count()));
    if (ready == 0 || (ready < 0 && errno != EINTR)) return;
  }
}

std::string launch_name() {
  static std::atomic<unsigned> counter{0};
  return std::string(kNamePrefix) + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

std::string format_bytes(std::uint64_t bytes) {
  std::ostringstream out;
  if (bytes % (kMiB * 1024) == 0) {
    out << bytes / (kMiB * 1024) << " GiB";
  } else {
    out << bytes / kMiB << " MiB";
  }
  return out.str();
}

}  // namespace

Bounds bounds_for(const sandbox::Limits& limits, std::uint64_t memory_total_bytes) {
  Bounds bounds;
  bounds.tasks = limits.processes.value_or(sandbox::kDefaultProcesses);
  if (limits.memory_mib) {
    bounds.memory_bytes = *limits.memory_mib * kMiB;
  } else if (memory_total_bytes > 0) {
    bounds.memory_bytes = memory_total_bytes / 2;
  }
  return bounds;
}

bool operator_set(const sandbox::Limits& limits) {
  return limits.processes.has_value() || limits.memory_mib.has_value();
}

std::vector<Membership> parse_proc_cgroup(std::string_view text) {
  std::vector<Membership> out;
  for (const std::string_view line : lines_of(text)) {
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    out.push_back({std::string(line.substr(first + 1, second - first - 1)),
                   std::string(line.substr(second + 1))});
  }
  return out;
}

std::vector<ControlWrite> control_writes(Version version, std::string_view controller,
                                         const Bounds& bounds) {
  std::vector<ControlWrite> out;
  const bool pids = version == Version::v2 || controller == "pids";
  const bool memory = version == Version::v2 || controller == "memory";
  if (pids && bounds.tasks) out.push_back({"pids.max", std::to_string(*bounds.tasks)});
  if (memory && bounds.memory_bytes) {
    const std::string bytes = std::to_string(*bounds.memory_bytes);
    if (version == Version::v2) {
      out.push_back({"memory.max", bytes});
      // Swap would let a hog go on past memory.max, slowing the host.
      out.push_back({"memory.swap.max", "0", /*optional=*/true});
    } else {
      out.push_back({"memory.limit_in_bytes", bytes});
      // memory + swap no larger than memory: no swap (when the kernel
      // accounts swap at all).
      out.push_back({"memory.memsw.limit_in_bytes", bytes, /*optional=*/true});
    }
  }
  return out;
}

Placement find_placement() {
  const std::vector<Membership> own = parse_proc_cgroup(read_text("/proc/self/cgroup"));
  if (is_file_system(kCgroupRoot, CGROUP2_SUPER_MAGIC)) return place_v2(own);
  if (is_file_system(kCgroupRoot / "pids", CGROUP_SUPER_MAGIC) &&
      is_file_system(kCgroupRoot / "memory", CGROUP_SUPER_MAGIC)) {
    return place_v1(own);
  }
  Placement placement;
  placement.unavailable =
      "this host has neither a cgroup v2 hierarchy at /sys/fs/cgroup nor cgroup v1 pids and memory "
      "hierarchies at /sys/fs/cgroup/pids and /sys/fs/cgroup/memory";
  return placement;
}

std::string describe(const Bounds& bounds, const Placement& placement, bool operator_bounds) {
  std::string what;
  if (bounds.tasks) what = "processes and threads at most " + std::to_string(*bounds.tasks);
  if (bounds.memory_bytes) {
    what += (what.empty() ? "" : ", ") + std::string("memory at most ") +
            format_bytes(*bounds.memory_bytes) +
            " (anonymous memory, tmpfs and /dev/shm files, memfds)";
  }
  if (what.empty()) return "no per-sandbox bounds";
  what += " for the whole sandbox";
  if (!placement.version) {
    return what + ": NOT enforced on this host, because " + placement.unavailable +
           (operator_bounds ? " (an operator set them, so launches are refused)"
                            : " (these are the built-in defaults, so launches go ahead)");
  }
  what += ", in a cgroup (" + std::string(*placement.version == Version::v2 ? "v2" : "v1") +
          ") made for each launch under ";
  for (std::size_t i = 0; i < placement.hierarchies.size(); ++i) {
    what += (i == 0 ? "" : " and ") + placement.hierarchies[i].parent.string();
  }
  return what;
}

LaunchGroup::LaunchGroup(const Placement& placement, const Bounds& bounds) {
  if (!placement.version) {
    throw base::SystemError("cannot bound the launch in a cgroup under", kCgroupRoot,
                            placement.unavailable);
  }
  const std::string name = launch_name();
  try {
    for (const Hierarchy& hierarchy : placement.hierarchies) {
      sweep_stale(hierarchy.parent);
      if (*placement.version == Version::v2 && !v2_gives_bounds(hierarchy.parent)) {
        // The parent gives both controllers to its children.
        const fs::path subtree = hierarchy.parent / "cgroup.subtree_control";
        base::UniqueFd control(::open(subtree.c_str(), O_WRONLY | O_CLOEXEC));
        if (!control.valid()) base::throw_errno("cannot open", subtree);
        base::write_all(control.get(), "+pids +memory", subtree);
      }
      const fs::path dir = hierarchy.parent / name;
      if (::mkdir(dir.c_str(), 0755) != 0) base::throw_errno("cannot create the cgroup", dir);
      directories_.push_back(dir);
      if (*placement.version == Version::v2) {
        memory_events_ = dir / "memory.events";
      } else if (hierarchy.controller == "memory") {
        memory_events_ = dir / "memory.oom_control";
      }
      for (const ControlWrite& write :
           control_writes(*placement.version, hierarchy.controller, bounds)) {
        const fs::path file = dir / write.file;
        base::UniqueFd fd(::open(file.c_str(), O_WRONLY | O_CLOEXEC));
        if (!fd.valid() && errno == ENOENT && write.optional) continue;
        if (!fd.valid()) base::throw_errno("cannot open", file);
        base::write_all(fd.get(), write.value, file);
      }
      // v1: `tasks`, which moves the writing thread without the global
      // lock a cgroup.procs write takes (see cgroup.hpp); v2 has no such
      // file outside threaded cgroups.
      const fs::path join = dir / (*placement.version == Version::v1 ? "tasks" : "cgroup.procs");
      base::UniqueFd fd(::open(join.c_str(), O_WRONLY | O_CLOEXEC));
      if (!fd.valid()) base::throw_errno("cannot open", join);
      join_.push_back(std::move(fd));
    }
  } catch (...) {
    for (auto it = directories_.rbegin(); it != directories_.rend(); ++it) ::rmdir(it->c_str());
    throw;
  }
}

LaunchGroup::~LaunchGroup() {
  join_.clear();
  if (!directories_.empty()) wait_for_all_but(directories_.front(), 0, kLeavingTime);
  // Fails with EBUSY when processes outlived the wait; a later launch
  // sweeps it then.
  for (const fs::path& dir : directories_) ::rmdir(dir.c_str());
}

void LaunchGroup::wait_until_only(pid_t init) const {
  if (!directories_.empty()) wait_for_all_but(directories_.front(), init, kLeavingTime);
}

std::uint64_t LaunchGroup::memory_kills() const {
  return memory_events_.empty() ? 0 : keyed_value(read_text(memory_events_), "oom_kill");
}

std::uint64_t keyed_value(std::string_view text, std::string_view key) {
  for (const std::string_view line : lines_of(text)) {
    if (line.size() > key.size() && line.starts_with(key) && line[key.size()] == ' ') {
      return std::strtoull(std::string(line.substr(key.size() + 1)).c_str(), nullptr, 10);
    }
  }
  return 0;
}

std::string memory_bound_reached(std::uint64_t kills, const Bounds& bounds) {
  return "the sandbox reached its memory bound" +
         (bounds.memory_bytes ? " (" + format_bytes(*bounds.memory_bytes) + ")" : std::string()) +
         ": the kernel ended " + std::to_string(kills) +
         " of its processes (raise limits.memoryMiB if the command needs more)";
}

std::vector<int> LaunchGroup::join_fds() const {
  std::vector<int> out;
  for (const auto& fd : join_) out.push_back(fd.get());
  return out;
}

std::uint64_t memory_total_bytes() {
  const std::string text = read_text("/proc/meminfo");
  constexpr std::string_view key = "MemTotal:";
  const std::size_t at = text.find(key);
  if (at == std::string::npos) return 0;
  return std::strtoull(text.c_str() + at + key.size(), nullptr, 10) * 1024;
}

}  // namespace holdfast::launcher::cgroup
