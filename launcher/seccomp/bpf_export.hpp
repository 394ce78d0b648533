// Exports a built filter as classic BPF into a sealed memfd, the form
// `bwrap --seccomp FD` reads: bubblewrap read()s the program from the fd's
// current offset to end of file and loads it, after every other setup step,
// with no_new_privs set.
//
// Passing the fd to bubblewrap. The memfd is created close-on-exec, so that
// it cannot leak into any other program this process (or another thread of
// it) starts. Only the bwrap child may inherit it:
//   * fork() + exec: in the child, call allow_inherit(fd) (one fcntl, safe
//     between fork and exec), then exec bwrap with "--seccomp <fd>";
//   * posix_spawn: add posix_spawn_file_actions_adddup2(&actions, fd, fd);
//     glibc clears FD_CLOEXEC for a dup2 onto the same number.
// bubblewrap closes the fd after reading it; the command never sees it.
//
// The fd is sealed (no write, grow, shrink or further seals), so nothing can
// change the program between export and bwrap reading it, and its offset is 0.
#pragma once

#include <string>
#include <string_view>

#include "base/fd.hpp"
#include "launcher/seccomp/filter.hpp"

namespace holdfast::seccomp {

using base::UniqueFd;

// The BPF program bytes (an array of struct sock_filter). Throws
// SeccompError (export failed) or base::SystemError (pipe, read).
std::string export_bpf(const Filter& filter);

// The BPF program in a sealed, close-on-exec memfd at offset 0. Throws
// SeccompError or base::SystemError naming the step that failed.
UniqueFd export_bpf_to_memfd(const Filter& filter);

// A program already in BPF form (program.hpp) in the same kind of sealed,
// close-on-exec memfd at offset 0. Throws base::SystemError naming the
// step that failed, or SeccompError for an empty program.
UniqueFd program_to_memfd(std::string_view program);

// Clears FD_CLOEXEC on `fd` so that the next exec keeps it open. Meant for
// the child between fork and exec (async-signal-safe). Returns false and
// leaves errno set on failure; the caller must then not exec bwrap.
bool allow_inherit(int fd) noexcept;

}  // namespace holdfast::seccomp
