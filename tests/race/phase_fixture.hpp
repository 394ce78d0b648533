// Made-up phase results, for the tests of verdicts, reports and JUnit.
#pragma once

#include <cstdint>
#include <string>

#include "race-harness/result.hpp"

namespace holdfast::race {

// A phase of `writer` (which saved 100 times) lasting 2 s, its trials
// honoured, violated or refused; a control's reader is the naive one.
inline PhaseResult phase(const std::string& name, bool control, std::uint64_t honoured,
                         std::uint64_t violated, std::uint64_t refused = 0,
                         const std::string& writer = "rename-backup") {
  PhaseResult p;
  p.name = name;
  p.reader = control ? "naive" : "holdfast";
  p.writers = {writer + ":max"};
  p.control = control;
  p.honoured = honoured;
  p.violated = violated;
  p.refused = refused;
  p.trials = honoured + violated + refused;
  p.seconds = 2;
  p.writer_stats[writer] = {100, 0, 0};
  p.timelines[1] = {{1.0, p.trials / 2, 0, 0}, {2.0, p.trials, violated, refused}};
  return p;
}

}  // namespace holdfast::race
