// What a fuzz target does when a property it checks does not hold: print
// it and abort, which libFuzzer records as a crash with the input that
// caused it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace holdfast::fuzz {

inline void check(bool holds, std::string_view property) {
  if (holds) return;
  std::fprintf(stderr, "property violated: %.*s\n", static_cast<int>(property.size()),
               property.data());
  std::abort();
}

}  // namespace holdfast::fuzz
