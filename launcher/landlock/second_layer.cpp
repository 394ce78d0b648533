#include "launcher/landlock/second_layer.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "base/system_error.hpp"
#include "launcher/sandbox/refusal.hpp"
#include "settings/key_path.hpp"

// The helper's bytes (embedded_helper.S, from the holdfast-landlock build).
extern "C" const char holdfast_landlock_helper_start[];
extern "C" const char holdfast_landlock_helper_end[];

namespace holdfast::landlock {

namespace {

// "DEV:INO", as the helper reads an identity.
std::string identity(const sandbox::FileId& id) {
  return std::to_string(id.device) + ":" + std::to_string(id.inode);
}

std::string_view helper_program() {
  return {holdfast_landlock_helper_start,
          static_cast<std::size_t>(holdfast_landlock_helper_end - holdfast_landlock_helper_start)};
}

}  // namespace

int kernel_abi(std::string* why) {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  if (abi < 0) {
    if (why != nullptr) {
      *why = errno == EOPNOTSUPP ? "the kernel was built with Landlock but booted without it "
                                   "(lsm= lacks landlock)"
             : errno == ENOSYS   ? "the kernel has no Landlock (Linux 5.13 or later, built with "
                                   "CONFIG_SECURITY_LANDLOCK)"
                                 : std::string("landlock_create_ruleset: ") + std::strerror(errno);
    }
    return 0;
  }
  return static_cast<int>(abi);
}

bool required_by(const settings::Effective& effective) {
  const auto* flag = settings::find_value(effective.value, {"security", "requireLandlock"});
  return flag != nullptr && flag->is_boolean() && flag->get<bool>();
}

bool helper_embedded() { return !helper_program().empty(); }

int launch_abi(bool required) {
  std::string why;
  const int kernel = kernel_abi(&why);
  return choose_abi(kernel, helper_embedded(), required, std::move(why));
}

int choose_abi(int kernel, bool embedded, bool required, std::string why) {
  int abi = kernel;
  if (abi > 0 && !embedded) {
    abi = 0;
    why = "this holdfast was built without its Landlock helper";
  }
  if (abi == 0 && required) {
    throw sandbox::Refused(
        {{"landlock-required", "security.requireLandlock", "",
          "an operator scope requires Landlock as the sandbox's second layer, and it is not "
          "available: " +
              why,
          "run on a kernel with Landlock enabled (Linux 5.13+, CONFIG_SECURITY_LANDLOCK=y, "
          "landlock in lsm=), or remove security.requireLandlock; holdfast doctor shows what "
          "this host supports"}});
  }
  return std::min(abi, kNewestAbi);
}

std::vector<std::string> helper_argv(const Plan& plan, int abi, const std::string& helper_path,
                                     const std::optional<sandbox::FileId>& cwd,
                                     std::optional<int> ruleset_fd) {
  std::vector<std::string> argv = {helper_path, "--abi", std::to_string(abi)};
  if (cwd) {
    argv.insert(argv.end(),
                {"--cwd", std::to_string(cwd->device) + ":" + std::to_string(cwd->inode)});
  }
  if (abi == 0) {
    argv.emplace_back("--");
    return argv;
  }
  if (ruleset_fd) {
    // Made with the TCP and scope options already (ruleset_attr).
    argv.insert(argv.end(), {"--ruleset", std::to_string(*ruleset_fd)});
  } else {
    if (plan.tcp_closed) argv.emplace_back("--tcp-closed");
    if (plan.scopes != 0) {
      std::string scopes;
      if ((plan.scopes & kScopeAbstractUnixSocket) != 0) scopes += 'a';
      if ((plan.scopes & kScopeSignal) != 0) scopes += 's';
      argv.insert(argv.end(), {"--scope", scopes});
    }
  }
  for (const auto& rule : plan.rules) {
    if (ruleset_fd && rule.on_host) continue;  // in the ruleset already
    if (!rule.split && rule.id) {
      argv.insert(argv.end(),
                  {"--beneath-id", rights_letters(rule.here), identity(*rule.id), rule.path});
      continue;
    }
    if (!rule.split) {
      argv.insert(argv.end(), {"--beneath", rights_letters(rule.here), rule.path});
      continue;
    }
    argv.insert(argv.end(), {"--split", rights_letters(rule.here), rights_letters(rule.entries),
                             rule.path, std::to_string(rule.skip.size())});
    argv.insert(argv.end(), rule.skip.begin(), rule.skip.end());
  }
  argv.emplace_back("--");
  return argv;
}

base::UniqueFd helper_memfd() {
  // MFD_EXEC (Linux 6.3+) says the memfd is meant to be executed, where
  // vm.memfd_noexec asks; older kernels do not know the flag.
  constexpr unsigned kMfdExec = 0x0010U;
  base::UniqueFd fd(
      ::memfd_create("holdfast-landlock", MFD_CLOEXEC | MFD_ALLOW_SEALING | kMfdExec));
  if (!fd.valid() && errno == EINVAL) {
    fd.reset(::memfd_create("holdfast-landlock", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  }
  if (!fd.valid()) base::throw_errno("cannot create a memfd for", "the Landlock helper");
  base::write_all(fd.get(), helper_program(), "the Landlock helper's memfd");
  if (::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) !=
      0) {
    base::throw_errno("cannot seal", "the Landlock helper's memfd");
  }
  return fd;
}

}  // namespace holdfast::landlock
