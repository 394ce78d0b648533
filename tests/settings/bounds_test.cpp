// Untrusted settings text has bounds: the workspace scope is project
// content, so a file may be built to crash or exhaust its reader. Each
// hostile shape here must come back as a located error (FILE:LINE:COLUMN)
// from a reader that stays within a fixed address-space limit; legitimate
// documents near the limits must still read. Readers run in a child process,
// so a crash shows as a signal instead of ending this test program.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <condition_variable>
#include <mutex>
#include <string>

#include "settings/jsonc.hpp"
#include "settings/scope_file.hpp"
#include "settings/store.hpp"
#include "settings/watcher.hpp"
#include "tests/settings/deep_documents.hpp"
#include "tests/support/files.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

namespace fs = std::filesystem;
using testing::nested_arrays;
using testing::nested_objects;
using testing::read_file;
using testing::repeat;
using testing::TempDir;
using testing::write_file;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAddressSanitizer = true;
#else
constexpr bool kUnderAddressSanitizer = false;
#endif
#else
constexpr bool kUnderAddressSanitizer = false;
#endif

// The address space a child reader may use. Reading a file at the size
// limit needs a small fraction of this; the quadratic readers these tests
// guard against needed gigabytes. AddressSanitizer reserves terabytes of
// address space for its shadow memory, so under it no limit is set.
constexpr rlim_t kAddressSpaceLimit = rlim_t{512} << 20;

// The documented limits.
constexpr std::size_t kDepthLimit = 64;
constexpr std::size_t kSizeLimit = std::size_t{1} << 20;
constexpr std::uint64_t kRevisionLimit = 9007199254740991;  // 2^53 - 1

struct ChildReading {
  int exit_code = -1;  // 0: read_scope_file returned; -N: killed by signal N
  std::string found;   // its first error, "valid", or the exception it threw
};

// Reads `path` as the workspace scope in a child process under the address
// space limit.
ChildReading read_in_child(const fs::path& path, const fs::path& report) {
  ChildReading reading;
  reading.exit_code = testing::run_in_child([&] {
    if (!kUnderAddressSanitizer) {
      const rlimit limit{kAddressSpaceLimit, kAddressSpaceLimit};
      if (::setrlimit(RLIMIT_AS, &limit) != 0) return 90;
    }
    try {
      const ScopeFile file = detail::read_scope_file_once(Scope::workspace, path);
      std::string found = "valid";
      for (const auto& d : file.diagnostics) {
        if (d.severity == Severity::error) {
          found = d.to_string();
          break;
        }
      }
      write_file(report, found);
      return 0;
    } catch (const std::exception& e) {
      write_file(report, std::string("exception: ") + e.what());
      return 3;
    }
  });
  reading.found = read_file(report);
  return reading;
}

class Bounds : public ::testing::Test {
 protected:
  TempDir dir_;
  fs::path file_ = dir_ / "settings.json";
  fs::path report_ = dir_ / "report";

  ChildReading read(const std::string& text) {
    write_file(file_, text);
    return read_in_child(file_, report_);
  }
  std::string at(int line, int column) const {
    return file_.string() + ":" + std::to_string(line) + ":" + std::to_string(column) + ": error: ";
  }
};

TEST_F(Bounds, TwentyThousandNestedObjectsAreALocatedErrorNotACrash) {
  const std::string text = nested_objects(20000);
  ASSERT_EQ(text.size(), 120001U);  // the 120 KB file that crashed run and watch
  const ChildReading reading = read(text);
  ASSERT_EQ(reading.exit_code, 0) << reading.found;
  // The 65th object opens at byte 64 * 5: one level deeper than allowed.
  EXPECT_TRUE(reading.found.starts_with(at(1, 321))) << reading.found;
  EXPECT_NE(reading.found.find("nested more than 64 levels deep"), std::string::npos)
      << reading.found;
}

TEST_F(Bounds, HundredThousandNestedArraysAreRefusedWithinTheMemoryLimit) {
  const ChildReading reading = read(nested_arrays(100000));
  ASSERT_EQ(reading.exit_code, 0) << reading.found;
  EXPECT_TRUE(reading.found.starts_with(at(1, 65))) << reading.found;
  EXPECT_NE(reading.found.find("nested more than 64 levels deep"), std::string::npos)
      << reading.found;
}

