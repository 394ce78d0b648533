// The three outcomes of the gatekeeper, ordered from least to most
// restrictive so that "the most restrictive decision wins" is std::max.
#pragma once

#include <string_view>

#include "base/name_table.hpp"

namespace holdfast::gatekeeper {

enum class Decision { allow = 0, ask = 1, deny = 2 };

inline constexpr NameRow<Decision> kDecisionNames[] = {
    {Decision::allow, "allow"}, {Decision::ask, "ask"}, {Decision::deny, "deny"}};

constexpr std::string_view decision_name(Decision decision) {
  return name_in(kDecisionNames, decision);
}

}  // namespace holdfast::gatekeeper
