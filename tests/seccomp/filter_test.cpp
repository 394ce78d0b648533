// Building the filter with the real libseccomp and exporting it.
#include "launcher/seccomp/filter.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <unistd.h>

#include "launcher/seccomp/bpf_export.hpp"
#include "tests/seccomp/memfd_checks.hpp"

namespace holdfast::seccomp {
namespace {

TEST(SeccompFilter, BuildsAndExportsNonEmptyBpfForEveryOptionCombination) {
  for (const FilterOptions& options : every_filter_options()) {
    SCOPED_TRACE(to_string(options));
    const Filter filter = build_filter(options);
    ASSERT_TRUE(filter);
    const std::string bpf = export_bpf(filter);
    ASSERT_FALSE(bpf.empty());
    EXPECT_EQ(bpf.size() % sizeof(sock_filter), 0u);
    EXPECT_LE(bpf.size() / sizeof(sock_filter), BPF_MAXINSNS);
  }
}

TEST(SeccompFilter, OptionsChangeTheProgram) {
  const std::string open = export_bpf(build_filter({false, false}));
  const std::string closed = export_bpf(build_filter({true, false}));
  const std::string closed_again = export_bpf(build_filter({true, false}));
  const std::string no_unix = export_bpf(build_filter({false, true}));
  EXPECT_NE(open, closed);
  EXPECT_NE(open, no_unix);
  EXPECT_NE(closed, no_unix);
  EXPECT_EQ(closed, closed_again) << "the same options build the same program";
}

TEST(SeccompFilter, MemfdIsSealedRewoundAndCloseOnExec) {
  const Filter filter = build_filter({});
  UniqueFd fd = export_bpf_to_memfd(filter);
  ASSERT_TRUE(fd.valid());
  expect_ready_for_bwrap(fd.get());

  const std::string via_memfd = settings::read_all(fd.get(), "memfd");
  EXPECT_EQ(via_memfd, export_bpf(filter));

  ASSERT_TRUE(allow_inherit(fd.get()));
  EXPECT_FALSE(::fcntl(fd.get(), F_GETFD) & FD_CLOEXEC);
  EXPECT_FALSE(allow_inherit(-1));
}

TEST(SeccompFilter, AnUnknownSystemCallIsAnErrorNotASkippedRule) {
  const std::vector<Rule> rules = {Rule{"no_such_syscall", EPERM, {}, "", "test"}};
  try {
    build_filter_from_rules(rules);
    FAIL() << "a rule libseccomp cannot resolve must not be dropped silently";
  } catch (const SeccompError& error) {
    EXPECT_EQ(error.error_code(), ENOSYS);
    EXPECT_NE(std::string(error.what()).find("no_such_syscall"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("upgrade libseccomp"), std::string::npos);
  }
}

TEST(SeccompFilter, LibseccompRefusalsCarryItsCodeAndNameTheRule) {
  // System calls have six arguments; libseccomp refuses a test on a seventh.
  const std::vector<Rule> rules = {
      Rule{"ptrace", EPERM, {{ArgTest{6, ArgOp::equal, 1, 0}}}, "arg 6 is 1", "test"}};
  try {
    build_filter_from_rules(rules);
    FAIL() << "libseccomp should refuse argument 6";
  } catch (const SeccompError& error) {
    EXPECT_EQ(error.error_code(), EINVAL);
    EXPECT_NE(std::string(error.what()).find("refusing ptrace when arg 6 is 1"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("libseccomp error 22"), std::string::npos);
  }
}

}  // namespace
}  // namespace holdfast::seccomp
