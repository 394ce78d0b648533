// Building the filter with the real libseccomp and exporting it.
#include "launcher/seccomp/filter.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <unistd.h>

#include "base/fd.hpp"
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
  std::vector<std::string> programs;
  for (const FilterOptions& options : every_filter_options()) {
    programs.push_back(export_bpf(build_filter(options)));
  }
  for (std::size_t i = 0; i < programs.size(); ++i) {
    for (std::size_t j = i + 1; j < programs.size(); ++j) {
      EXPECT_NE(programs[i], programs[j]) << to_string(every_filter_options()[i]) << " and "
                                          << to_string(every_filter_options()[j]);
    }
  }
  EXPECT_EQ(export_bpf(build_filter({true, UnixSockets::pairs})), programs[4])
      << "the same options build the same program";
}

TEST(SeccompFilter, MemfdIsSealedRewoundAndCloseOnExec) {
  const Filter filter = build_filter({});
  UniqueFd fd = export_bpf_to_memfd(filter);
  ASSERT_TRUE(fd.valid());
  expect_ready_for_bwrap(fd.get());

  const std::string via_memfd = base::read_all(fd.get(), "memfd");
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
