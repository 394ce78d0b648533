// The thin imperative shell of the gatekeeper: resolving symlinks on the
// real filesystem. decide() takes the resolver as a function so the core
// stays a pure function of its inputs.
#pragma once

#include <string>

namespace holdfast::gatekeeper {

// The absolute path with every symlink in its existing prefix resolved
// and ".." taken physically, as the kernel would (the rest is appended
// lexically, since a file about to be written may not exist yet). Returns
// the input, normalized, when nothing can be resolved.
std::string resolve_symlinks(const std::string& path);

}  // namespace holdfast::gatekeeper
