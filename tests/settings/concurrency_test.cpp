// Several processes at once: a reader opening the settings path in a tight
// loop while writers save must never find it missing or torn; concurrent
// read-modify-write saves must never lose an update.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "settings/atomic_writer.hpp"
#include "settings/store.hpp"
#include "tests/support/files.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

namespace fs = std::filesystem;
using testing::fork_child;
using testing::Pipe;
using testing::TempDir;
using testing::wait_status;

constexpr int kWriters = 4;
constexpr int kSavesPerWriter = 300;
// Store saves also take the lock and make a backup; fewer keep the test fast.
constexpr int kStoreSavesPerWriter = 50;

struct ReaderCounts {
  long reads = 0;
  long missing = 0;
  long unparsable = 0;
  long distinct = 0;  // times the content changed between two reads
};

// A complete settings document of about 4 KiB, different for each save.
std::string document(int writer, int save) {
  nlohmann::json doc;
  doc["$revision"] = writer * 100000 + save;
  doc["launcher"]["launchRecords"] = save % 2 == 0;
  doc["tools"]["executionSandbox"] = {{"network", "closed"}, {"filesystem", "workspace-write"}};
  for (int i = 0; i < 60; ++i) {
    doc["permissions"]["deny"].push_back("Bash(writer " + std::to_string(writer) + " save " +
                                         std::to_string(save) + " rule " + std::to_string(i) + ")");
  }
  return doc.dump(2) + "\n";
}

bool stop_requested(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

// Reads `path` the way the launcher does until told to stop; one read is
// done before saying it is ready and one after the stop, so it always sees
// the first and the last document.
pid_t start_reader(const fs::path& path, Pipe& ready, Pipe& stop, Pipe& result) {
  return fork_child([&] {
    ReaderCounts counts;
    std::string last;
    const auto read_once = [&] {
      ++counts.reads;
      const ScopeFile file = detail::read_scope_file_once(Scope::system, path);
      if (!file.exists) {
        ++counts.missing;
      } else if (!file.valid() || file.document["permissions"]["deny"].size() != 60) {
        ++counts.unparsable;
      } else if (file.bytes != last) {
        ++counts.distinct;
        last = file.bytes;
      }
    };
    read_once();
    const char byte = 'r';
    if (::write(ready.write_end, &byte, 1) != 1) return 1;
    while (!stop_requested(stop.read_end)) read_once();
    read_once();
    return result.send(counts) ? 0 : 2;
  });
}

ReaderCounts run_readers_against(const fs::path& path,
                                 const std::function<void(int writer)>& write_loop) {
  Pipe ready;
  Pipe stop;
  Pipe result;
  const pid_t reader = start_reader(path, ready, stop, result);
  char byte = 0;
  EXPECT_EQ(::read(ready.read_end, &byte, 1), 1);

  std::vector<pid_t> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.push_back(fork_child([&, w] {
      write_loop(w);
      return 0;
    }));
  }
  for (pid_t writer : writers) {
    const int status = wait_status(writer);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer status " << status;
  }
  EXPECT_EQ(::write(stop.write_end, "s", 1), 1);
  ReaderCounts counts;
  EXPECT_TRUE(result.receive(counts));
  const int status = wait_status(reader);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "reader status " << status;
  return counts;
}

TEST(Concurrency, ReaderNeverSeesAMissingOrTornFileWhileWritersSave) {
  TempDir dir;
  const auto path = dir / "settings.json";
  write_file_atomically(path, document(9, 0));
  const ReaderCounts counts = run_readers_against(path, [&](int writer) {
    for (int save = 1; save <= kSavesPerWriter; ++save) {
      write_file_atomically(path, document(writer, save));
    }
  });
  EXPECT_EQ(counts.missing, 0);
  EXPECT_EQ(counts.unparsable, 0);
  // Reads overlapped saves: besides the first document (read before the
  // writers started) and the last (read after they finished), the reader
  // saw at least one document from the middle. Saves never repeat a
  // document, so three changes seen means one of them was neither.
  EXPECT_GE(counts.distinct, 3);
  RecordProperty("reads", std::to_string(counts.reads));
  RecordProperty("distinct_documents_seen", std::to_string(counts.distinct));
  std::cout << "reader: " << counts.reads << " reads, " << counts.distinct
            << " distinct documents, " << kWriters * kSavesPerWriter << " saves\n";
  EXPECT_TRUE(testing::names_starting_with(dir.path(), ".settings.json.holdfast-tmp.").empty());
}

