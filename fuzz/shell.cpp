// Fuzz target: the shell lexer and the analysis of what a command line
// does, as the gatekeeper sees a Bash call.
//
// Properties: a command line that reads a denied file, as the analysis
// reports it, is denied as a Bash call, in every approval mode.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.hpp"
#include "launcher/gatekeeper/decide.hpp"
#include "launcher/gatekeeper/shell_analysis.hpp"
#include "launcher/gatekeeper/shell_lexer.hpp"
#include "launcher/gatekeeper/url_host.hpp"

using holdfast::fuzz::check;
namespace gatekeeper = holdfast::gatekeeper;
namespace shell = holdfast::gatekeeper::shell;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string line(reinterpret_cast<const char*>(data), size);
  const shell::LexResult lexed = shell::lex(line);
  (void)lexed;
  // A host is one a domain rule can judge: lowercase ASCII letters,
  // digits, '-', '.', '_' (or an IPv6 literal's hex digits and ':'), or
  // nothing.
  const std::string host = gatekeeper::url_host(line);
  check(host.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-._:") == std::string::npos,
        "url_host returns only a judgeable host");
  const shell::ShellContext where{"/home/me/project", "/home/me"};
  const shell::Analysis analysis = shell::analyse(line, where);

  bool reads_secret = false;
  for (const auto& command : analysis.commands) {
    for (const auto& op : command.ops) {
      check(!op.target.empty(), "an operation has a target");
      if (op.kind != shell::OpKind::fetch) check(op.target.front() == '/', "paths are absolute");
      reads_secret |= op.kind == shell::OpKind::read && op.target == "/home/me/.ssh/id_rsa";
    }
  }
  if (!reads_secret) return 0;
  gatekeeper::Context context;
  context.workspace = where.cwd;
  context.cwd = where.cwd;
  context.home = where.home;
  context.mode = gatekeeper::Mode::yolo;
  context.persistent.deny.push_back(gatekeeper::parse_rule("Read(~/.ssh/**)"));
  context.persistent.allow.push_back(gatekeeper::parse_rule("Bash"));
  check(gatekeeper::decide({"Bash", line}, context).decision == gatekeeper::Decision::deny,
        "reading a denied file through the shell is denied");
  return 0;
}
