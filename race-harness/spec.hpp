// Parsing what the command line says a campaign is: which writers at which
// rates, which shard of how many, and the seeds each part derives.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace holdfast::race {

// The writers the harness knows, in a fixed order.
inline const std::vector<std::string>& writer_names() {
  static const std::vector<std::string> names = {"holdfast", "rename-backup", "copy-backup",
                                                 "in-place"};
  return names;
}

struct WriterSpec {
  std::string name;
  double rate = 0;  // saves per second; 0: as fast as it can
};

class SpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// "holdfast,rename-backup:2000,in-place:max" → each writer with its rate
// ("max" or no rate: as fast as it can). Throws SpecError naming the part.
std::vector<WriterSpec> parse_writer_specs(std::string_view text);
std::string format_writer_spec(const WriterSpec& spec);

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
