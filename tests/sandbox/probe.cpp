// Runs inside a bubblewrap sandbox for the differential test. For every path
// on the command line prints one line:
//   PATH <TAB> read-ok <TAB> write-ok <TAB> payload
// read-ok / write-ok are 1 or 0. For a directory, reading is listing it and
// the payload is its entry names joined by '/'; writing is creating (then
// removing) a new file in it. For a file, reading is opening and reading it
// (the payload is its first line); writing is opening it for append and
// writing one byte. Whether the answer is "the host's content" is decided
// by the test, which knows the host tree.
//
// The probe is adversarial where it can be: when a write is refused for
// permissions (EACCES), it tries to chmod the path to give itself write
// access and tries again, as a hostile command would. Read-only must hold
// because the mount is read-only (EROFS), not because of mode bits the
// sandboxed user owns.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

namespace {

void probe_directory(const std::string& path, bool& read_ok, bool& write_ok, std::string& payload) {
  if (DIR* dir = ::opendir(path.c_str())) {
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(dir)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    for (const auto& name : names) payload += (payload.empty() ? "" : "/") + name;
    read_ok = true;
  }
  const std::string probe = path + "/.hf-probe-write";
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 && errno == EACCES && ::chmod(path.c_str(), 0700) == 0) {
    fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  }
  if (fd >= 0) {
    write_ok = true;
    ::close(fd);
    ::unlink(probe.c_str());
  }
}

void probe_file(const std::string& path, bool& read_ok, bool& write_ok, std::string& payload) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buffer[256];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n >= 0) {
      read_ok = true;
      payload.assign(buffer, static_cast<std::size_t>(n));
      payload = payload.substr(0, payload.find('\n'));
    }
    ::close(fd);
  }
  int wfd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (wfd < 0 && errno == EACCES && ::chmod(path.c_str(), 0600) == 0) {
    wfd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  }
  if (wfd >= 0) {
    write_ok = ::write(wfd, "+", 1) == 1;
    ::close(wfd);
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string path = argv[i];
    bool read_ok = false;
    bool write_ok = false;
    std::string payload;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        probe_directory(path, read_ok, write_ok, payload);
      } else {
        probe_file(path, read_ok, write_ok, payload);
      }
    }
    std::printf("%s\t%d\t%d\t%s\n", path.c_str(), read_ok ? 1 : 0, write_ok ? 1 : 0,
                payload.c_str());
  }
  return 0;
}
