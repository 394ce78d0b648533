// The baked table of a build that could not run holdfast-seccomp-bake (a
// cross build): empty, so every launch compiles its program at run time.
#include "launcher/seccomp/program.hpp"

namespace holdfast::seccomp {

std::span<const std::string_view> baked_programs() { return {}; }

}  // namespace holdfast::seccomp
