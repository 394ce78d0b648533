// Where the service's Unix socket may live. Clients find the socket by its
// path, so whoever can rename an entry on that path can move the socket
// aside and listen in its place (and read the owner's next save). The
// directory that holds the socket and every directory above it must
// therefore be writable by no one but the service's user and root.
//
// holdfast creates and tightens only a directory of its own
// ($XDG_RUNTIME_DIR/holdfast); a directory the operator names with
// --socket, and $XDG_RUNTIME_DIR itself, are checked and, when unsafe,
// refused with the remedy: never changed.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

#include "base/fd.hpp"

namespace holdfast::service {

// What is known of one directory, from fstat of a descriptor.
struct DirectoryFacts {
  std::string path;  // for messages
  uid_t owner = 0;
  mode_t mode = 0;
  bool is_directory = true;
};

enum class DirectoryRole {
  // $XDG_RUNTIME_DIR: the user's own (the XDG spec: owned by the user,
  // 0700). One that belongs to another user (sudo keeping the
  // environment) is theirs to rearrange.
  runtime_dir,
  // The directory --socket names, or any directory above the socket's:
  // owned by the service's user or root, writable by no one else unless
  // sticky (like /tmp: others cannot rename what is not theirs).
  on_the_path,
};

// What is wrong with a directory in `role` for a service running as
// `self`, or nullopt. The message says what to do.
std::optional<std::string> directory_problem(const DirectoryFacts& facts, DirectoryRole role,
                                             uid_t self);

// The directory a socket is bound in, held open: the socket is bound,
// probed and removed through this descriptor (/proc/self/fd/N/NAME), so a
// directory renamed after the checks is not where it goes.
struct SocketPlace {
  base::UniqueFd directory;
  std::string name;            // the socket's file name in it
  std::filesystem::path path;  // as clients name it
};

// The place for `path`. With `ours`, the directory is holdfast's own
// ($XDG_RUNTIME_DIR/holdfast): created 0700 if missing, made 0700 if it is
// ours with other modes, and its parent (the runtime directory) is judged
// as runtime_dir. Otherwise the directory must exist and pass as it is.
// Every directory above is judged on_the_path. Throws SystemError /
// UsageError saying what to do.
SocketPlace prepare_socket_place(const std::filesystem::path& path, bool ours);

}  // namespace holdfast::service
