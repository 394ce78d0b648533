// Holding bubblewrap between building the sandbox and starting the command,
// so that holdfast can look at what was built before anything runs in it.
//
// bubblewrap has no "built" notification, but it reads the seccomp program
// (--seccomp FD) only after the whole mount tree is in place (after its
// final pivot_root), and reads it to end of file. So the program goes
// through a pipe in packet mode (O_DIRECT), sized so that the program fills
// it exactly: when bubblewrap reads the packets, room frees up and the
// write end becomes writable (POLLOUT), which says "the mounts are done";
// bubblewrap then waits for end of file. The last 4 bytes of the program
// are held back until holdfast lets it go (open()): should holdfast die
// first, bubblewrap reads a program whose length is no multiple of 8 and
// exits without starting the command. Were some bubblewrap to read the
// program before the mount tree is built, holdfast would look at an
// unfinished tree and refuse: the gate fails closed either way.
#pragma once

#include <string>
#include <string_view>

#include "base/fd.hpp"

namespace holdfast::launcher {

class StartGate {
 public:
  // Throws base::SystemError.
  explicit StartGate(std::string_view program);

  // The read end, for --seccomp; bwrap inherits it.
  int program_fd() const { return read_end_.get(); }
  // The write end (close-on-exec, never inherited): writable once bwrap
  // has read the program, that is, once the sandbox is built.
  int ready_fd() const { return write_end_.get(); }
  // Lets bwrap go on: it reads the rest of the program and end of file,
  // loads the program and starts the command. Throws base::SystemError.
  void open();

 private:
  base::UniqueFd read_end_;
  base::UniqueFd write_end_;
  std::string held_back_;
};

}  // namespace holdfast::launcher
