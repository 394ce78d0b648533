// holdfast-landlock: the first program inside the sandbox. bubblewrap runs
// it instead of the command, after every mount is made and the start gate
// has checked them, with the seccomp filter already loaded; it completes
// the launch's Landlock ruleset (holdfast has added the rules on the host's
// own files to it meanwhile: --ruleset) with the rules on paths the
// sandbox made itself, restricts itself, and executes the command, which
// inherits the restriction for good. (A Landlock-restricted process cannot mount, so
// this cannot happen before bubblewrap; nothing but this program runs in
// between.) holdfast embeds it and hands it over as a sealed memfd
// (/proc/self/fd/N), so nothing on the host's filesystem is executed.
//
//   holdfast-landlock --abi N [--cwd DEV:INO] [--ruleset FD] [--tcp-closed] [--scope SCOPES]
//                     [--beneath RIGHTS PATH]... [--beneath-id RIGHTS DEV:INO PATH]...
//                     [--split RIGHTS ENTRY-RIGHTS PATH COUNT NAME...]...
//                     -- COMMAND ARGS...
//
// RIGHTS are letters (helper_argv.hpp): x execute, w write, r read, l list,
// e remove-dir, u remove-file, C make-char, D make-dir, R make-reg,
// S make-sock, F make-fifo, B make-block, Y make-sym, f refer, t truncate,
// i ioctl-dev; "-" for none. --beneath grants RIGHTS on PATH and below;
// --beneath-id RIGHTS DEV:INO PATH the same, once PATH is seen to be that
// file (else the command does not run);
// --split grants RIGHTS there and ENTRY-RIGHTS on and below each entry of
// PATH but the COUNT names that follow (they have rules of their own).
// SCOPES: a (abstract Unix sockets), s (signals). --ruleset FD: the
// ruleset holdfast created for the launch (with the ABI's rights, the TCP
// and scope options already set) and added the rules on the host's own
// files to while bubblewrap built the sandbox; the rules here complete it
// with what the sandbox made itself (/dev, /proc, the private /tmp).
// --abi 0: no Landlock on
// this host; only the directory is checked. --cwd: the directory bubblewrap
// entered by name (--chdir) must be the caller's cwd, by device and inode:
// a neighbour that swapped the workspace for a symlink between the start
// gate and bubblewrap's chdir would otherwise start the command elsewhere.
// Standard input, output
// and error keep what they were opened for: a terminal or file handed in
// may be reopened through /proc/self/fd with the same access.
//
// Exit status when the command does not start: 125 when the rules cannot
// be applied, 127 when the command is not found, 126 when it cannot be
// executed; each with a message that starts with "holdfast:".
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <string_view>

#include "launcher/landlock/helper/freestanding.hpp"
#include "launcher/landlock/rights.hpp"

namespace {

using holdfast::landlock::Rights;
namespace ll = holdfast::landlock;
namespace sys = holdfast::landlock::sys;

constexpr int kCannotApply = 125;

void say(std::string_view text) { sys::say(text.data(), text.size()); }

[[noreturn]] void fail(std::string_view what, std::string_view path, int error, int status) {
  say("holdfast: ");
  say(what);
  if (!path.empty()) {
    say(" ");
    say(path);
  }
  if (error != 0) {
    say(": ");
    sys::say_error(error);
  }
  say(status == kCannotApply ? "; the command did not run (holdfast doctor says what this host's "
                               "Landlock supports)\n"
                             : "\n");
  sys::exit(status);
}

[[noreturn]] void usage(std::string_view what) {
  fail("holdfast-landlock: bad arguments:", what, 0, kCannotApply);
}

bool parse_rights(std::string_view text, Rights& rights) {
  rights = 0;
  if (text == "-") return true;
  for (const char c : text) {
    const auto at = std::string_view(ll::kRightLetters).find(c);
    if (at == std::string_view::npos) return false;
    rights |= Rights{1} << at;
  }
  return true;
}

int parse_count(std::string_view text) {
  int value = 0;
  if (text.empty() || text.size() > 6) return -1;
  for (const char c : text) {
    if (c < '0' || c > '9') return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

// "DEV:INO" (decimal) into dev and ino; false when malformed.
bool parse_identity(std::string_view text, unsigned long long& dev, unsigned long long& ino) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size()) return false;
  const auto number = [](std::string_view digits, unsigned long long& value) {
    value = 0;
    if (digits.size() > 20) return false;
    for (const char c : digits) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + static_cast<unsigned long long>(c - '0');
    }
    return true;
  };
  // (No substr: it may throw, and this program has no exceptions.)
  return number({text.data(), colon}, dev) &&
         number({text.data() + colon + 1, text.size() - colon - 1}, ino);
}

