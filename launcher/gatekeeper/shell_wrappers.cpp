#include "launcher/gatekeeper/shell_wrappers.hpp"

#include <algorithm>
#include <vector>

namespace holdfast::gatekeeper::shell::detail {

namespace {

constexpr Wrapper kWrappers[] = {
    {.names = {"sudo"},
     .options = "-u= -g= -C= -h=? -p= -r= -t= -U= -T= -D=S -A -b -E -H -i -k -K -l -n -P -S -s -V "
                "-v --user= --group= --close-from= --host= --prompt= --role= --type= "
                "--other-user= --command-timeout= --chdir=S --askpass --background "
                "--preserve-env=? --set-home --login --remove-timestamp --reset-timestamp "
                "--non-interactive --preserve-groups --stdin --shell --help --version",
     .chdir = {"D", "chdir"}},
    {.names = {"doas"}, .options = "-u= -C=R -n -s", .style = ParseStyle::first},
    {.names = {"env"},
     .options = "-i -0 -u= -C=S -S=S -v --ignore-environment --null --unset= --chdir=S "
                "--split-string=S --debug --block-signal=? --default-signal=? --ignore-signal=? "
                "--list-signal-handling --help --version",
     .chdir = {"C", "chdir"},
     .splits = {"S", "split-string"},
     .assignments_follow = true},
    {.names = {"time"},
     .options = "-f= -o=W -a -p -q -v -V --format= --output=W --append --portability --quiet "
                "--verbose --help --version"},
    {.names = {"nice"}, .options = "-# -n= --adjustment= --help --version"},
    {.names = {"nohup"}, .options = "--help --version"},
    {.names = {"builtin"}, .options = "", .style = ParseStyle::first},
    {.names = {"setsid"}, .options = "-c -f -w --ctty --fork --wait --help --version"},
    {.names = {"timeout"},
     .options = "-s= -k= -v -f --signal= --kill-after= --preserve-status --foreground --verbose "
                "--help --version",
     .skips_operand = true},
    {.names = {"stdbuf"}, .options = "-i= -o= -e= --input= --output= --error= --help --version"},
    {.names = {"ionice"},
     .options = "-c= -n= -p= -P= -u= -t --class= --classdata= --pid= --pgid= --uid= --ignore "
                "--help --version"},
    {.names = {"exec"}, .options = "-a= -c -l", .style = ParseStyle::first},
    {.names = {"command"},
     .options = "-p -v -V",
     .lookup_only = {"v", "V"},
     .style = ParseStyle::first},
    {.names = {"xargs"},
     .options = "-0 -a=R -d= -E= -e=? -I=S -i=?S -L= -l=? -n= -o -P= -p -r -s= -t -x --null "
                "--arg-file=R --delimiter= --eof=? --replace=?S --max-lines=? --max-args= "
                "--open-tty --max-procs= --interactive --no-run-if-empty --max-chars= --verbose "
                "--exit --process-slot-var= --show-limits --help --version",
     .wraps = Wraps::input},
    // busybox APPLET ARGS: the applet is the program.
    {.names = {"busybox"}, .options = "", .style = ParseStyle::first},
    {.names = {"watch"},
     .options = "-n= -d=? -t -b -e -g -c -x -p -w -q= -r --interval= --differences=? --no-title "
                "--beep --errexit --chgexit --color --no-color --exec --precise --no-wrap "
                "--equexit= --no-rerun --help --version",
     .unjoined = {"x", "exec"},
     .wraps = Wraps::joined},
};

std::vector<OptionTable> build_tables() {
  std::vector<OptionTable> tables;
  for (const Wrapper& wrapper : kWrappers) {
    tables.push_back(compile_options(wrapper.options, wrapper.style));
  }
  return tables;
}

}  // namespace

WrapperRow find_wrapper(std::string_view name) {
  static const std::vector<OptionTable> tables = build_tables();
  if (name.empty()) return {nullptr, nullptr};  // "dir/" names no wrapper
  for (std::size_t i = 0; i < std::size(kWrappers); ++i) {
    if (std::ranges::find(kWrappers[i].names, name) != kWrappers[i].names.end()) {
      return {&kWrappers[i], &tables[i]};
    }
  }
  return {nullptr, nullptr};
}

}  // namespace holdfast::gatekeeper::shell::detail
