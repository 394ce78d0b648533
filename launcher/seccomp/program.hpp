// The seccomp program (BPF bytes) one launch hands to bubblewrap.
//
// The filter depends only on FilterOptions, which take a handful of values.
// libseccomp compiles the program for each of them while holdfast is built
// (holdfast-seccomp-bake writes them into baked_programs.cpp), and a launch
// copies those bytes instead of building the filter again: building costs
// about 0.7 ms of every launch (libseccomp probes the kernel's seccomp
// features, fills its rule database and generates BPF).
//
// The baked table only saves time; it never decides what is filtered. Its
// programs come from the same rules (rules.hpp) through the same code
// (filter.hpp, bpf_export.hpp), a test checks that each equals a build at
// run time, and options the build did not bake (a cross build bakes none)
// are compiled at run time.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "launcher/seccomp/rules.hpp"

namespace holdfast::seccomp {

// The programs baked at build time, one per every_filter_options() entry and
// in that order; empty when the build could not run the baking tool.
std::span<const std::string_view> baked_programs();

// The baked program for `options`, if the build baked one.
std::optional<std::string_view> baked_program(const FilterOptions& options);

struct Program {
  std::string bytes;   // struct sock_filter[], as bwrap --seccomp reads it
  bool baked = false;  // true: compiled at build time; false: built just now
};

// The program for `options`: the baked one, else built now with libseccomp.
// Throws SeccompError or base::SystemError when it must be built and
// cannot be.
Program program_for(const FilterOptions& options);

}  // namespace holdfast::seccomp
