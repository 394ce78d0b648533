// Writer specs, shard specs and seed derivation.
#include "race-harness/spec.hpp"

#include <gtest/gtest.h>

#include <set>

namespace holdfast::race {
namespace {

TEST(WriterSpecs, NamesWithAndWithoutRates) {
  const auto specs = parse_writer_specs("holdfast, rename-backup:2000,in-place:max");
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[0].name, "holdfast");
  EXPECT_EQ(specs[0].rate, 0);
  EXPECT_EQ(specs[1].name, "rename-backup");
  EXPECT_EQ(specs[1].rate, 2000);
  EXPECT_EQ(specs[2].rate, 0);
  EXPECT_EQ(format_writer_spec(specs[1]), "rename-backup:2000");
  EXPECT_EQ(format_writer_spec(specs[2]), "in-place:max");
}

TEST(WriterSpecs, RefusesUnknownNamesBadRatesDuplicatesAndEmptyParts) {
  EXPECT_THROW(parse_writer_specs("vim"), SpecError);
  EXPECT_THROW(parse_writer_specs("holdfast:fast"), SpecError);
  EXPECT_THROW(parse_writer_specs("holdfast:-5"), SpecError);
  EXPECT_THROW(parse_writer_specs("holdfast:0"), SpecError);
  EXPECT_THROW(parse_writer_specs("holdfast,holdfast"), SpecError);
  EXPECT_THROW(parse_writer_specs("holdfast,,in-place"), SpecError);
  EXPECT_THROW(parse_writer_specs(""), SpecError);
}

TEST(Shards, ParseAndRefuse) {
  const Shard shard = parse_shard("2/4");
  EXPECT_EQ(shard.index, 2);
  EXPECT_EQ(shard.count, 4);
  for (const char* bad : {"0/4", "5/4", "1/0", "1", "a/b", "1/2/3", "-1/2"}) {
    EXPECT_THROW(parse_shard(bad), SpecError) << bad;
  }
}

TEST(Shards, SharesAddUpToTheTotal) {
  for (const std::uint64_t total : {0ULL, 1ULL, 7ULL, 200ULL, 1'000'001ULL}) {
    for (int count = 1; count <= 5; ++count) {
      std::uint64_t sum = 0;
      for (int index = 1; index <= count; ++index) sum += shard_share(total, {index, count});
      EXPECT_EQ(sum, total) << total << " over " << count;
    }
  }
}

TEST(Seeds, StreamsDiffer) {
  std::set<std::uint64_t> seen;
  for (std::uint64_t stream = 0; stream < 1000; ++stream) seen.insert(derive_seed(42, stream));
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_NE(derive_seed(1, 0), derive_seed(2, 0));
  EXPECT_EQ(derive_seed(9, 3), derive_seed(9, 3));
}

}  // namespace
}  // namespace holdfast::race
