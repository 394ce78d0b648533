#include "race-harness/thresholds.hpp"

#include <cstdio>

namespace holdfast::race {

std::vector<std::string> unmet_thresholds(const PhaseResult& phase, const Thresholds& thresholds) {
  std::vector<std::string> unmet;
  char line[512];
  if (!phase.control) {
    const double trials = static_cast<double>(phase.trials);
    if (thresholds.max_refusal_rate && phase.trials > 0 &&
        static_cast<double>(phase.refused) / trials > *thresholds.max_refusal_rate) {
      std::snprintf(line, sizeof line,
                    "%s: %llu of %llu trials refused (%.3g), more than --max-refusal-rate %g",
                    phase.name.c_str(), static_cast<unsigned long long>(phase.refused),
                    static_cast<unsigned long long>(phase.trials),
                    static_cast<double>(phase.refused) / trials, *thresholds.max_refusal_rate);
      unmet.emplace_back(line);
    }
    if (thresholds.violation_bound) {
      const double bound = upper_bound_95(phase.violated, phase.trials);
      if (bound > *thresholds.violation_bound) {
        std::snprintf(line, sizeof line,
                      "%s: the 95%% upper bound on its violation rate is %.3g after %llu trials, "
                      "above --violation-bound %g (0 violations in N trials bound it at 3/N: run "
                      "more trials)",
                      phase.name.c_str(), bound, static_cast<unsigned long long>(phase.trials),
                      *thresholds.violation_bound);
        unmet.emplace_back(line);
      }
    }
  }
  return unmet;
}

std::vector<std::string> unmet_thresholds(const CampaignResult& result,
                                          const Thresholds& thresholds) {
  std::vector<std::string> unmet;
  for (const auto& phase : result.phases) {
    for (auto& sentence : unmet_thresholds(phase, thresholds)) unmet.push_back(std::move(sentence));
  }
  return unmet;
}

Verdict verdict_of(const CampaignResult& result, const Thresholds& thresholds) {
  const Verdict verdict = verdict_of(result);
  if (verdict == Verdict::pass && !unmet_thresholds(result, thresholds).empty()) {
    return Verdict::unmet;
  }
  return verdict;
}

}  // namespace holdfast::race
