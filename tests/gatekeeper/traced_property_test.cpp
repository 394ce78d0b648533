// The property behind the effects tables, checked against real bash: over
// generated command lines, no answer is `allow` (in any mode) when the
// command, run in real bash inside bubblewrap under `strace -f`, executes a
// denied program or touches a denied path. Each allowed line runs in a
// fresh tree; the trace is read for execve of rm/curl, opens of ~/.ssh,
// and writes under protected/ or /etc. (Listing ~/.ssh is not reading it
// here; the gatekeeper is stricter and denies `ls ~/.ssh`.)
//
// Each traced line is a sandbox and a tracer started: by default the test
// traces 25 allowed lines (CI runs the whole suite on 2 cores);
// HOLDFAST_TRACED_LINES=N traces N, for a campaign by hand.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "base/process.hpp"
#include "launcher/gatekeeper/decide.hpp"
#include "launcher/gatekeeper/path_match.hpp"
#include "launcher/gatekeeper/symlinks.hpp"
#include "tests/gatekeeper/fixture.hpp"

namespace holdfast::gatekeeper {
// Its own namespace: a unity build compiles this file with the suite's
// other tables, which define helpers of the same names.
namespace traced_property_test {
namespace {

namespace fs = std::filesystem;

const char* const kDeny[] = {"Bash(rm:*)", "Bash(curl:*)", "Read(~/.ssh/**)",
                             "Edit(./protected/**)", "Edit(//etc/**)"};

struct Paths {
  std::string root, ws, home;
};

void make_tree(const Paths& p) {
  fs::remove_all(p.root);
  testing::write_file(p.home + "/.ssh/id_rsa", "secret\n");
  testing::write_file(p.ws + "/f", "a\n");
  testing::write_file(p.ws + "/f2", "b\n");
  testing::write_file(p.ws + "/list", "f\n");
  testing::write_file(p.ws + "/src/a.c", "a\n");
  testing::write_file(p.ws + "/protected/p", "a\n");
  fs::create_symlink(p.home + "/.ssh/id_rsa", p.ws + "/key");
}

// What the trace shows the command did that the rules deny.
std::vector<std::string> violations(const std::string& trace, const Paths& p) {
  std::vector<std::string> found;
  static const std::regex kLine(R"(^\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+)(<([^>]*)>)?)");
  static const std::regex kPath(R"((?:AT_FDCWD|\d+)<([^>]*)>,\s*\"((?:[^\"\\]|\\.)*)\")");
  static const std::regex kString(R"(\"((?:[^\"\\]|\\.)*)\")");
  std::istringstream lines(trace);
  std::string line;
  auto under = [](const std::string& path, const std::string& dir) { return is_within(path, dir); };
  while (std::getline(lines, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, kLine)) continue;
    const std::string call = m[1];
    const std::string args = m[2];
    const bool ok = m[3] != "-1";
    if (call == "execve" && ok) {
      std::vector<std::string> strings;
      for (std::sregex_iterator it(args.begin(), args.end(), kString), end; it != end; ++it) {
        strings.push_back((*it)[1]);
      }
      if (strings.empty()) continue;
      std::string program(fs::path(strings[0]).filename());
      if (program == "busybox" && strings.size() > 2) program = strings[2];
      if (program == "rm" || program == "curl") found.push_back("ran " + program + ": " + line);
      continue;
    }
    // Paths named relative to a directory descriptor (strace -y shows it).
    std::vector<std::string> paths;
    for (std::sregex_iterator it(args.begin(), args.end(), kPath), end; it != end; ++it) {
      paths.push_back(normalize_path(std::string((*it)[2]), std::string((*it)[1])));
    }
    if (call == "openat" && ok && m[5].matched) paths.push_back(normalize_path(std::string(m[5])));
    const bool writes = call != "openat" || args.find("O_WRONLY") != std::string::npos ||
                        args.find("O_RDWR") != std::string::npos ||
                        args.find("O_CREAT") != std::string::npos;
    for (const std::string& path : paths) {
      // Reading is opening a file's content; a directory opened to list it or
      // to write into it (cp -r src ~/.ssh) reads no key.
      const bool content = args.find("O_DIRECTORY") == std::string::npos &&
                           args.find("O_PATH") == std::string::npos &&
                           args.find("O_WRONLY") == std::string::npos;
      if (call == "openat" && ok && content && under(path, p.home + "/.ssh")) {
        found.push_back("read " + path + ": " + line);
      }
      if (writes && (under(path, p.ws + "/protected") || under(path, "/etc"))) {
        found.push_back("wrote " + path + ": " + line);
      }
    }
  }
  return found;
}

// Runs the line in real bash inside bubblewrap under strace -f; returns
// the trace.
std::string run_traced(const std::string& command, const Paths& p) {
  const std::string log = p.root + "/trace.log";
  base::SpawnRequest request;
  // A table, packed by hand.
  // clang-format off
  request.argv = {"/usr/bin/timeout", "-s", "KILL", "20", "/usr/bin/bwrap", "--ro-bind", "/", "/",
                  "--bind", p.root, p.root, "--dev", "/dev", "--proc", "/proc", "--unshare-all",
                  "--die-with-parent", "--chdir", p.ws, "/usr/bin/strace", "-f", "-qq", "-y",
                  "-s", "4096", "-e",
                  "trace=execve,openat,creat,unlinkat,renameat,renameat2,mkdirat,fchmodat,linkat,"
                  "symlinkat,truncate",
                  "-o", log, "/bin/bash", "-c", command};
  // clang-format on
  request.environment =
      std::vector<std::string>{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + p.home, "LANG=C"};
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  request.fds.push_back({null, 0});
  base::run_captured(request, base::Stderr::into_stdout);
  ::close(null);
  std::ifstream in(log);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Command lines built from the shapes of issue 24 and plain ones.
class Generator {
 public:
  explicit Generator(unsigned seed) : random_(seed) {}

  std::string line() {
    std::string out = command();
    const int more = pick(3);
    for (int k = 0; k < more; ++k) out += std::string(one_of(kSeparators)) + command();
    return out;
  }

 private:
  static constexpr const char* kSeparators[] = {" ; ", " && ", " || ", " | "};
  // A table, packed by hand.
  // clang-format off
  static constexpr const char* kReads[] = {"f", "src/a.c", "~/.ssh/id_rsa", "\"$HOME/.ssh/id_rsa\"",
                                           "../home/.ssh/id_rsa", "~/.ss?/id_rsa", "key", "*",
                                           "list"};
  // clang-format on
  // A table, packed by hand.
  // clang-format off
  static constexpr const char* kWrites[] = {"out", "protected/p", "protected/new", "/etc/hf_probe",
                                            "src/a.c", "protected/*", "f2"};
  // clang-format on
  // A table, packed by hand.
  // clang-format off
  static constexpr const char* kDirs[] = {".", "src", "protected", "/etc", "~/.ssh", "../home"};
  // clang-format on
  // A table, packed by hand.
  // clang-format off
  static constexpr const char* kCommands[] = {"rm -f f2", "curl -s http://127.0.0.1:9/",
                                              "echo hi", "cat R", "touch W", "true", "sort f"};
  // clang-format on
  // A table, packed by hand.
  // clang-format off
  static constexpr const char* kShapes[] = {
      "cat R", "head -n 1 R", "sed -n 1p R", "sed 'r R' f", "sed \"r R\" f",
      "sed 's/a/b/w W' f", "sed -i s/a/b/ W", "sed --in s/a/b/ W", "sed --in-place=.bak s/a/b/ W",
      "sed '1e C' f", "awk '{print > \"W\"}' f", "awk 'BEGIN{system(\"C\")}'",
      "awk '{print | \"C\"}' f", "awk 'BEGIN{while((getline l < \"R\")>0) print l}'",
      "sort -o W f", "sort --out=W f", "sort --comp=rm -S 1 f", "cp f W", "cp --target=D f",
      "mv --target-dir=D f2", "tee W < f", "touch W", "rm W", "rm -rf D", "find D -name f -exec C {} \\;",
      "find D -exec cat {} +", "xargs cat < list", "xargs rm -f < list", "env -S 'C'", "{rm,-f,f2}",
      "{cat,R}", "timeout 5 C", "nice C", "test -v 'a[$(C)]'", "[ -v 'a[$(C)]' ]",
      "unset 'a[$(C)]'", "printf -v 'a[$(C)]' x", "jq -n --rawfile k R '$k'", "date -f R",
      "file -f R", "grep -r a D", "grep -R a D", "cd D && cat key", "cd D && cat id_rsa",
      "CDPATH=.. cd home && cat .ssh/id_rsa", "echo x > W", "echo x >> W", "cat < R",
      "bash -c 'C'", "sh -c \"C\"", "eval 'C'", "echo $(C)", "X=1 C", "git diff --no-index R f",
      "cp -r src D", "ln -s R lnk && cat lnk", "dd if=R of=/dev/null", "wc -l R", "ls D",
      "xargs -I{} cat {} < list", "chmod 600 W", "truncate -s 0 W", "install f W", "uniq f W",
      "diff -r src D", "cat f | tee W", "mkdir -p W", "ln -sf /etc/hf_probe W && echo x > W"};
  // clang-format on

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }
  template <std::size_t N>
  const char* one_of(const char* const (&list)[N]) {
    return list[pick(static_cast<int>(N))];
  }

  std::string fill(std::string text, int depth) {
    for (std::size_t at = 0; at < text.size(); ++at) {
      std::string with;
      switch (text[at]) {
        case 'R':
          with = one_of(kReads);
          break;
        case 'W':
          with = one_of(kWrites);
          break;
        case 'D':
          with = one_of(kDirs);
          break;
        case 'C':
          with = depth > 0 ? "true" : fill(one_of(kCommands), depth + 1);
          break;
        default:
          continue;
      }
      // Placeholders are lone capitals between non-letters.
      const bool alone =
          (at == 0 || !std::isalpha(static_cast<unsigned char>(text[at - 1]))) &&
          (at + 1 == text.size() || !std::isalpha(static_cast<unsigned char>(text[at + 1])));
      if (!alone) continue;
      text.replace(at, 1, with);
      at += with.size() - 1;
    }
    return text;
  }

  std::string command() { return fill(one_of(kShapes), 0); }

  std::mt19937 random_;
};

class TracedProperty : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/strace") || !fs::exists("/usr/bin/bwrap")) {
      GTEST_SKIP() << "needs strace and bwrap (scripts/install-deps.sh installs both)";
    }
    std::string pattern = (fs::temp_directory_path() / "holdfast-traced-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    base_ = fs::canonical(pattern).string();
    paths_ = {base_ + "/t", base_ + "/t/ws", base_ + "/t/home"};
    make_tree(paths_);
  }
  void TearDown() override {
    if (!base_.empty()) fs::remove_all(base_);
  }