TEST_F(Bounds, NestingAtTheLimitReadsAndOneLevelMoreDoesNot) {
  EXPECT_EQ(read(nested_objects(kDepthLimit)).found, "valid");
  // Arrays inside objects count alike: 63 objects and one array is 64.
  const std::string mixed =
      repeat("{\"a\":", kDepthLimit - 1) + "[1]" + repeat("}", kDepthLimit - 1);
  EXPECT_EQ(read(mixed).found, "valid");
  const std::string deeper =
      repeat("{\"a\":", kDepthLimit - 1) + "[[1]]" + repeat("}", kDepthLimit - 1);
  const std::string found = read(deeper).found;
  EXPECT_TRUE(found.starts_with(at(1, 5 * (kDepthLimit - 1) + 2))) << found;
  EXPECT_TRUE(read(nested_objects(kDepthLimit + 1)).found.starts_with(at(1, 321)));
}

TEST_F(Bounds, BracketsInsideStringsAndCommentsDoNotCount) {
  const std::string text = "{\"a\": \"" + repeat("[{", 1000) + "\" // " + repeat("[", 1000) +
                           "\n /* " + repeat("{", 1000) + " */}";
  EXPECT_EQ(read(text).found, "valid");
}

// {\n"pad": "aaa..."\n}\n of exactly `size` bytes.
std::string padded_document(std::size_t size) {
  const std::string head = "{\n\"pad\": \"";
  const std::string tail = "\"\n}\n";
  return head + std::string(size - head.size() - tail.size(), 'a') + tail;
}

TEST_F(Bounds, FileAtTheSizeLimitReadsAndOneByteMoreIsALocatedError) {
  EXPECT_EQ(read(padded_document(kSizeLimit)).found, "valid");
  const ChildReading reading = read(padded_document(kSizeLimit + 1));
  ASSERT_EQ(reading.exit_code, 0) << reading.found;
  // The byte past the limit is the final newline: line 3, column 2.
  EXPECT_TRUE(reading.found.starts_with(at(3, 2))) << reading.found;
  EXPECT_NE(reading.found.find("larger than 1 MiB"), std::string::npos) << reading.found;
}

TEST_F(Bounds, FarLargerFileIsReadOnlyUpToTheLimit) {
  // A file far past the limit (sparse, so it costs no disk) is refused
  // after reading just past the limit, not read whole into memory.
  write_file(file_, "{\"pad\": \"");
  fs::resize_file(file_, std::uintmax_t{8} << 30);
  const ChildReading reading = read_in_child(file_, report_);
  ASSERT_EQ(reading.exit_code, 0) << reading.found;
  EXPECT_TRUE(reading.found.starts_with(at(1, static_cast<int>(kSizeLimit) + 1))) << reading.found;
}

TEST_F(Bounds, LongKeyAboveManyValuesIsRefusedWithinTheMemoryLimit) {
  // Every value is named by its whole key path (for locations, origins and
  // change reports). One 300 KiB key above 60,000 values spelled out 18 GB
  // of key paths; the total is bounded instead.
  std::string text = "{\"" + std::string(300 << 10, 'k') + "\": {\n";
  for (int i = 0; i < 60000; ++i) text += "\"" + std::to_string(i) + "\": 0,\n";
  text += "\"end\": 0}}\n";
  ASSERT_LT(text.size(), kSizeLimit);
  const ChildReading reading = read(text);
  ASSERT_EQ(reading.exit_code, 0) << reading.found;
  ASSERT_TRUE(reading.found.starts_with(file_.string() + ":")) << reading.found.substr(0, 300);
  EXPECT_NE(reading.found.find("key paths"), std::string::npos) << reading.found.substr(0, 300);
  // Located at a value on its own line, past the first ones.
  const std::size_t line_start = file_.string().size() + 1;
  EXPECT_GT(std::stoi(reading.found.substr(line_start)), 2) << reading.found.substr(0, 300);
}

TEST_F(Bounds, LargeLegitimateDocumentsRead) {
  // Just under the size limit: 19,000 rules, and a deep but narrow tree.
  nlohmann::json rules = nlohmann::json::array();
  for (int i = 0; i < 19000; ++i) {
    rules.push_back("Read(/srv/projects/team-" + std::to_string(i) + "/secrets/**)");
  }
  const std::string text = nlohmann::json{{"permissions", {{"deny", rules}}}}.dump(2);
  ASSERT_GT(text.size(), kSizeLimit * 3 / 4);
  ASSERT_LT(text.size(), kSizeLimit);
  EXPECT_EQ(read(text).found, "valid");

  std::string deep = "{\"launcher\": {\"x\": ";
  for (int i = 0; i < 60; ++i) deep += "{\"key-" + std::string(200, 'k') + "\": ";
  deep += "1" + repeat("}", 62);
  EXPECT_EQ(read(deep).found, "valid");
}

