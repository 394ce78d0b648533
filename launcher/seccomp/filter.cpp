#include "launcher/seccomp/filter.hpp"

#include <cerrno>
#include <cstring>
#include <vector>

namespace holdfast::seccomp {
namespace {

scmp_arg_cmp to_libseccomp(const ArgTest& test) {
  switch (test.op) {
    // Spelled out rather than with SCMP_CMP, whose two-value form leaves
    // datum_b to the macro's variadic tail (clang warns of the missing field).
    case ArgOp::equal:
      return scmp_arg_cmp{test.index, SCMP_CMP_EQ, test.value, 0};
    case ArgOp::not_equal:
      return scmp_arg_cmp{test.index, SCMP_CMP_NE, test.value, 0};
    case ArgOp::masked_equal:
      return scmp_arg_cmp{test.index, SCMP_CMP_MASKED_EQ, test.mask, test.value};
  }
  throw SeccompError("unknown argument test", EINVAL);
}

void check(int rc, const std::string& operation) {
  if (rc < 0) throw SeccompError(operation, -rc);
}

void add_rule(scmp_filter_ctx ctx, const Rule& rule) {
  const int nr = seccomp_syscall_resolve_name(rule.syscall.c_str());
  if (nr == __NR_SCMP_ERROR) {
    throw SeccompError("libseccomp does not know the system call " + rule.syscall +
                           " on this architecture; upgrade libseccomp",
                       ENOSYS);
  }
  const std::uint32_t action = SCMP_ACT_ERRNO(static_cast<std::uint16_t>(rule.error));
  const std::string what = "cannot add the rule refusing " + rule.syscall;
  if (rule.when_any.empty()) {
    // The _exact form: fail rather than let libseccomp rewrite the rule.
    check(seccomp_rule_add_exact(ctx, action, nr, 0), what);
    return;
  }
  for (const std::vector<ArgTest>& all_of : rule.when_any) {
    std::vector<scmp_arg_cmp> comparisons;
    comparisons.reserve(all_of.size());
    for (const ArgTest& test : all_of) comparisons.push_back(to_libseccomp(test));
    check(seccomp_rule_add_exact_array(ctx, action, nr, static_cast<unsigned>(comparisons.size()),
                                       comparisons.data()),
          what + " when " + rule.condition);
  }
}

}  // namespace

SeccompError::SeccompError(const std::string& operation, int error_code)
    : std::runtime_error("seccomp: " + operation + ": " + std::strerror(error_code) +
                         " (libseccomp error " + std::to_string(error_code) + ")"),
      error_code_(error_code) {}

Filter build_filter(const FilterOptions& options) {
  return build_filter_from_rules(filter_rules(options));
}

Filter build_filter_from_rules(const std::vector<Rule>& rules) {
  Filter filter{seccomp_init(SCMP_ACT_ALLOW)};
  if (!filter) throw SeccompError("cannot create a filter (seccomp_init)", ENOMEM);
  // seccomp_init() adds the native architecture only. A system call through
  // any other ABI — including x32 on x86_64, which libseccomp filters out
  // when x32 is not added — takes this action.
  check(seccomp_attr_set(filter.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS),
        "cannot make foreign-architecture calls kill the process");
  for (const Rule& rule : rules) add_rule(filter.get(), rule);
  return filter;
}

}  // namespace holdfast::seccomp
