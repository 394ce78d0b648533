#include "launcher/seccomp/program.hpp"

#include <vector>

#include "launcher/seccomp/bpf_export.hpp"
#include "launcher/seccomp/filter.hpp"

namespace holdfast::seccomp {

std::optional<std::string_view> baked_program(const FilterOptions& options) {
  const std::span<const std::string_view> programs = baked_programs();
  const std::vector<FilterOptions> all = every_filter_options();
  if (programs.size() != all.size()) return std::nullopt;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i] == options) return programs[i];
  }
  return std::nullopt;
}

Program program_for(const FilterOptions& options) {
  if (const auto baked = baked_program(options)) return Program{std::string(*baked), true};
  return Program{export_bpf(build_filter(options)), false};
}

}  // namespace holdfast::seccomp
