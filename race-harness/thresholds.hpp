// Thresholds a CI caller sets on a campaign's exit code, beyond "no
// violation": how many of a phase's trials may be refused, and how low the
// 95% upper bound on its violation rate must be. They apply to the phases
// that race the reader or launcher under test (not to the controls), to one
// shard's counts in `campaign` and to the merged counts in `report`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "race-harness/result.hpp"

namespace holdfast::race {

struct Thresholds {
  // --max-refusal-rate: refused / trials at most this (0 to 1).
  std::optional<double> max_refusal_rate;
  // --violation-bound: the 95% upper bound on the violation rate at most
  // this, so 0 violations in N trials needs N >= 3 / bound.
  std::optional<double> violation_bound;
};

// One sentence for each threshold `phase` misses, naming the phase, the
// figure and the option; empty when it meets them (a control always does).
std::vector<std::string> unmet_thresholds(const PhaseResult& phase, const Thresholds& thresholds);
// The same for every phase of `result`.
std::vector<std::string> unmet_thresholds(const CampaignResult& result,
                                          const Thresholds& thresholds);

// verdict_of(result), except that a pass that misses a threshold is unmet.
Verdict verdict_of(const CampaignResult& result, const Thresholds& thresholds);

}  // namespace holdfast::race
