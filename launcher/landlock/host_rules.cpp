#include "launcher/landlock/host_rules.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/dir_entries.hpp"
#include "base/system_error.hpp"

namespace holdfast::landlock {

namespace {

class HostRules {
 public:
  HostRules(int ruleset, int abi) : ruleset_(ruleset), abi_(abi) {}

  // An unsplit rule: on `rule.path` and below it.
  bool beneath(const PathRule& rule) {
    const base::UniqueFd fd(::open(rule.path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) {
      if (errno != ENOENT) base::throw_errno("cannot open, for its Landlock rule,", rule.path);
      if (rule.id) return moved(rule.path);
      return true;  // gone: nothing to grant
    }
    const struct stat st = stat_of(fd.get(), rule.path);
    if (rule.id && (st.st_dev != rule.id->device || st.st_ino != rule.id->inode)) {
      return moved(rule.path);
    }
    if (S_ISLNK(st.st_mode)) return true;  // its target has a rule of its own, or none
    add(fd.get(), S_ISDIR(st.st_mode), rule.here, rule.path);
    return true;
  }

  // A split rule: `rule.here` on the directory, `rule.entries` on and below
  // each of its entries but the skipped ones.
  void split(const PathRule& rule) {
    const base::UniqueFd dir(
        ::open(rule.path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir.valid()) {
      if (errno == ENOENT) return;
      base::throw_errno("cannot open, for its Landlock rules,", rule.path);
    }
    add(dir.get(), true, rule.here, rule.path);
    const int error = base::for_each_entry(dir.get(), [&](std::string_view name,
                                                          unsigned char type) {
      if (type == DT_LNK) return true;  // its target has a rule of its own, or none
      if (std::find(rule.skip.begin(), rule.skip.end(), name) != rule.skip.end()) return true;
      const base::UniqueFd entry(::openat(dir.get(), name.data(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
      if (!entry.valid()) {
        if (errno == ENOENT) return true;  // gone since it was listed
        base::throw_errno("cannot open, for its Landlock rule, an entry of", rule.path);
      }
      // The listing's type saves a stat; an entry of unknown type, or one
      // replaced since it was listed, is looked at.
      if (type != DT_UNKNOWN && try_add(entry.get(), type == DT_DIR, rule.entries)) {
        return true;
      }
      const struct stat st = stat_of(entry.get(), rule.path);
      if (!S_ISLNK(st.st_mode)) add(entry.get(), S_ISDIR(st.st_mode), rule.entries, rule.path);
      return true;
    });
    if (error != 0)
      throw base::SystemError("cannot list, for its Landlock rules,", rule.path, error);
  }

  HostRulesResult result;

 private:
  bool moved(const std::string& path) {
    result.moved = path;
    return false;
  }

  static struct stat stat_of(int fd, const std::string& path) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) base::throw_errno("cannot stat, for its Landlock rule,", path);
    return st;
  }

  void add(int fd, bool directory, Rights wanted, const std::string& path) {
    if (!try_add(fd, directory, wanted)) {
      base::throw_errno("cannot add the Landlock rule for", path);
    }
  }

  // False (errno set) when the kernel refuses the rule: EINVAL for a
  // directory's rights on what is not a directory (any longer).
  bool try_add(int fd, bool directory, Rights wanted) {
    const Rights rights = rule_rights(wanted, abi_, directory);
    if (rights == 0) return true;
    const PathBeneathAttr attr{rights, fd};
    if (::syscall(SYS_landlock_add_rule, ruleset_, kRulePathBeneath, &attr, 0) == 0) {
      ++result.rules;
      return true;
    }
    return false;
  }

  int ruleset_;
  int abi_;
};

}  // namespace

base::UniqueFd make_ruleset(const Plan& plan, int abi) {
  const RulesetAttr attr = ruleset_attr(abi, plan.tcp_closed, plan.scopes);
  base::UniqueFd fd(
      static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, ruleset_attr_size(abi), 0)));
  if (!fd.valid()) base::throw_errno("cannot create", "the launch's Landlock ruleset");
  // landlock_create_ruleset makes it close-on-exec already; the launch
  // hands it to bubblewrap by name (LaunchPlan::inherited_fds).
  return fd;
}

HostRulesResult add_host_rules(int ruleset, const Plan& plan, int abi) {
  HostRules rules(ruleset, abi);
  for (const auto& rule : plan.rules) {
    if (!rule.on_host) continue;
    if (rule.split) {
      rules.split(rule);
    } else if (!rules.beneath(rule)) {
      break;
    }
  }
  return rules.result;
}

}  // namespace holdfast::landlock
