// The programs baked at build time are the programs a launch would build:
// the baked table may only ever save time, never change the filter.
#include "launcher/seccomp/program.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "base/fd.hpp"
#include "launcher/seccomp/bpf_export.hpp"
#include "launcher/seccomp/filter.hpp"
#include "tests/seccomp/memfd_checks.hpp"

namespace holdfast::seccomp {
namespace {

TEST(SeccompProgram, EveryFilterOptionsIsEnumeratedOnce) {
  const auto all = every_filter_options();
  EXPECT_EQ(all.size(), 6u) << "network open or closed, times three Unix socket modes";
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (std::size_t j = i + 1; j < all.size(); ++j) EXPECT_FALSE(all[i] == all[j]);
  }
  EXPECT_NE(std::find(all.begin(), all.end(), FilterOptions{}), all.end())
      << "the default options are enumerated";
}

TEST(SeccompProgram, EachBakedProgramEqualsARunTimeBuild) {
  const auto all = every_filter_options();
  ASSERT_EQ(baked_programs().size(), all.size())
      << "this build runs holdfast-seccomp-bake, so every option has a baked program";
  for (const FilterOptions& options : all) {
    SCOPED_TRACE(to_string(options));
    const auto baked = baked_program(options);
    ASSERT_TRUE(baked.has_value());
    EXPECT_EQ(std::string(*baked), export_bpf(build_filter(options)));
  }
}

TEST(SeccompProgram, ProgramForUsesTheBakedProgram) {
  for (const FilterOptions& options : every_filter_options()) {
    SCOPED_TRACE(to_string(options));
    const Program program = program_for(options);
    EXPECT_TRUE(program.baked);
    EXPECT_EQ(program.bytes, std::string(*baked_program(options)));
  }
}

TEST(SeccompProgram, ProgramsDifferWhereTheOptionsDo) {
  const auto all = every_filter_options();
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (std::size_t j = i + 1; j < all.size(); ++j) {
      EXPECT_NE(program_for(all[i]).bytes, program_for(all[j]).bytes)
          << to_string(all[i]) << " vs " << to_string(all[j]);
    }
  }
}

TEST(SeccompProgram, ProgramMemfdIsSealedRewoundCloseOnExecAndHoldsTheBytes) {
  const Program program = program_for({});
  UniqueFd fd = program_to_memfd(program.bytes);
  ASSERT_TRUE(fd.valid());
  expect_ready_for_bwrap(fd.get());
  EXPECT_EQ(base::read_all(fd.get(), "memfd"), program.bytes);
}

TEST(SeccompProgram, AnEmptyProgramIsRefused) { EXPECT_THROW(program_to_memfd(""), SeccompError); }

}  // namespace
}  // namespace holdfast::seccomp
