// The operator policy the snapshot tests save into a scope and expect a
// snapshot to carry (or, once the file is gone, not to).
#pragma once

namespace holdfast::testing {

inline constexpr const char* kPolicy =
    R"({"tools": {"executionSandbox": {"filesystem": "read-only", "network": "closed"}}})";

}  // namespace holdfast::testing
