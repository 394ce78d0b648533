#include "launcher/run/start_gate.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

#include "base/fd.hpp"
#include "base/system_error.hpp"

namespace holdfast::launcher {

namespace {

constexpr std::size_t kPacket = 4096;  // PIPE_BUF: one packet, one page, one slot

[[noreturn]] void fail(const char* what) {
  base::throw_errno(what, "the pipe that holds bubblewrap before the command starts");
}

}  // namespace

StartGate::StartGate(std::string_view whole_program) {
  constexpr std::size_t kHeldBack = 4;  // half an instruction: never a valid program
  if (whole_program.size() <= kHeldBack) {
    errno = EINVAL;
    fail("cannot fill");
  }
  const std::string_view program = whole_program.substr(0, whole_program.size() - kHeldBack);
  held_back_ = whole_program.substr(program.size());
  base::Pipe pipe = base::make_pipe("the start gate that holds bubblewrap", O_DIRECT);
  read_end_ = std::move(pipe.read_end);
  write_end_ = std::move(pipe.write_end);
  // One slot per packet, a power of two of them; the program is cut into
  // exactly that many packets, so the pipe is full.
  std::size_t slots = 1;
  while (slots * kPacket < program.size()) slots *= 2;
  if (program.size() < slots) {
    errno = EINVAL;
    fail("cannot fill");
  }
  if (::fcntl(write_end_.get(), F_SETPIPE_SZ, static_cast<int>(slots * kPacket)) < 0) {
    fail("cannot size");
  }
  const std::size_t packet = (program.size() + slots - 1) / slots;
  for (std::size_t at = 0; at < program.size(); at += packet) {
    const std::string_view part = program.substr(at, packet);
    if (::write(write_end_.get(), part.data(), part.size()) != static_cast<ssize_t>(part.size())) {
      fail("cannot write the seccomp program into");
    }
  }
}

}  // namespace holdfast::launcher

namespace holdfast::launcher {

void StartGate::open() {
  if (::write(write_end_.get(), held_back_.data(), held_back_.size()) !=
      static_cast<ssize_t>(held_back_.size())) {
    fail("cannot write the end of the seccomp program into");
  }
  write_end_.reset();
}

}  // namespace holdfast::launcher