// makedev() of glibc's <sys/sysmacros.h>, which the identity holdfast
// passes was made with.
bool same_file(const struct statx& st, unsigned long long dev, unsigned long long ino) {
  const unsigned long long major = st.stx_dev_major;
  const unsigned long long minor = st.stx_dev_minor;
  const unsigned long long device = ((major & 0x00000fffULL) << 8) |
                                    ((major & 0xfffff000ULL) << 32) | ((minor & 0x000000ffULL)) |
                                    ((minor & 0xffffff00ULL) << 12);
  return device == dev && st.stx_ino == ino;
}

// The errno of a failed system call's result.
int error_of(long result) { return static_cast<int>(-result); }

// The command starts where the caller was: the directory bubblewrap
// entered is the one holdfast checked.
void check_cwd(unsigned long long dev, unsigned long long ino) {
  struct statx st {};
  if (const long error = sys::stat_path(".", st); error != 0) {
    fail("cannot stat the command's directory", "", static_cast<int>(-error), kCannotApply);
  }
  if (!same_file(st, dev, ino)) {
    fail(
        "the command's directory is not the one the launch checked (the workspace or a "
        "directory above it was swapped while the sandbox started);",
        "start it again, and find what keeps moving it", 0, kCannotApply);
  }
}

class Ruleset {
 public:
  // The launch's ruleset: `given` (>= 0), the one holdfast created on the
  // host and has added the rules on host files to, or a new one.
  Ruleset(int abi, bool tcp_closed, Rights scopes, int given) : abi_(abi), fd_(given) {
    if (fd_ >= 0) return;
    const ll::RulesetAttr attr = ll::ruleset_attr(abi, tcp_closed, scopes);
    const long fd = sys::call(SYS_landlock_create_ruleset, reinterpret_cast<long>(&attr),
                              static_cast<long>(ll::ruleset_attr_size(abi)), 0);
    if (fd < 0) fail("cannot create the Landlock ruleset", "", error_of(fd), kCannotApply);
    fd_ = static_cast<int>(fd);
  }

  // Grants `rights` (those the kernel handles; file rights only on a file
  // that is not a directory) on what `fd` is, and below it. A file Landlock
  // cannot name (on an internal filesystem: a memfd, a pipe) needs no rule
  // when `optional`: Landlock does not restrict those.
  void grant(int fd, Rights rights, std::string_view name, bool optional = false) {
    struct statx st {};
    if (const long error = sys::stat_fd(fd, st); error != 0) {
      fail("cannot stat", name, error_of(error), kCannotApply);
    }
    if (S_ISLNK(st.stx_mode)) return;  // its target has a rule of its own, or none
    add(fd, S_ISDIR(st.stx_mode), rights, name, optional);
  }

  // grant() for a file whose type is known (from the directory listing);
  // false when the kernel says it is not that type (it was replaced since).
  bool grant_known(int fd, bool directory, Rights rights, std::string_view name) {
    return add(fd, directory, rights, name, false, /*may_be_other_type=*/true);
  }

  void restrict_self() {
    if (const long error = sys::call(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); error != 0) {
      fail("cannot set no_new_privs", "", error_of(error), kCannotApply);
    }
    if (const long error = sys::call(SYS_landlock_restrict_self, fd_, 0); error != 0) {
      fail("cannot restrict the sandbox with Landlock", "", error_of(error), kCannotApply);
    }
    sys::close(fd_);
  }