// The same through the store (lock, read-modify-write, revision), with
// backups on: the path is never absent even while NAME.bak is made.
TEST(Concurrency, ReaderNeverSeesAMissingOrTornFileWhileStoresSave) {
  TempDir dir;
  ScopePaths paths;
  paths.system_dir = dir.path();
  paths.config_dir = dir / "user";
  const auto path = *paths.file(Scope::system);
  write_file_atomically(path, document(9, 0));
  StoreOptions options;
  options.keep_backup = true;
  const ReaderCounts counts = run_readers_against(path, [&](int writer) {
    Store store(paths, options);
    for (int save = 1; save <= kStoreSavesPerWriter; ++save) {
      store.set(Scope::system, {"editor", "w" + std::to_string(writer)}, save);
    }
  });
  EXPECT_EQ(counts.missing, 0);
  EXPECT_EQ(counts.unparsable, 0);
  EXPECT_GE(counts.distinct, 3);  // reads overlapped saves (see above)
  const ScopeFile final_file = detail::read_scope_file_once(Scope::system, path);
  EXPECT_EQ(final_file.revision, 9U * 100000U + kWriters * kStoreSavesPerWriter);
  EXPECT_TRUE(fs::exists(dir / "settings.json.bak"));
}

// Read-modify-write from several processes, each on its own keys: every key
// survives with its last value and the revision counts every save.
TEST(Concurrency, NoLostUpdateAcrossProcesses) {
  constexpr int kProcesses = 4;
  constexpr int kSaves = 40;
  constexpr int kKeysPerProcess = 4;
  TempDir dir;
  ScopePaths paths;
  paths.system_dir = dir / "system";
  paths.config_dir = dir / "user";
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    children.push_back(fork_child([&, p] {
      Store store(paths);
      for (int save = 0; save < kSaves; ++save) {
        store.set(Scope::user,
                  {"editor", "p" + std::to_string(p), "k" + std::to_string(save % kKeysPerProcess)},
                  save);
      }
      return 0;
    }));
  }
  for (pid_t child : children) {
    const int status = wait_status(child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  const ScopeFile file = Store(paths).load(Scope::user);
  ASSERT_TRUE(file.valid());
  EXPECT_EQ(file.revision, static_cast<std::uint64_t>(kProcesses * kSaves));
  for (int p = 0; p < kProcesses; ++p) {
    for (int k = 0; k < kKeysPerProcess; ++k) {
      const auto* value =
          find_value(file.document, {"editor", "p" + std::to_string(p), "k" + std::to_string(k)});
      ASSERT_NE(value, nullptr) << "p" << p << ".k" << k << " was lost";
      EXPECT_EQ(*value, kSaves - kKeysPerProcess + k) << "p" << p << ".k" << k;
    }
  }
}

// Threads of one process are serialized too (fcntl locks alone are per
// process).
TEST(Concurrency, NoLostUpdateAcrossThreads) {
  TempDir dir;
  ScopePaths paths;
  paths.system_dir = dir / "system";
  paths.config_dir = dir / "user";
  StoreOptions options;
  options.durable = false;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Store store(paths, options);
      for (int i = 0; i < 25; ++i) store.set(Scope::user, {"editor", "t" + std::to_string(t)}, i);
    });
  }
  for (auto& thread : threads) thread.join();
  const ScopeFile file = Store(paths).load(Scope::user);
  EXPECT_EQ(file.revision, 100U);
  for (int t = 0; t < 4; ++t) EXPECT_EQ(file.document["editor"]["t" + std::to_string(t)], 24);
}

// A stale expectation is a conflict and leaves the file as it was.
TEST(Concurrency, StaleRevisionIsAConflictAndChangesNothing) {
  TempDir dir;
  ScopePaths paths;
  paths.system_dir = dir / "system";
  paths.config_dir = dir / "user";
  Store store(paths);
  const ScopeFile loaded = store.load(Scope::user);             // absent, revision 0
  store.set(Scope::user, {"launcher", "launchRecords"}, true);  // someone else saves
  const std::string bytes = testing::read_file(*paths.file(Scope::user));
  try {
    store.set(Scope::user, {"launcher", "launchRecords"}, false, Expectation{loaded.revision, {}});
    ADD_FAILURE() << "no conflict";
  } catch (const RevisionConflict& e) {
    EXPECT_EQ(e.expected(), 0U);
    EXPECT_EQ(e.actual(), 1U);
    EXPECT_NE(std::string(e.what()).find("Read it again and retry"), std::string::npos);
  }
  EXPECT_THROW(store.set(Scope::user, {"launcher", "launchRecords"}, false,
                         Expectation::unchanged_since(loaded)),
               RevisionConflict);
  // A hand edit that leaves $revision alone is still caught by the hash.
  const ScopeFile now = store.load(Scope::user);
  testing::write_file(*paths.file(Scope::user), "{\"$revision\": 1, \"launcher\": {}}\n");
  EXPECT_THROW(store.set(Scope::user, {"launcher", "launchRecords"}, false,
                         Expectation::unchanged_since(now)),
               RevisionConflict);
  EXPECT_EQ(testing::read_file(*paths.file(Scope::user)), "{\"$revision\": 1, \"launcher\": {}}\n");
  (void)bytes;
  // With the right expectation the save goes through.
  const auto saved = store.set(Scope::user, {"launcher", "launchRecords"}, false,
                               Expectation::unchanged_since(store.load(Scope::user)));
  EXPECT_EQ(saved.revision, 2U);
}

}  // namespace
}  // namespace holdfast::settings