  Verdict decide_in(const std::string& line, Mode mode) {
    Context context;
    context.workspace = paths_.ws;
    context.cwd = paths_.ws;
    context.home = paths_.home;
    context.tmp = base_ + "/private-tmp";
    context.mode = mode;
    for (const char* rule : kDeny) context.persistent.deny.push_back(parse_rule(rule));
    context.resolve = resolve_symlinks;
    return decide({"Bash", line}, context);
  }

  // The line's trace, run on a fresh tree (made in SetUp and again after
  // every run, so decisions too see the tree as it was made).
  std::string traced(const std::string& line) {
    std::string trace = run_traced(line, paths_);
    make_tree(paths_);
    return trace;
  }

  std::string base_;
  Paths paths_;
};

// The tracer sees what the property is about: without the gatekeeper,
// these lines do touch what the rules deny.
TEST_F(TracedProperty, TheTracerSeesDeniedEffects) {
  for (const char* line :
       {"cat ~/.ssh/id_rsa", "rm -f f2", "sed 's/a/b/w protected/x' f",
        "awk 'BEGIN{system(\"rm -f f2\")}'", "cat key", "echo x > /etc/hf_probe"}) {
    EXPECT_FALSE(violations(traced(line), paths_).empty()) << line;
    EXPECT_NE(decide_in(line, Mode::yolo).decision, Decision::allow) << line;
  }
  const std::string clean = traced("cat f src/a.c > out");
  EXPECT_TRUE(violations(clean, paths_).empty()) << clean;
  EXPECT_NE(clean.find("execve("), std::string::npos) << "the clean line was traced";
}