 private:
  bool add(int fd, bool directory, Rights rights, std::string_view name, bool optional,
           bool may_be_other_type = false) {
    rights = ll::rule_rights(rights, abi_, directory);
    if (rights == 0) return true;
    const ll::PathBeneathAttr attr{rights, fd};
    if (const long error = sys::call(SYS_landlock_add_rule, fd_, ll::kRulePathBeneath,
                                     reinterpret_cast<long>(&attr), 0);
        error != 0) {
      if (optional && error == -EBADFD) return true;
      // Directory rights on a file that was a directory when listed.
      if (may_be_other_type && error == -EINVAL) return false;
      fail("cannot add the Landlock rule for", name, error_of(error), kCannotApply);
    }
    return true;
  }

  int abi_;
  int fd_;
};

// A path the plan names; gone inside the sandbox, it needs no rule. With
// an identity (`pinned`), the path must still be that file: a directory
// renamed on the host while the sandbox started would take the rule to
// another one.
void grant_beneath(Ruleset& ruleset, const char* path, Rights rights, bool pinned = false,
                   unsigned long long dev = 0, unsigned long long ino = 0) {
  const long opened = sys::open_at(AT_FDCWD, path, O_PATH | O_CLOEXEC);
  if (opened < 0) {
    if (opened == -ENOENT && !pinned) return;
    fail("cannot open", path, error_of(opened), kCannotApply);
  }
  const int fd = static_cast<int>(opened);
  if (pinned) {
    struct statx st {};
    if (const long error = sys::stat_fd(fd, st); error != 0) {
      fail("cannot stat", path, error_of(error), kCannotApply);
    }
    if (!same_file(st, dev, ino)) {
      fail("a path was moved while the sandbox started:", path, 0, kCannotApply);
    }
  }
  ruleset.grant(fd, rights, path);
  sys::close(fd);
}

// Descriptors closed a run at a time (close_range): the entries of a
// large directory (/etc has about 150) each need one only while their rule
// is added, and every system call counts at a launch's start.
class PendingCloses {
 public:
  ~PendingCloses() { flush(); }

  void add(int fd) {
    if (count_ == kBatch) flush();
    fds_[count_++] = fd;
  }

  void flush() {
    for (int i = 0; i < count_;) {
      int last = i;
      while (last + 1 < count_ && fds_[last + 1] == fds_[last] + 1) ++last;
      sys::call(SYS_close_range, fds_[i], fds_[last], 0);
      i = last + 1;
    }
    count_ = 0;
  }

 private:
  static constexpr int kBatch = 64;
  int fds_[kBatch] = {};
  int count_ = 0;
};

void grant_split(Ruleset& ruleset, const char* path, Rights here, Rights entries, char* const* skip,
                 int skip_count) {
  const long opened = sys::open_at(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (opened < 0) {
    if (opened == -ENOENT) return;
    fail("cannot open", path, error_of(opened), kCannotApply);
  }
  const int dir = static_cast<int>(opened);
  ruleset.grant(dir, here, path);
  PendingCloses closes;
  alignas(8) char buffer[16384];
  for (;;) {
    const long n = sys::call(SYS_getdents64, dir, reinterpret_cast<long>(buffer), sizeof buffer);
    if (n < 0) fail("cannot list", path, error_of(n), kCannotApply);
    if (n == 0) break;
    for (long at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const struct dirent64*>(buffer + at);
      at += entry->d_reclen;
      const std::string_view name = entry->d_name;
      if (name == "." || name == "..") continue;
      // A symlink's target has a rule of its own, or none.
      if (entry->d_type == DT_LNK) continue;
      bool skipped = false;
      for (int i = 0; i < skip_count && !skipped; ++i) skipped = name == skip[i];
      if (skipped) continue;
      const long fd = sys::open_at(dir, entry->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) {
        if (fd == -ENOENT) continue;  // gone since it was listed
        fail("cannot open an entry of", path, error_of(fd), kCannotApply);
      }
      closes.add(static_cast<int>(fd));
      // The listing's type saves a stat; an entry of unknown type, or one
      // replaced since, is looked at.
      if (entry->d_type == DT_UNKNOWN ||
          !ruleset.grant_known(static_cast<int>(fd), entry->d_type == DT_DIR, entries, path)) {
        ruleset.grant(static_cast<int>(fd), entries, path);
      }
    }
  }
  closes.flush();
  sys::close(dir);
}

// Standard input, output and error: what a caller handed in keeps the
// access it was opened with when reopened through /proc/self/fd.
void grant_standard_descriptors(Ruleset& ruleset) {
  for (int fd = 0; fd <= 2; ++fd) {
    const long flags = sys::call(SYS_fcntl, fd, F_GETFL);
    struct statx st {};
    if (flags < 0 || sys::stat_fd(fd, st) != 0) continue;
    if (!S_ISCHR(st.stx_mode) && !S_ISREG(st.stx_mode)) continue;  // pipes, sockets: no path
    const long mode = flags & O_ACCMODE;
    Rights rights = 0;
    if (mode == O_RDONLY || mode == O_RDWR) rights |= ll::kReadFile;
    if (mode == O_WRONLY || mode == O_RDWR) rights |= ll::kWriteFile | ll::kTruncate;
    if (S_ISCHR(st.stx_mode)) rights |= ll::kIoctlDev;
    ruleset.grant(fd, rights, "a standard descriptor", /*optional=*/true);
  }
}

}  // namespace

