// Arbitrary command lines (seeded, reproducible) never crash the lexer or
// the analysis, and always get a decision with a reason. Run under
// -DHOLDFAST_SANITIZE=ON this is a small memory-safety sweep of the parser.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "launcher/gatekeeper/decide.hpp"

namespace holdfast::gatekeeper {
namespace {

TEST(Noise, EveryLineGetsADecisionWithAReason) {
  static constexpr std::string_view kAlphabet =
      "ab ~/.$(){}[]<>|&;'\"\\`#=*?!-\n\t0123catrmcd echo bash -c sudo env";
  Context context;
  context.workspace = "/ws";
  context.cwd = "/ws";
  context.home = "/home/me";
  context.persistent.deny.push_back(parse_rule("Read(~/.ssh/**)"));
  prepare(context);
  std::mt19937 random(20261130);  // fixed: failures reproduce
  std::uniform_int_distribution<std::size_t> pick(0, kAlphabet.size() - 1);
  std::uniform_int_distribution<int> length(0, 80);
  for (int i = 0; i < 3000; ++i) {
    std::string line;
    for (int n = length(random); n > 0; --n) line += kAlphabet[pick(random)];
    const Verdict verdict = decide({"Bash", line}, context);
    ASSERT_FALSE(verdict.reason.empty()) << line;
    // The same input always gets the same answer: nothing in the analysis
    // depends on state left behind by an earlier, garbled line.
    const Verdict again = decide({"Bash", line}, context);
    ASSERT_EQ(again.decision, verdict.decision) << line;
    ASSERT_EQ(again.reason, verdict.reason) << line;
  }
}

}  // namespace
}  // namespace holdfast::gatekeeper
