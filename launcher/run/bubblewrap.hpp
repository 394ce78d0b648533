// Which bubblewrap a launch executes, and whether a launch may go ahead at
// all: one verdict, which `holdfast run` and `holdfast doctor` both reach
// through decide_start, from the same lookup.
//
// The bubblewrap is the path an operator scope names in
// security.bubblewrap, else the build-time default (HOLDFAST_DEFAULT_BWRAP,
// /usr/bin/bwrap); never a PATH entry and never an environment variable
// (a confined command that can write a directory on PATH, or the shell
// start-up file that sets a variable, would otherwise choose what runs
// outside the sandbox). It must pass the trusted-executable check
// (trusted_executable.hpp).
//
// Running unconfined (security.allowUnconfined) is for a host where
// bubblewrap truly cannot run: nothing at the configured path. A program
// there that is not trusted is refused, never skipped.
#pragma once

#include <string>

#include "launcher/run/trusted_executable.hpp"
#include "launcher/sandbox/refusal.hpp"
#include "settings/merge.hpp"

namespace holdfast::launcher {

// The bubblewrap holdfast was built to use when no operator scope names one
// (CMake's HOLDFAST_DEFAULT_BWRAP, /usr/bin/bwrap).
extern const char* const kDefaultBubblewrap;

struct BubblewrapChoice {
  std::string path;
  std::string origin;  // "security.bubblewrap in the user scope", "the build-time default"
};

// The configured path (security.bubblewrap, which only operator scopes can
// set: the merge ignores `security` from a workspace). Pure.
BubblewrapChoice configured_bubblewrap(const settings::Effective& effective);

struct BubblewrapLookup {
  BubblewrapChoice choice;
  ExecutableLookup lookup;
};

// The configured bubblewrap, looked up and judged.
BubblewrapLookup find_bubblewrap(const settings::Effective& effective);

enum class StartMode { sandboxed, unconfined, refused };

struct StartVerdict {
  StartMode mode = StartMode::refused;
  // unconfined: the warning to print; refused: what is wrong. Empty when
  // sandboxed.
  std::string message;
  std::string remedy;  // refused: what to do
};

// The one decision (pure): sandboxed when a trusted bubblewrap was found;
// unconfined only when nothing is at the configured path, an operator
// scope sets security.allowUnconfined and the sandbox is not required
// (--require-sandbox); refused otherwise.
StartVerdict decide_start(const BubblewrapLookup& bubblewrap, const settings::Effective& effective,
                          bool sandbox_required = false);

// Thrown by plan_launch when no trusted bubblewrap was found: a refusal
// ("bubblewrap-missing" or "bubblewrap-untrusted") that keeps the lookup
// and the settings it was made from, so that the command line, the only
// place that may run a command unconfined, decides with decide_start too.
class NoTrustedBubblewrap : public sandbox::Refused {
 public:
  NoTrustedBubblewrap(BubblewrapLookup bubblewrap, settings::Effective effective);
  const BubblewrapLookup& bubblewrap() const { return bubblewrap_; }
  const settings::Effective& effective() const { return effective_; }

 private:
  BubblewrapLookup bubblewrap_;
  settings::Effective effective_;
};

// security.allowUnconfined is true. Pure.
bool operator_allows_unconfined(const settings::Effective& effective);

}  // namespace holdfast::launcher
