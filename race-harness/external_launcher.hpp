// A user's own launcher or reader as the subject of a campaign's phases
// (--launcher-cmd in launch mode, --reader-cmd in snapshot mode), run under
// the contract of contract.hpp: /bin/sh -c COMMAND with the settings named
// in its environment, descriptor 3 open for the policy it acted on, and
// (a launcher) the probe's command to start in {probe}.
//
// Each trial is judged as holdfast's own are: a launch by what the probe
// could reach inside (classify_start), a read by whether what it reported
// carries the policy that every document on disk carried. What a launcher
// reported reading explains a violation ("file missing, so workspace
// writable") and is kept with the probe's results as the evidence.
#pragma once

#include <filesystem>
#include <string>
#include <thread>

#include "base/fd.hpp"
#include "race-harness/trials.hpp"

namespace holdfast::race {

// A TCP port on the host's loopback that a confined command must not
// reach: the network check of a user's launcher's probe. (A launcher may
// close the network with an empty network namespace and no seccomp filter:
// its command can open an AF_INET socket, as holdfast's cannot, but reaches
// nothing.) Accepts and closes every connection until destroyed.
class HostPort {
 public:
  HostPort();
  ~HostPort();
  HostPort(const HostPort&) = delete;
  HostPort& operator=(const HostPort&) = delete;
  int port() const { return port_; }

 private:
  base::UniqueFd listener_;
  base::UniqueFd stop_read_;
  base::UniqueFd stop_write_;
  int port_ = 0;
  std::thread thread_;
};

struct ExternalSubject {
  std::string command;              // the shell command, placeholders not yet replaced
  int refusal_exit = kRefusedExit;  // its exit code for "refused" (failed closed)
  int host_port = 0;                // a launcher's: HostPort's port
};

// One confined start of the probe in `workspace` by the user's launcher.
Trial external_launch_trial(const ExternalSubject& subject, const TrialSetup& setup,
                            const std::filesystem::path& workspace);

// One read of the settings by the user's reader.
Trial external_read_trial(const ExternalSubject& subject, const TrialSetup& setup);

// The probe's line in a launcher's output: the last line that starts with
// {"results" (a launcher may print lines of its own around it); empty
// when there is none.
std::string probe_line(const std::string& output);

// Classifies a read from its exit code, what it reported on descriptor 3
// and its stderr: refused at `refusal_exit`, an error at any other non-zero
// code, honoured when the report carries the policy, else violated (named
// by what it reported: "no policy read", "file damaged", "policy replaced").
Trial classify_read(int exit_code, const std::string& report, const std::string& err,
                    int refusal_exit);

}  // namespace holdfast::race
