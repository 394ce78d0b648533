#include "launcher/run/trusted_executable.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/system_error.hpp"

namespace holdfast::launcher {

namespace {

using Result = ExecutableLookup::Result;

// The start of a file: enough for a "#!" line.
constexpr std::size_t kHeaderBytes = 256;

std::string read_header(int fd) {
  char buffer[kHeaderBytes];
  const ssize_t n = ::pread(fd, buffer, sizeof buffer, 0);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

std::string remedy_for(const std::string& path) {
  return "holdfast executes only a program owned by root in directories only root can write; "
         "install it from the distribution (bubblewrap: apt-get install bubblewrap, at "
         "/usr/bin/bwrap), or make " +
         path + " and every directory above it root's and writable by no one else (chown root " +
         path + "; chmod go-w " + path + ")";
}

ExecutableLookup untrusted(const std::string& path, std::string problem) {
  ExecutableLookup lookup;
  lookup.result = Result::untrusted;
  lookup.path = path;
  lookup.problem = std::move(problem);
  lookup.remedy = remedy_for(path);
  return lookup;
}

// The lookup of `path`; `as_interpreter` when it is a script's interpreter
// (which may not be a script itself: one level is enough, and the kernel's
// own nesting would hide what runs).
ExecutableLookup look_up(const std::string& path, bool as_interpreter, uid_t also_trusted) {
  if (path.empty() || path.front() != '/') {
    return untrusted(path, "\"" + path + "\" is not an absolute path");
  }
  base::WalkedPath walked;
  bool readable = true;
  try {
    walked = base::walk_path(path, O_RDONLY);
  } catch (const base::SystemError& e) {
    if (e.error_number() == ENOENT) {
      ExecutableLookup lookup;
      lookup.result = Result::missing;
      lookup.path = path;
      lookup.problem = std::string(e.what());
      return lookup;
    }
    if (e.error_number() != EACCES) return untrusted(path, e.what());
    // Executable but not readable by us: judged and executed all the same
    // (it cannot be a script: an interpreter could not read it either).
    try {
      walked = base::walk_path(path, O_PATH);
      readable = false;
    } catch (const base::SystemError& again) {
      return untrusted(path, again.what());
    }
  }
  if (auto problem = distrust(walked.steps, also_trusted)) return untrusted(path, *problem);

  TrustedExecutable executable;
  executable.path = path;
  executable.resolved = walked.resolved;
  executable.chain = walked.steps;
  if (readable) {
    if (auto interpreter = interpreter_of(read_header(walked.fd.get()))) {
      if (as_interpreter) {
        return untrusted(path, walked.resolved + " is a script; an interpreter must be a program");
      }
      const ExecutableLookup of_interpreter =
          look_up(*interpreter, /*as_interpreter=*/true, also_trusted);
      if (of_interpreter.result != Result::found) {
        return untrusted(path, walked.resolved + " is a script whose interpreter is not trusted: " +
                                   of_interpreter.problem);
      }
      executable.interpreter = *interpreter;
    }
  }
  executable.fd = std::move(walked.fd);
  ExecutableLookup lookup;
  lookup.result = Result::found;
  lookup.path = path;
  lookup.executable = std::move(executable);
  return lookup;
}

}  // namespace

std::string TrustedExecutable::why_trusted() const {
  std::string directories;
  for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
    directories += (directories.empty() ? "" : ", ") + chain[i].path;
  }
  const mode_t mode = chain.empty() ? 0 : chain.back().mode;
  const uid_t owner = chain.empty() ? 0 : chain.back().owner;
  return resolved + " (owned by " +
         (owner == 0 ? std::string("root") : "uid " + std::to_string(owner)) + ", mode " +
         base::octal_mode(mode) +
         "; every directory and link on the way writable by no one else: " + directories + ")" +
         (interpreter ? "; a script run by " + *interpreter + ", checked alike" : std::string());
}

std::optional<std::string> distrust(const std::vector<base::PathStep>& chain, uid_t also_trusted) {
  if (chain.empty()) return "nothing was looked at";
  for (const base::PathStep& step : chain) {
    if (auto problem =
            base::ownership_problem(step, also_trusted, base::StickyDirectories::refused)) {
      return *problem + ": someone other than root" +
             (also_trusted != 0 ? " and uid " + std::to_string(also_trusted) : std::string()) +
             " could replace what runs";
    }
  }
  const base::PathStep& file = chain.back();
  if (!S_ISREG(file.mode)) return file.path + " is not a regular file";
  if ((file.mode & (S_IXUSR | S_IXGRP | S_IXOTH)) == 0) return file.path + " is not executable";
  return std::nullopt;
}

std::optional<std::string> interpreter_of(const std::string& header) {
  if (!header.starts_with("#!")) return std::nullopt;
  const std::size_t end = std::min(header.find('\n'), header.size());
  const std::string line = header.substr(2, end - 2);
  const std::size_t start = line.find_first_not_of(" \t");
  if (start == std::string::npos) return std::string();
  const std::size_t stop = line.find_first_of(" \t", start);
  return line.substr(start, stop == std::string::npos ? std::string::npos : stop - start);
}

ExecutableLookup find_trusted_executable(const std::string& path, uid_t also_trusted) {
  return look_up(path, /*as_interpreter=*/false, also_trusted);
}

int execute_descriptor(int fd, char* const argv[], char* const envp[]) {
  return ::execveat(fd, "", argv, envp, AT_EMPTY_PATH);
}

}  // namespace holdfast::launcher
