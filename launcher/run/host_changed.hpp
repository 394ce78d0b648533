// Whether a launch that did not start its command failed because the host
// changed under its plan (the neighbours' activity), so that planning it
// again from a fresh look is the answer rather than a refusal.
#pragma once

#include "launcher/run/supervise.hpp"
#include "launcher/sandbox/host_facts.hpp"

namespace holdfast::launcher {

// True when the command did not run (bubblewrap failed, or the start gate
// refused the built sandbox) and, since `facts` were gathered, the host's
// mount table changed or a path the plan looked at (facts.identities: the
// bind sources, the files its masks cover) was removed or replaced. Each
// new plan is checked at the start gate like the first, so planning again
// never lets through what a refusal would have stopped; the caller bounds
// the attempts.
bool host_changed_under(const SuperviseOutcome& outcome, bool gate_reached,
                        const sandbox::HostFacts& facts);

}  // namespace holdfast::launcher
