#include "launcher/sandbox/bwrap_args.hpp"

#include <map>
#include <stdexcept>

#include "launcher/sandbox/network_inside.hpp"

namespace holdfast::sandbox {

namespace {

// One operation as bubblewrap's options: "--perms" and "--size" come
// before the operation they modify.
void render(const MountOp& op, const BuildOptions& options, std::size_t& empty_files,
            std::vector<std::string>& args) {
  using K = MountOp::Kind;
  if (!op.perms.empty()) args.insert(args.end(), {"--perms", op.perms});
  if (!op.size.empty()) args.insert(args.end(), {"--size", op.size});
  switch (op.kind) {
    case K::bind:
    case K::ro_bind: {
      const bool write = op.kind == K::bind;
      if (!options.bind_fds) {
        args.insert(args.end(), {write ? "--bind" : "--ro-bind", op.path, op.path});
        return;
      }
      const auto fd = options.bind_fds->find(op.path);
      if (fd == options.bind_fds->end()) {
        throw std::invalid_argument("build_bwrap_args: no descriptor for the bind source " +
                                    op.path);
      }
      args.insert(args.end(),
                  {write ? "--bind-fd" : "--ro-bind-fd", std::to_string(fd->second), op.path});
      return;
    }
    case K::dev:
      args.insert(args.end(), {"--dev", op.path});
      return;
    case K::proc:
      args.insert(args.end(), {"--proc", op.path});
      return;
    case K::tmpfs:
      args.insert(args.end(), {"--tmpfs", op.path});
      return;
    case K::dir:
      args.insert(args.end(), {"--dir", op.path});
      return;
    case K::denied_file: {
      const int fd = options.empty_file_fds.empty() ? *options.empty_file_fd
                                                    : options.empty_file_fds.at(empty_files);
      ++empty_files;
      args.insert(args.end(), {"--ro-bind-data", std::to_string(fd), op.path});
      return;
    }
    case K::data_file:
      if (!options.resolv_conf_fd) {
        throw std::invalid_argument(
            "build_bwrap_args: a network allow-list needs BuildOptions::resolv_conf_fd");
      }
      args.insert(args.end(), {"--ro-bind-data", std::to_string(*options.resolv_conf_fd), op.path});
      return;
    case K::symlink:
      args.insert(args.end(), {"--symlink", op.target, op.path});
      return;
    case K::chmod:
      args.insert(args.end(), {"--chmod", op.target, op.path});
      return;
    case K::remount_ro:
      args.insert(args.end(), {"--remount-ro", op.path});
      return;
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> command_environment(const HostFacts& facts,
                                                                     const Policy& policy) {
  std::map<std::string, std::string> env;
  for (const auto& [name, value] : facts.environment) {
    if (is_inherited_env(name)) env[name] = value;
  }
  if (!env.contains("PATH")) env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  if (!facts.tokens.home.empty()) env["HOME"] = facts.tokens.home;  // canonical: bound there
  env["TMPDIR"] = "/tmp";
  if (policy.network == Network::allow_list) {
    for (auto& [name, value] : proxy_environment(facts.holdfast_executable)) env[name] = value;
  }
  return {env.begin(), env.end()};
}

std::vector<std::string> build_bwrap_args(const Policy& policy, const HostFacts& facts,
                                          const MountPlan& mounts,
                                          const std::vector<std::string>& command,
                                          const BuildOptions& options) {
  if (command.empty()) throw std::invalid_argument("build_bwrap_args: empty command");
  const bool one_fd =
      options.empty_file_fds.empty() && options.empty_file_fd && mounts.empty_files <= 1;
  if (mounts.needs_empty_file && !one_fd && options.empty_file_fds.size() != mounts.empty_files) {
    throw std::invalid_argument(
        "build_bwrap_args: the policy denies " + std::to_string(mounts.empty_files) +
        " files; each needs its own empty-file descriptor (BuildOptions::empty_file_fds)");
  }
  std::vector<std::string> args = {options.bwrap_path, "--unshare-user", "--unshare-pid",
                                   "--unshare-ipc",    "--unshare-uts",  "--unshare-cgroup-try"};
  // An allow-list's namespace is empty too: the proxy's sockets are put in
  // it at the start gate (launcher/run/network_proxy.hpp).
  if (policy.network != Network::open) args.push_back("--unshare-net");
  args.insert(args.end(), {"--new-session", "--die-with-parent", "--cap-drop", "ALL",
                           "--disable-userns", "--clearenv"});
  for (const auto& [name, value] : command_environment(facts, policy)) {
    args.insert(args.end(), {"--setenv", name, value});
  }
  std::size_t empty_files = 0;
  for (const auto& op : mounts.ops) render(op, options, empty_files, args);
  args.insert(args.end(), {"--chdir", facts.cwd.canonical});
  if (options.seccomp_fd) {
    args.insert(args.end(), {"--seccomp", std::to_string(*options.seccomp_fd)});
  }
  args.push_back("--");
  args.insert(args.end(), command.begin(), command.end());
  return args;
}

std::vector<std::string> build_bwrap_args(const Policy& policy, const HostFacts& facts,
                                          const std::vector<std::string>& command,
                                          const BuildOptions& options) {
  return build_bwrap_args(policy, facts, plan_mounts(resolve_policy(policy, facts), facts), command,
                          options);
}

}  // namespace holdfast::sandbox
