// A user's own writer in a campaign (--writer-cmd, --writer-daemon; the
// contract is contract.hpp's). Like a built-in writer it runs as a process
// of its own, `holdfast-race writer-cmd ...`, which says "ready" after the
// first save and its counts as JSON when stopped; that process drives the
// user's command:
//
//   once per save   /bin/sh -c CMD for every save, the document on its
//                   stdin and in {file}; exit 0 is a save made.
//   long-running    /bin/sh -c CMD once; each document as a line on its
//                   stdin, and "ok" on a line of its stdout for a save made.
//
// While it is its phase's only writer, the file is read after every save
// and must be the document just saved (check_after_save); anything else is
// a finding, counted as a violation, with the bytes kept as evidence.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace holdfast::race {

struct ExternalWriter {
  std::string name;     // "cmd-1", "daemon-1": how phases and counts name it
  std::string command;  // the shell command, placeholders not yet replaced
  bool daemon = false;  // long-running (--writer-daemon)
  double rate = 0;      // saves per second (Poisson arrivals); 0: back to back
};

// What the file showed after a save that went wrong.
struct SaveFinding {
  std::string kind;  // "missing after save", "torn", "not a document it was given", "lost save"
  std::string note;  // one line, with what was expected
};

// Judges the file after a save of the document stamped `generation`:
// `on_disk` is what an ordinary read found (nullopt: no file), `saved` what
// the writer said (exit 0, "ok"), `before` the generation the file held
// before the save (0: the phase's first document). After a save made the
// file must be that document; after a failed one, it or the one before.
std::optional<SaveFinding> check_after_save(const std::optional<std::string>& on_disk,
                                            std::uint64_t generation, bool saved,
                                            std::uint64_t before);

struct ExternalWriterLoopOptions {
  ExternalWriter writer;
  std::filesystem::path target;        // the settings file
  std::filesystem::path scratch;       // a directory of its own, for {file}
  std::filesystem::path evidence_dir;  // where the bytes of a finding go
  bool check = true;                   // read the file after each save (the phase's only writer)
  std::uint64_t seed = 1;
  int report_fd = 1;  // "ready" (or "error: ...") then the counts as JSON
};

// Saves until SIGTERM, then writes {"saves":N,"failures":M,"findings":K,
// "evidence":[...]} to report_fd. Returns the process exit status.
int run_external_writer(const ExternalWriterLoopOptions& options);

// The command line that runs `options` as `SELF writer-cmd ...` (main.cpp
// parses it back).
std::vector<std::string> external_writer_argv(const std::string& self,
                                              const ExternalWriterLoopOptions& options);

}  // namespace holdfast::race
