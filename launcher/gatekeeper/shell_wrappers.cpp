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
     .operand = Operand::data},
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
    // strace -o '|cmd' and -o '!cmd' pipe the trace into a command; -E sets
    // the traced command's environment: neither is mapped.
    {.names = {"strace"},
     .options =
         "-A -c -C -d -D -f -F -h -i -k -n -q -r -t -T -v -V -w -x -y -Y -z -Z -a= -b= -e= -E=U "
         "-I= -o=U -O= -p= -P= -s= -S= -u= -U= -X= --abbrev= --absolute-timestamps=? --attach= "
         "--columns= --const-print-style= --daemonize=? --debug --decode-fds=? --decode-pids= "
         "--detach-on= --env=U --failed-only --fault= --follow-forks --help --inject= "
         "--instruction-pointer --interruptible= --kvm= --no-abbrev --output-append-mode "
         "--output-separately --output=U --quiet= --raw= --read= --relative-timestamps=? "
         "--seccomp-bpf --signal= --stack-traces --status= --string-limit= --strings-in-hex=? "
         "--successful-only --summary --summary-columns= --summary-only --summary-sort-by= "
         "--summary-syscall-overhead= --summary-wall-clock --syscall-number --syscall-times=? "
         "--tips=? --trace-path= --trace= --user= --verbose= --version --write="},
    {.names = {"ltrace"},
     .options = "-a= -A= -b -c -C -D= -e= -f -F=R -h -i -l= -L -n= -o=W -p= -r -s= -S -t -T -u= "
                "-V -w= -x= --align= --config=R --demangle --debug=? --help --indent= --library= "
                "--no-plt --no-signals --output=W --version --where="},
    {.names = {"taskset"},
     .options = "-a -p -c -h -V --all-tasks --pid --cpu-list --help --version",
     .operand = Operand::data},
    // flock takes -c only after the file (before it, flock refuses it).
    {.names = {"flock"},
     .options = "-s -x -e -u -n -w= -E= -o -F -h -V --shared --exclusive --unlock --nonblock "
                "--nb --timeout= --wait= --conflict-exit-code= --close --no-fork --verbose --help "
                "--version",
     .operand = Operand::created_file,
     .string_after_operand = {"-c", "--command"}},
    // xvfb-run -s passes options to the X server, which holdfast does not map.
    {.names = {"xvfb-run"},
     .options = "-a -d -e=W -f=W -h -l -n= -p= -s=U -w= --auto-servernum --auto-display "
                "--error-file=W --auth-file=W --help --listen-tcp --server-num= --xauth-protocol= "
                "--server-args=U --wait="},
    // fakeroot -l loads a library and --faked runs a daemon of the caller's choosing.
    {.names = {"fakeroot"},
     .options = "-l=U -f=U -i=R -s=W -u -b= -h -v --lib=U --faked=U --unknown-is-real --fd-base= "
                "--help --version"},
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
