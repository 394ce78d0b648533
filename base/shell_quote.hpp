// A word for /bin/sh: single-quoted, whatever the text holds ("it's" →
// 'it'\''s'). For commands holdfast writes for a shell to run (the race
// harness's launcher commands, git's GIT_SSH_COMMAND inside a sandbox).
#pragma once

#include <string>
#include <string_view>

namespace holdfast::base {

inline std::string shell_quote(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace holdfast::base
