// Parsing what the command line says a campaign is: which writers at which
// rates and pauses, which shard of how many, and the seeds each part derives.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace holdfast::race {

// What the harness knows about one writer (writers.hpp describes how each
// saves).
struct WriterKind {
  std::string name;
  // True when the writer, while it saves, leaves the settings path missing
  // or damaged for a moment: a naive reader can catch it, so the writer
  // gets a positive-control phase of its own.
  bool leaves_gap = false;
  // How long the writer holds its gap open by default; nullopt when it has
  // no gap to hold (a pause is then refused).
  std::optional<std::chrono::microseconds> default_pause;
  // Which files it saves: the user file, or each launcher's workspace file
  // (<workspace>/.holdfast/settings.json, where the deny rule then is
  // alone), or both.
  enum class Target { user_file, workspace_files, both } target = Target::user_file;
  // Its phase has no system directory and workspaces without .holdfast/
  // (as most hosts and fresh projects): directories a reader watches the
  // nearest ancestor of.
  bool sparse_layout = false;
};

// The writers the harness knows, in a fixed order.
const std::vector<WriterKind>& writer_kinds();
const std::vector<std::string>& writer_names();
// nullptr when `name` is not a writer.
const WriterKind* find_writer_kind(std::string_view name);

struct WriterSpec {
  std::string name;
  double rate = 0;  // saves per second; 0: as fast as it can
  // How long the gap is held open; nullopt: the writer's default.
  std::optional<std::chrono::microseconds> pause;
};

// The pause `spec` runs with: its own, else its writer's default, else 0.
std::chrono::microseconds pause_of(const WriterSpec& spec);

class SpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// "holdfast,rename-backup:2000,in-place:max,rename-prev:4@250ms" → each
// writer with its rate ("max" or no rate: as fast as it can) and, after
// "@", how long it holds its gap open (a number with us, ms or s). Throws
// SpecError naming the part.
std::vector<WriterSpec> parse_writer_specs(std::string_view text);
std::string format_writer_spec(const WriterSpec& spec);

// "100ms", "250us", "1.5s" → the duration. Throws SpecError.
std::chrono::microseconds parse_pause(std::string_view text);
// 100000us → "100ms"; 250us → "250us".
std::string format_pause(std::chrono::microseconds pause);

struct Shard {
  int index = 1;  // 1-based
  int count = 1;
};

// "2/4" → {2, 4}. Throws SpecError.
Shard parse_shard(std::string_view text);

// The share of `total` trials that `shard` runs (the first total % count
// shards run one more).
std::uint64_t shard_share(std::uint64_t total, const Shard& shard);

// A well-mixed seed for part `stream` of the run seeded with `seed`
// (splitmix64), so shards and writers draw independent numbers.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

}  // namespace holdfast::race
