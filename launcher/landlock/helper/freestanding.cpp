#include "launcher/landlock/helper/freestanding.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>

// The program's entry: the kernel leaves argc, argv and the environment on
// the stack; main() is the helper's.
int main(int argc, char** argv, char** envp);

extern "C" [[noreturn]] void holdfast_helper_start(long* stack) {
  const int argc = static_cast<int>(stack[0]);
  char** argv = reinterpret_cast<char**>(stack + 1);
  holdfast::landlock::sys::exit(main(argc, argv, argv + argc + 1));
}

#if defined(__x86_64__)
__asm__(
    "  .text\n"
    "  .global _start\n"
    "_start:\n"
    "  xor %rbp, %rbp\n"
    "  mov %rsp, %rdi\n"
    "  and $-16, %rsp\n"
    "  call holdfast_helper_start\n"
    "  hlt\n");
#elif defined(__aarch64__)
__asm__(
    "  .text\n"
    "  .global _start\n"
    "_start:\n"
    "  mov x29, #0\n"
    "  mov x30, #0\n"
    "  mov x0, sp\n"
    "  and sp, x0, #-16\n"
    "  bl holdfast_helper_start\n");
#endif

// What the compiler may call for copies, fills and comparisons of its own.
extern "C" {
void* memcpy(void* to, const void* from, std::size_t size) {
  auto* out = static_cast<unsigned char*>(to);
  const auto* in = static_cast<const unsigned char*>(from);
  for (std::size_t i = 0; i < size; ++i) out[i] = in[i];
  return to;
}
void* memmove(void* to, const void* from, std::size_t size) {
  auto* out = static_cast<unsigned char*>(to);
  const auto* in = static_cast<const unsigned char*>(from);
  if (out < in) {
    for (std::size_t i = 0; i < size; ++i) out[i] = in[i];
  } else {
    for (std::size_t i = size; i > 0; --i) out[i - 1] = in[i - 1];
  }
  return to;
}
void* memset(void* to, int value, std::size_t size) {
  auto* out = static_cast<unsigned char*>(to);
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<unsigned char>(value);
  return to;
}
int memcmp(const void* a, const void* b, std::size_t size) {
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  for (std::size_t i = 0; i < size; ++i) {
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return 0;
}
void* memchr(const void* from, int value, std::size_t size) {
  const auto* in = static_cast<const unsigned char*>(from);
  for (std::size_t i = 0; i < size; ++i) {
    if (in[i] == static_cast<unsigned char>(value)) return const_cast<unsigned char*>(in + i);
  }
  return nullptr;
}
std::size_t strlen(const char* text) {
  std::size_t size = 0;
  while (text[size] != '\0') ++size;
  return size;
}
}

namespace holdfast::landlock::sys {

namespace {

bool starts_with(const char* text, const char* prefix) {
  for (; *prefix != '\0'; ++text, ++prefix) {
    if (*text != *prefix) return false;
  }
  return true;
}

// execve; the errno it failed with.
int execute(const char* path, char* const* argv, char* const* envp) {
  return static_cast<int>(-call(SYS_execve, reinterpret_cast<long>(path),
                                reinterpret_cast<long>(argv), reinterpret_cast<long>(envp)));
}

// A file without a #! line, as execvp runs one: /bin/sh reads it.
int execute_as_script(const char* path, char* const* argv, char* const* envp) {
  constexpr std::size_t kMostArguments = 4096;
  const char* shell_argv[kMostArguments + 2];
  std::size_t count = 0;
  shell_argv[count++] = "/bin/sh";
  shell_argv[count++] = path;
  for (std::size_t i = 1; argv[i] != nullptr; ++i) {
    if (count == kMostArguments) return E2BIG;
    shell_argv[count++] = argv[i];
  }
  shell_argv[count] = nullptr;
  return execute("/bin/sh", const_cast<char* const*>(shell_argv), envp);
}

int execute_file(const char* path, char* const* argv, char* const* envp) {
  const int error = execute(path, argv, envp);
  return error == ENOEXEC ? execute_as_script(path, argv, envp) : error;
}

}  // namespace

long stat_fd(int fd, struct statx& out) {
  return call(SYS_statx, fd, reinterpret_cast<long>(""), AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
              STATX_TYPE | STATX_INO, reinterpret_cast<long>(&out));
}

long stat_path(const char* path, struct statx& out) {
  return call(SYS_statx, AT_FDCWD, reinterpret_cast<long>(path), 0, STATX_TYPE | STATX_INO,
              reinterpret_cast<long>(&out));
}

long open_at(int dir, const char* path, int flags) {
  return call(SYS_openat, dir, reinterpret_cast<long>(path), flags, 0);
}

void close(int fd) { call(SYS_close, fd); }

void say(const char* text, std::size_t size) {
  while (size > 0) {
    const long n = call(SYS_write, 2, reinterpret_cast<long>(text), static_cast<long>(size));
    if (n == -EINTR) continue;
    if (n <= 0) return;
    text += n;
    size -= static_cast<std::size_t>(n);
  }
}

void say(const char* text) { say(text, strlen(text)); }

void exit(int status) {
  for (;;) call(SYS_exit_group, status);
}

int exec_command(char* const* argv, char* const* envp) {
  const char* name = argv[0];
  bool has_slash = false;
  for (const char* c = name; *c != '\0'; ++c) has_slash = has_slash || *c == '/';
  if (has_slash) return execute_file(name, argv, envp);
  if (*name == '\0') return ENOENT;

  const char* search = "/bin:/usr/bin";  // glibc's, when PATH is unset
  for (char* const* entry = envp; *entry != nullptr; ++entry) {
    if (starts_with(*entry, "PATH=")) search = *entry + 5;
  }
  const std::size_t name_size = strlen(name);
  bool denied = false;
  constexpr std::size_t kPathMax = 4096;
  char path[kPathMax];
  for (const char* dir = search;; ++dir) {
    const char* end = dir;
    while (*end != '\0' && *end != ':') ++end;
    const std::size_t dir_size = static_cast<std::size_t>(end - dir);
    // An empty element is the current directory, as for execvp.
    if (dir_size + 1 + name_size < kPathMax) {
      std::size_t at = 0;
      for (const char* c = dir; c != end; ++c) path[at++] = *c;
      if (dir_size > 0) path[at++] = '/';
      for (std::size_t i = 0; i <= name_size; ++i) path[at++] = name[i];
      const int error = execute_file(path, argv, envp);
      if (error == EACCES) {
        denied = true;
      } else if (error != ENOENT && error != ENOTDIR && error != ESTALE && error != ENODEV &&
                 error != ETIMEDOUT) {
        return error;
      }
    }
    if (*end == '\0') break;
    dir = end;
  }
  return denied ? EACCES : ENOENT;
}

void say_error(int error) {
  if (const char* text = describe(error); text != nullptr) {
    say(text);
    return;
  }
  char digits[24];
  std::size_t at = sizeof digits;
  unsigned value = error < 0 ? static_cast<unsigned>(-error) : static_cast<unsigned>(error);
  do {
    digits[--at] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  say("error ");
  say(digits + at, sizeof digits - at);
}

const char* describe(int error) {
  switch (error) {
    case EPERM:
      return "Operation not permitted";
    case ENOENT:
      return "No such file or directory";
    case EINTR:
      return "Interrupted system call";
    case EIO:
      return "Input/output error";
    case E2BIG:
      return "Argument list too long";
    case ENOEXEC:
      return "Exec format error";
    case EBADF:
      return "Bad file descriptor";
    case ENOMEM:
      return "Cannot allocate memory";
    case EACCES:
      return "Permission denied";
    case EFAULT:
      return "Bad address";
    case ENOTDIR:
      return "Not a directory";
    case EISDIR:
      return "Is a directory";
    case EINVAL:
      return "Invalid argument";
    case ENFILE:
      return "Too many open files in system";
    case EMFILE:
      return "Too many open files";
    case ETXTBSY:
      return "Text file busy";
    case ENAMETOOLONG:
      return "File name too long";
    case ENOSYS:
      return "Function not implemented";
    case ELOOP:
      return "Too many levels of symbolic links";
    case EOPNOTSUPP:
      return "Operation not supported";
    case EBADFD:
      return "File descriptor in bad state";
    default:
      break;
  }
  return nullptr;
}

}  // namespace holdfast::landlock::sys
