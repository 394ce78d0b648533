// A refusal: the launch is stopped before anything is built, and the person
// is told which path and which rule, and what to do. Policy parsing,
// admission (through the mount plan), the host facts and the launch's own
// checks produce these; nothing falls back to a weaker sandbox.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace holdfast::sandbox {

struct Refusal {
  std::string rule;     // stable identifier, e.g. "workspace-is-root"
  std::string path;     // the path concerned (canonical where known)
  std::string entry;    // the policy entry as written; empty when none is involved
  std::string message;  // what is wrong
  std::string remedy;   // what to do about it

  // "refused [RULE]: PATH: MESSAGE (entry "E"). To fix: REMEDY"
  std::string to_string() const;
  bool operator==(const Refusal&) const = default;
};

// Thrown by functions that must not return a result for a refused policy
// (policy_from_settings, plan_mounts, the host facts and the launch when a
// path changed under them).
class Refused : public std::runtime_error {
 public:
  explicit Refused(std::vector<Refusal> refusals);
  const std::vector<Refusal>& refusals() const { return refusals_; }

 private:
  std::vector<Refusal> refusals_;
};

}  // namespace holdfast::sandbox
