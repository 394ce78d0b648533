// printf-style text for the campaign's reports (HTML, JUnit): one helper,
// so the reports cannot drift in how they print a count.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace holdfast::race {

// snprintf into a string of the size the text needs.
template <typename... Args>
std::string format(const char* pattern, Args... args) {
  const int size = std::snprintf(nullptr, 0, pattern, args...);
  if (size <= 0) return {};
  std::string out(static_cast<std::size_t>(size) + 1, '\0');
  std::snprintf(out.data(), out.size(), pattern, args...);
  out.resize(static_cast<std::size_t>(size));
  return out;
}

// A count as %llu wants it.
inline unsigned long long ull(std::uint64_t v) { return static_cast<unsigned long long>(v); }

}  // namespace holdfast::race
