// Settings documents nested deeper than holdfast accepts, for the bounds
// tests of the reader and of the CLI.
#pragma once

#include <cstddef>
#include <string>

namespace holdfast::testing {

inline std::string repeat(const std::string& piece, std::size_t times) {
  std::string out;
  out.reserve(piece.size() * times);
  for (std::size_t i = 0; i < times; ++i) out += piece;
  return out;
}

// {"a":{"a":...{"a":1}...}} with `depth` objects.
inline std::string nested_objects(std::size_t depth) {
  return repeat("{\"a\":", depth) + "1" + repeat("}", depth);
}

// [[...[]...]] with `depth` arrays.
inline std::string nested_arrays(std::size_t depth) {
  return repeat("[", depth) + repeat("]", depth);
}

}  // namespace holdfast::testing
