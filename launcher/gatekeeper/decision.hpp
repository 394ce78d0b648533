// The three outcomes of the gatekeeper, ordered from least to most
// restrictive so that "the most restrictive decision wins" is std::max.
#pragma once

#include <string_view>

namespace holdfast::gatekeeper {

enum class Decision { allow = 0, ask = 1, deny = 2 };

constexpr std::string_view decision_name(Decision decision) {
  switch (decision) {
    case Decision::allow:
      return "allow";
    case Decision::ask:
      return "ask";
    case Decision::deny:
      return "deny";
  }
  return "deny";
}

}  // namespace holdfast::gatekeeper