int main(int argc, char** argv, char** envp) {
  int abi = -1;
  bool tcp_closed = false;
  bool cwd_given = false;
  int ruleset_fd = -1;
  unsigned long long cwd_dev = 0;
  unsigned long long cwd_ino = 0;
  Rights scopes = 0;
  int at = 1;
  // The options that shape the ruleset come first.
  for (; at < argc; ++at) {
    const std::string_view arg = argv[at];
    if (arg == "--abi" && at + 1 < argc) {
      abi = parse_count(argv[++at]);
    } else if (arg == "--cwd" && at + 1 < argc) {
      cwd_given = parse_identity(argv[++at], cwd_dev, cwd_ino);
      if (!cwd_given) usage(argv[at]);
    } else if (arg == "--ruleset" && at + 1 < argc) {
      ruleset_fd = parse_count(argv[++at]);
      if (ruleset_fd < 3) usage(argv[at]);
    } else if (arg == "--tcp-closed") {
      tcp_closed = true;
    } else if (arg == "--scope" && at + 1 < argc) {
      for (const char c : std::string_view(argv[++at])) {
        if (c == 'a')
          scopes |= ll::kScopeAbstractUnixSocket;
        else if (c == 's')
          scopes |= ll::kScopeSignal;
        else
          usage(argv[at]);
      }
    } else {
      break;
    }
  }
  if (abi < 0) usage("--abi");
  if (cwd_given) check_cwd(cwd_dev, cwd_ino);
  if (abi > 0) {
    Ruleset ruleset(abi, tcp_closed, scopes, ruleset_fd);
    for (; at < argc; ++at) {
      const std::string_view arg = argv[at];
      if (arg == "--") break;
      Rights here = 0;
      Rights entries = 0;
      unsigned long long dev = 0;
      unsigned long long ino = 0;
      if (arg == "--beneath" && at + 2 < argc && parse_rights(argv[at + 1], here)) {
        grant_beneath(ruleset, argv[at + 2], here);
        at += 2;
      } else if (arg == "--beneath-id" && at + 3 < argc && parse_rights(argv[at + 1], here) &&
                 parse_identity(argv[at + 2], dev, ino)) {
        grant_beneath(ruleset, argv[at + 3], here, true, dev, ino);
        at += 3;
      } else if (arg == "--split" && at + 4 < argc && parse_rights(argv[at + 1], here) &&
                 parse_rights(argv[at + 2], entries)) {
        const int count = parse_count(argv[at + 4]);
        if (count < 0 || at + 4 + count >= argc) usage(argv[at + 4]);
        grant_split(ruleset, argv[at + 3], here, entries, argv + at + 5, count);
        at += 4 + count;
      } else {
        usage(arg);
      }
    }
    if (at >= argc || at + 1 >= argc) usage("no command after --");
    grant_standard_descriptors(ruleset);
    ruleset.restrict_self();
  } else if (at >= argc || std::string_view(argv[at]) != "--" || at + 1 >= argc) {
    usage("no command after --");
  }
  // The command sees 0, 1 and 2 only (this program's own memfd included
  // goes).
  sys::call(SYS_close_range, 3, static_cast<long>(~0U), CLOSE_RANGE_CLOEXEC);
  char** command = argv + at + 1;
  const int error = sys::exec_command(command, envp);
  fail("cannot execute", command[0], error, error == ENOENT ? 127 : 126);
}