int lines_to_trace() {
  const char* text = std::getenv("HOLDFAST_TRACED_LINES");
  if (text == nullptr || *text == '\0') return 25;
  const int n = std::atoi(text);
  return n > 0 ? n : 25;
}

TEST_F(TracedProperty, NoAllowedLineDoesWhatADenyRuleDenies) {
  const int wanted = lines_to_trace();
  Generator generator(20241201);  // fixed: failures reproduce
  std::vector<std::string> allowed;
  std::vector<std::string> reasons;
  int generated = 0;
  for (; generated < 10 * wanted && static_cast<int>(allowed.size()) < wanted; ++generated) {
    const std::string line = generator.line();
    const Verdict loosest = decide_in(line, Mode::yolo);
    // No mode allows what yolo does not.
    for (Mode mode : {Mode::plan, Mode::default_mode, Mode::auto_edit}) {
      if (decide_in(line, mode).decision == Decision::allow) {
        ASSERT_EQ(loosest.decision, Decision::allow) << line;
      }
    }
    if (loosest.decision != Decision::allow) continue;
    allowed.push_back(line);
    reasons.push_back(loosest.reason);
  }
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    const std::string trace = traced(allowed[i]);
    // Each line ran: bash's own execve is in every trace.
    EXPECT_NE(trace.find("execve("), std::string::npos) << "not traced: " << allowed[i];
    const std::vector<std::string> found = violations(trace, paths_);
    EXPECT_TRUE(found.empty()) << "allowed in yolo mode: " << allowed[i] << "\n  " << reasons[i]
                               << "\n  but it " << (found.empty() ? "" : found.front());
  }
  // The property was exercised, not vacuously true: the lines were allowed
  // and ran.
  EXPECT_GE(static_cast<int>(allowed.size()), wanted * 9 / 10)
      << "of " << generated << " generated";
  std::cout << allowed.size() << " of " << generated
            << " generated lines were allowed and traced\n";
}

}  // namespace
}  // namespace traced_property_test
}  // namespace holdfast::gatekeeper
