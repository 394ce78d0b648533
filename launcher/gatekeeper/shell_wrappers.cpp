#include "launcher/gatekeeper/shell_wrappers.hpp"

#include <algorithm>

namespace holdfast::gatekeeper::shell::detail {

namespace {

constexpr Wrapper kWrappers[] = {
    {.names = {"sudo", "doas"},
     .short_values = "ugChpPrtUTD",
     .long_values =
         " user group close-from host prompt role type other-user command-timeout chdir ",
     .chdir = {"D", "chdir"}},
    {.names = {"env"},
     .short_values = "uCS",
     .long_values = " unset chdir split-string ",
     .chdir = {"C", "chdir"},
     .splits = {"S", "split-string"},
     .splits_because = "env -S splits a string into a command",
     .assignments_follow = true},
    {.names = {"time"}, .short_values = "fo", .long_values = " format output "},
    {.names = {"nice"}, .short_values = "n", .long_values = " adjustment "},
    {.names = {"nohup", "builtin", "setsid"}, .short_values = "", .long_values = ""},
    {.names = {"timeout"},
     .short_values = "sk",
     .long_values = " signal kill-after ",
     .skips_operand = true},
    {.names = {"stdbuf"}, .short_values = "ioe", .long_values = " input output error "},
    {.names = {"ionice"}, .short_values = "cnpPu", .long_values = " class classdata pid pgid uid "},
    {.names = {"exec"}, .short_values = "a", .long_values = ""},
    {.names = {"command"}, .short_values = "", .long_values = "", .lookup_only = {"v", "V"}},
    {.names = {"xargs"},
     .short_values = "aEdIiLlnPs",
     .long_values = " arg-file eof delimiter replace max-lines max-args max-procs max-chars ",
     .unanalysable = "xargs builds the command's arguments from its input",
     .reads = {"a", "arg-file"}},
};

}  // namespace

const Wrapper* find_wrapper(std::string_view name) {
  for (const Wrapper& wrapper : kWrappers) {
    // Unused name entries are empty; an empty name ("dir/") is no wrapper.
    if (!name.empty() && std::ranges::find(wrapper.names, name) != wrapper.names.end()) {
      return &wrapper;
    }
  }
  return nullptr;
}

}  // namespace holdfast::gatekeeper::shell::detail
