// Differential test: random policies over random small directory trees,
// enforced by real bubblewrap with the argv the builder produces, probed
// from inside, and compared path by path with the pure resolution function.
//
// Seeded and reproducible: HOLDFAST_DIFF_SEED (default 4004) and
// HOLDFAST_DIFF_COUNT (default 200 admitted policies). Policy i uses seed
// SEED + i; a mismatch names that seed, the policy, the tree and the argv.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "fake_facts.hpp"
#include "launcher/sandbox/admission.hpp"
#include "launcher/sandbox/bwrap_args.hpp"
#include "launcher/sandbox/paths.hpp"
#include "launcher/sandbox/resolve.hpp"
#include "run_process.hpp"

namespace holdfast::sandbox {
namespace {

namespace fs = std::filesystem;

struct Node {
  std::string path;
  bool dir = false;
};

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::stoull(value) : fallback;
}

// A tree of up to ~25 paths, three levels deep, with some .git names.
std::vector<Node> make_tree(std::mt19937_64& rng, const std::string& root) {
  std::vector<Node> nodes = {{root, true}};
  fs::create_directories(root);
  static const char* names[] = {"a", "b", "c", ".git", "d.txt", "e.txt", ".holdfast"};
  std::vector<std::pair<std::string, int>> dirs = {{root, 0}};
  for (std::size_t i = 0; i < dirs.size() && nodes.size() < 25; ++i) {
    const auto [dir, depth] = dirs[i];
    if (depth >= 3) continue;
    const int children = static_cast<int>(depth == 0 ? 2 + rng() % 4 : rng() % 4);
    std::set<std::string> used;
    for (int c = 0; c < children; ++c) {
      const std::string name = names[rng() % std::size(names)];
      if (!used.insert(name).second) continue;
      const std::string path = dir + "/" + name;
      if (rng() % 2 == 0) {
        fs::create_directory(path);
        nodes.push_back({path, true});
        dirs.emplace_back(path, depth + 1);
      } else {
        std::ofstream(path) << path << "\n";
        nodes.push_back({path, false});
      }
    }
  }
  return nodes;
}

Policy make_policy(std::mt19937_64& rng, const std::vector<Node>& nodes, const std::string& root,
                   const std::string& probe) {
  std::map<std::string, Access> entries;
  // The probe (and its libraries) must be reachable: the whole host, or
  // the usual system directories only (an empty root).
  entries[rng() % 2 == 0 ? ":root" : ":minimal"] = Access::read;
  entries[probe] = Access::read;
  const Access accesses[] = {Access::read, Access::write, Access::deny};
  // Mostly a readable workspace (the command starts there; a denied cwd
  // is refused), sometimes none or a denied one.
  switch (rng() % 8) {
    case 0:
    case 1:
    case 2:
      entries[":workspace"] = Access::write;
      break;
    case 3:
    case 4:
      entries[":workspace"] = Access::read;
      break;
    case 5:
      entries[":workspace"] = Access::deny;
      break;
    default:
      break;
  }
  const int extra = static_cast<int>(1 + rng() % 6);
  for (int i = 0; i < extra; ++i) {
    const std::string& path = nodes[rng() % nodes.size()].path;
    // Write half of them through the :workspace token.
    std::string key = path;
    if (rng() % 2 == 0) key = path == root ? ":workspace" : ":workspace" + path.substr(root.size());
    entries[key] = accesses[rng() % 3];
  }
  Policy policy;
  policy.form = PolicyForm::split;
  policy.protected_names = core_protected_names();
  for (const auto& [key, access] : entries) policy.filesystem.push_back({key, access, key, {}});
  return policy;
}

std::set<std::string> host_names(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

std::set<std::string> split_names(const std::string& payload) {
  std::set<std::string> names;
  std::stringstream in(payload);
  for (std::string name; std::getline(in, name, '/');) names.insert(name);
  return names;
}

TEST(Differential, RandomPoliciesMatchResolutionInsideRealBubblewrap) {
  const std::uint64_t seed = env_number("HOLDFAST_DIFF_SEED", 4004);
  const std::uint64_t wanted = env_number("HOLDFAST_DIFF_COUNT", 200);
  const std::string probe = fs::canonical(HOLDFAST_SANDBOX_PROBE).string();

  // The trees live outside /tmp (a private tmpfs inside) and outside the
  // build tree (where the probe is).
  std::string base_template = "/var/tmp/holdfast-diff-XXXXXX";
  ASSERT_NE(::mkdtemp(base_template.data()), nullptr);
  const std::string base = fs::canonical(base_template).string();

  settings::ScopePaths scope_paths;
  scope_paths.system_dir = base + "/system-holdfast";
  scope_paths.config_dir = base + "/config-holdfast";

  std::uint64_t admitted = 0;
  std::uint64_t refused = 0;
  std::uint64_t probed_paths = 0;
  int failures = 0;
  std::chrono::steady_clock::duration in_sandbox{};
  for (std::uint64_t i = 0; admitted < wanted && i < wanted * 4 && failures < 5; ++i) {
    std::mt19937_64 rng(seed + i);
    const std::string root = base + "/t" + std::to_string(i);
    const auto nodes = make_tree(rng, root);
    const Policy policy = make_policy(rng, nodes, root, probe);
    FactsRequest request;
    request.workspace = root;
    request.cwd = root;
    request.scope_paths = scope_paths;
    request.home = base + "/home";
    request.tmpdir = "/tmp";
    request.environment =
        std::vector<std::pair<std::string, std::string>>{{"PATH", "/usr/bin:/bin"}};
    const HostFacts facts = gather_host_facts(policy, request);
    if (const auto refusals = check_admission(policy, facts); !refusals.empty()) {
      // Only a denied workspace (the cwd) is expected here: the trees have
      // no symlinks and every entry names an existing path.
      for (const auto& r : refusals) {
        EXPECT_EQ(r.rule, "cwd-denied") << r.to_string();
      }
      ++refused;  // e.g. the workspace (the cwd) is denied
      fs::remove_all(root);
      continue;
    }
    ++admitted;
    const auto rules = build_rules(policy, facts);
    std::map<std::string, std::set<std::string>> listings;
    std::vector<std::string> command = {probe};
    for (const auto& node : nodes) {
      command.push_back(node.path);
      if (node.dir) listings[node.path] = host_names(node.path);
    }
    // One empty-file descriptor per denied file: bubblewrap closes each
    // after use (one shared descriptor failed the second denied file).
    const MountPlan mounts = plan_mounts(resolve_policy(policy, facts), facts);
    BuildOptions options = testing::options(std::nullopt);
    for (std::size_t f = 0; f < mounts.empty_files; ++f) {
      options.empty_file_fds.push_back(::open("/dev/null", O_RDONLY));
    }
    const auto argv = build_bwrap_args(policy, facts, mounts, command, options);
    const auto started = std::chrono::steady_clock::now();
    const auto outcome = testing::run_process(argv);
    for (const int fd : options.empty_file_fds) ::close(fd);
    in_sandbox += std::chrono::steady_clock::now() - started;

    std::ostringstream context;
    context << "seed " << (seed + i) << " (HOLDFAST_DIFF_SEED=" << seed << ", policy " << i
            << ")\npolicy " << canonical_text(policy) << "\ntree:\n";
    for (const auto& node : nodes) context << "  " << node.path << (node.dir ? "/" : "") << "\n";
    context << "argv:";
    for (const auto& a : argv) context << " " << a;
    if (outcome.status != 0) {
      ADD_FAILURE() << "bwrap failed (" << outcome.status << "): " << outcome.err << "\n"
                    << context.str();
      ++failures;
      fs::remove_all(root);
      continue;
    }
    std::map<std::string, std::vector<std::string>> answers;
    std::stringstream lines(outcome.out);
    for (std::string line; std::getline(lines, line);) {
      std::vector<std::string> fields;
      std::stringstream in(line);
      for (std::string f; std::getline(in, f, '\t');) fields.push_back(f);
      fields.resize(4);
      answers[fields[0]] = fields;
    }
    bool mismatch = false;
    for (const auto& node : nodes) {
      ++probed_paths;
      const auto& a = answers[node.path];
      ASSERT_EQ(a.size(), 4u) << "no answer for " << node.path << "\n" << context.str();
      bool readable = a[1] == "1";
      if (readable && node.dir) {
        const auto inside = split_names(a[3]);
        for (const auto& name : listings[node.path]) readable = readable && inside.contains(name);
      } else if (readable) {
        readable = a[3] == node.path;  // the host's content, not an empty stand-in
      }
      const bool writable = a[2] == "1";
      const auto expected = resolve(rules, node.path);
      const bool want_read = expected.access != Access::deny;
      const bool want_write = expected.access == Access::write;
      if (readable != want_read || writable != want_write) {
        mismatch = true;
        ADD_FAILURE() << node.path << ": resolution says " << access_name(expected.access)
                      << " (rule " << (expected.rule ? expected.rule->path : "none")
                      << "), the sandbox gave read=" << readable << " write=" << writable << "\n"
                      << context.str();
      }
    }
    if (mismatch) ++failures;
    fs::remove_all(root);
  }
  fs::remove_all(base);
  EXPECT_GE(admitted, wanted) << "too many refused policies: " << refused;
  std::printf(
      "differential: %llu policies, %llu refused, %llu paths probed, seed %llu, %lld ms in "
      "bubblewrap\n",
      static_cast<unsigned long long>(admitted), static_cast<unsigned long long>(refused),
      static_cast<unsigned long long>(probed_paths), static_cast<unsigned long long>(seed),
      static_cast<long long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(in_sandbox).count()));
}

}  // namespace
}  // namespace holdfast::sandbox