TEST_F(Bounds, NumberOutOfRangeIsALocatedError) {
  const ChildReading reading = read("{\n  \"launcher\": {\"limit\": 1e999}\n}\n");
  ASSERT_EQ(reading.exit_code, 0) << reading.found;
  EXPECT_TRUE(reading.found.starts_with(at(2, 25))) << reading.found;
  EXPECT_NE(reading.found.find("1e999"), std::string::npos) << reading.found;
  EXPECT_NE(reading.found.find("out of range"), std::string::npos) << reading.found;
  EXPECT_EQ(reading.found.find("json.exception"), std::string::npos) << reading.found;

  // Negative too, after a string that holds a number-like text.
  const ChildReading negative = read("{\"a\": \"1e999\", \"b\": [0, -2E+400]}");
  EXPECT_TRUE(negative.found.starts_with(at(1, 25))) << negative.found;
  EXPECT_NE(negative.found.find("-2E+400"), std::string::npos) << negative.found;
}

TEST_F(Bounds, RevisionAboveTheMaximumIsALocatedError) {
  for (const std::string revision : {"9007199254740992", "18446744073709551615"}) {
    const ChildReading reading = read("{\n  \"$revision\": " + revision + "\n}\n");
    EXPECT_TRUE(reading.found.starts_with(at(2, 16) + "at $revision: ")) << reading.found;
    EXPECT_NE(reading.found.find("at most 9007199254740991"), std::string::npos) << reading.found;
  }
  EXPECT_EQ(read("{\"$revision\": 9007199254740991}").found, "valid");
}

TEST_F(Bounds, SaveAtTheMaximumRevisionIsRefusedAndTheFileIsUnchanged) {
  ScopePaths paths;
  paths.system_dir = dir_ / "etc";
  paths.config_dir = dir_ / "config";
  fs::create_directories(paths.config_dir);
  const std::string text = "{\n  \"launcher\": {},\n  \"$revision\": 9007199254740991\n}\n";
  const fs::path user = *paths.file(Scope::user);
  write_file(user, text);
  Store store(paths);
  try {
    store.set(Scope::user, {"launcher", "launchRecords"}, false);
    FAIL() << "saved past the maximum revision: " << read_file(user);
  } catch (const InvalidSettings& e) {
    const std::string message = e.what();
    EXPECT_TRUE(message.starts_with(user.string() + ":3:16: error: at $revision: ")) << message;
    EXPECT_NE(message.find("maximum"), std::string::npos) << message;
    EXPECT_NE(message.find("nothing was saved"), std::string::npos) << message;
  }
  EXPECT_EQ(read_file(user), text);
  // One below the maximum saves, to the maximum.
  write_file(user, "{\"$revision\": 9007199254740990}");
  EXPECT_EQ(store.set(Scope::user, {"launcher", "launchRecords"}, false).revision, kRevisionLimit);
}

TEST_F(Bounds, WatcherReportsATooDeepWorkspaceFileAsALocatedError) {
  ScopePaths paths;
  paths.system_dir = dir_ / "etc";
  paths.config_dir = dir_ / "config";
  paths.workspace = dir_ / "project";
  const fs::path workspace_file = *paths.file(Scope::workspace);
  fs::create_directories(workspace_file.parent_path());
  write_file(workspace_file, nested_objects(20000));
  const int exit_code = testing::run_in_child([&] {
    std::mutex mutex;
    std::condition_variable reported;
    std::string error;
    Watcher watcher(
        paths, SnapshotOptions{}, [](const SettingsChange&) {},
        [&](const std::exception& e) {
          const std::lock_guard lock(mutex);
          if (error.empty()) error = e.what();
          reported.notify_all();
        });
    std::unique_lock lock(mutex);
    // A bound against a hang, not a synchronisation: the error is awaited
    // as an event.
    reported.wait_for(lock, std::chrono::seconds(60), [&] { return !error.empty(); });
    write_file(report_, error);
    return 0;
  });
  const std::string error = read_file(report_);
  ASSERT_EQ(exit_code, 0) << error;
  EXPECT_TRUE(error.starts_with(workspace_file.string() + ":1:321: error: ")) << error;
}

}  // namespace
}  // namespace holdfast::settings
