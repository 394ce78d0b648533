#include "launcher/sandbox/refusal.hpp"

namespace holdfast::sandbox {

std::string Refusal::to_string() const {
  std::string out = "refused [" + rule + "]: " + path + ": " + message;
  if (!entry.empty()) out += " (entry \"" + entry + "\")";
  out += ". To fix: " + remedy;
  return out;
}

namespace {
std::string join_refusals(const std::vector<Refusal>& refusals) {
  std::string out;
  for (const auto& refusal : refusals) {
    if (!out.empty()) out += '\n';
    out += refusal.to_string();
  }
  return out.empty() ? std::string("refused") : out;
}
}  // namespace

Refused::Refused(std::vector<Refusal> refusals)
    : std::runtime_error(join_refusals(refusals)), refusals_(std::move(refusals)) {}

}  // namespace holdfast::sandbox
