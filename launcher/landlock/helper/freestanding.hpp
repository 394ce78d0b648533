// What the Landlock helper needs from the system, without a C library.
//
// The helper runs once per launch, inside the sandbox, between bubblewrap
// and the command. Linked statically against glibc it was a megabyte: the
// launch copied it into a memfd (page faults over the whole embedded copy)
// and the kernel and glibc's start-up cost another 1.5 ms on this project's
// CI machine. Its needs are a dozen system calls, so it makes them itself:
// about ten kilobytes, and an exec that costs what the kernel's part does.
//
// Only types and constants come from the system headers; no function of
// the C library is called (the program is linked with -nostdlib). x86-64
// and AArch64; other machines build the same interface over glibc
// (glibc.cpp, chosen in CMakeLists.txt).
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>

namespace holdfast::landlock::sys {

// A system call; the kernel's result (a negative errno on failure).
#if defined(__x86_64__) || defined(__aarch64__)
inline long call(long number, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0,
                 long f = 0) {
#if defined(__x86_64__)
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  long result;
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return result;
#elif defined(__aarch64__)
  register long x8 __asm__("x8") = number;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  register long x4 __asm__("x4") = e;
  register long x5 __asm__("x5") = f;
  __asm__ volatile("svc 0"
                   : "+r"(x0)
                   : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                   : "memory");
  return x0;
#endif
}
#else
long call(long number, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0);
#endif

// A file's identity and type, by descriptor (statx with AT_EMPTY_PATH), or
// of `path` relative to the current directory; a negative errno on failure.
long stat_fd(int fd, struct statx& out);
long stat_path(const char* path, struct statx& out);

// The kernel's open, relative to `dir` (AT_FDCWD for the current one).
long open_at(int dir, const char* path, int flags);

void close(int fd);

// Writes all of `size` bytes to standard error, as far as it takes them.
void say(const char* text, std::size_t size);
void say(const char* text);

[[noreturn]] void exit(int status);

// execvp without the C library: a name without a slash is looked up on
// PATH (glibc's default when unset); a file the kernel cannot execute
// (ENOEXEC) is run by /bin/sh, as execvp does. Returns the errno that
// ended the search.
int exec_command(char* const* argv, char* const* envp);

// A short description of `error` for the errors the helper meets; null
// for any other.
const char* describe(int error);

// describe(error) on standard error, or "error N".
void say_error(int error);

}  // namespace holdfast::landlock::sys
