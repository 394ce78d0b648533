#include "settings/scope_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fd.hpp"
#include "base/sha256.hpp"
#include "base/system_error.hpp"
#include "settings/schema.hpp"

namespace holdfast::settings {

namespace {

std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "of an unknown kind";
}

}  // namespace

bool FileIdentity::operator==(const FileIdentity& other) const {
  return device == other.device && inode == other.inode && size == other.size &&
         mtime.tv_sec == other.mtime.tv_sec && mtime.tv_nsec == other.mtime.tv_nsec &&
         sha256 == other.sha256;
}

ScopeFile detail::read_scope_file_once(Scope scope, const std::filesystem::path& path) {
  ScopeFile file;
  file.scope = scope;
  file.path = path;
  file.document = nlohmann::json::object();
  // O_NONBLOCK: a FIFO planted at the path must be refused below, not
  // block the reader forever in open(); it changes nothing for a regular file.
  const int raw = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (raw < 0) {
    if (errno == ENOENT) return file;
    base::throw_errno("cannot open settings file", path);
  }
  const base::UniqueFd fd(raw);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) base::throw_errno("cannot stat settings file", path);
  if (!S_ISREG(st.st_mode)) {
    throw base::SystemError("cannot read settings file", path,
                            "it is " + file_kind(st.st_mode) +
                                ", not a regular file; a settings file must be a regular file "
                                "(replace it with one, or remove it)");
  }
  file.exists = true;
  // One byte past the limit is enough to know the file is too large.
  file.bytes = base::read_all(fd.get(), path, kMaxSettingsFileBytes + 1);
  file.identity.device = st.st_dev;
  file.identity.inode = st.st_ino;
  file.identity.size = st.st_size;
  file.identity.mtime = st.st_mtim;
  file.identity.owner = st.st_uid;
  file.identity.mode = st.st_mode;
  file.identity.sha256 = base::sha256_hex(file.bytes);
  interpret_scope_bytes(file);
  return file;
}

void interpret_scope_bytes(ScopeFile& file) {
  file.diagnostics.clear();
  file.document = nlohmann::json::object();
  file.locations.clear();
  file.revision = 0;
  try {
    ParsedText parsed = parse_settings_text(file.bytes, file.path);
    file.diagnostics = validate(parsed.value, parsed.locations, file.path);
    if (!has_errors(file.diagnostics)) {
      file.document = std::move(parsed.value);
      file.locations = std::move(parsed.locations);
      if (const auto it = file.document.find(kRevisionKey); it != file.document.end()) {
        file.revision = it->get<std::uint64_t>();
      }
    }
  } catch (const InvalidSettings& e) {
    file.diagnostics = e.diagnostics();
  }
}

void require_valid(const ScopeFile& file) {
  if (!file.valid()) throw InvalidSettings(file.diagnostics);
}

}  // namespace holdfast::settings
